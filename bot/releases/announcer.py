"""ReleaseWatch: each new release of a followed repository posted to the channels that asked
(`releases = "post"`), whichever way it is heard of first: GitHub's `release` webhook, or the
poll of the scheduler's tick, which also finishes a post a stopped replica left half done.

Only full releases are posted (not drafts, not pre-releases), and only fresh ones: a channel
that turns the setting on is not sent last year's. Each post is once per channel across
replicas (releases/posting.py: its lease and ledger). One per workspace, over its channels and
its posting; the release lists are the process's (read from GitHub at most every few minutes).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta

from bot.channels import ChannelPlan
from bot.errors import PrdigestError, StoreError
from bot.releases.digests import ReleaseDigests
from bot.releases.posting import ReleaseAsked, ReleasePosting
from bot.releases.range import latest_release

log = logging.getLogger(__name__)

# How old a release may be and still be posted when first seen (by the poll, or a late webhook).
FRESH = timedelta(days=3)


class ReleaseWatch:
    def __init__(
        self,
        plans: Callable[[], Sequence[ChannelPlan]],
        releases: ReleaseDigests | None,
        posting: ReleasePosting,
        now: Callable[[], datetime],
    ) -> None:
        self._plans = plans  # the workspace's channels, read again (ChannelDirectory.current_plans)
        self._releases = releases
        self._posting = posting
        self._now = now

    def _wanting(self, repo: str | None = None) -> list[ChannelPlan]:
        return [
            plan
            for plan in self._plans()
            if plan.releases == "post" and (repo is None or repo.lower() in {r.lower() for r in plan.repos})
        ]

    def published(self, repo: str, tag: str) -> int:
        """`repo` published `tag` (the webhook): posted in every channel that asked; how many
        channels this call posted it in (0 where another replica did, or had)."""
        posted = 0
        for plan in self._wanting(repo):
            followed = next(r for r in plan.repos if r.lower() == repo.lower())
            try:
                result = self._posting.run(ReleaseAsked(plan.id, followed, tag, None, plan.language))
            except StoreError:
                raise  # nothing can be posted without the ledger: the caller says so once
            except PrdigestError as exc:
                log.warning("release %s %s in %s not posted: %s", repo, tag, plan.id, exc)
                continue
            posted += result is not None and result.posted > 0
        return posted

    def poll(self) -> int:
        """The newest full release of each repository some channel wants releases of, posted
        where it is fresh and not posted yet (the release list is read from GitHub at most every
        few minutes: store/repos/releases.py)."""
        releases = self._releases
        if releases is None:
            return 0
        posted = 0
        now = self._now()
        repos = {repo.lower(): repo for plan in self._wanting() for repo in plan.repos}
        for repo in repos.values():
            try:
                newest = latest_release(releases.releases(repo))
            except PrdigestError as exc:
                log.warning("the releases of %s could not be read: %s", repo, exc)
                continue
            if newest is None or newest.published_at is None or now - newest.published_at > FRESH:
                continue
            posted += self.published(repo, newest.tag)
        return posted
