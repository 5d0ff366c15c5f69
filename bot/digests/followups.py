"""FollowUpAnswers: a digest's PRs that answer follow-ups of earlier cards of their repositories.

Keeps the follow-ups of the digest's cards (store/repos/followups.py) and finds, with
core/followups.py, which earlier points today's PRs answer, today's earlier-merged PRs included.
Only the digest's own repositories are read, so a channel hears only of PRs of repositories it
follows. Kept items are a cache: when Redis is away, the digest goes out without these lines.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from bot.core.followups import MAX_PATHS, Answered, FollowUp, LaterPR, answers
from bot.errors import StoreError
from bot.models import Digest, DigestItem
from bot.store.repos.followups import FollowUpStore

log = logging.getLogger(__name__)

# How long a card's follow-ups are kept and answered (config `[defaults] watch_days`).
DEFAULT_WATCH_DAYS = 30


def followup_of(item: DigestItem) -> FollowUp | None:
    """What is kept of a digest item for later PRs: None when its card has no follow-up."""
    listing = item.listing
    if not item.card.watch or listing.merged_at is None:
        return None
    return FollowUp(
        listing.repo,
        listing.number,
        listing.title,
        listing.url,
        listing.merged_at,
        item.card.watch,
        item.paths[:MAX_PATHS],
        listing.merge_sha,
        item.card.language,
    )


def later_pr(item: DigestItem) -> LaterPR:
    listing = item.listing
    return LaterPR(
        listing.repo, listing.number, listing.title, listing.body, listing.merged_at, item.paths, item.mentions
    )


class FollowUpAnswers:
    def __init__(self, items: FollowUpStore, days: int = DEFAULT_WATCH_DAYS) -> None:
        self._items = items
        self._keep = timedelta(days=days)
        self._days = days

    def find(self, digest: Digest) -> tuple[Answered, ...]:
        """Keep the digest's follow-ups; which earlier ones its PRs answer (Answered, by PR)."""
        try:
            return self._find(digest)
        except StoreError as exc:
            # A store that fails closed: the digest goes out without these lines, never stops for them.
            log.warning("follow-ups not read: %s", exc)
            return ()

    def _find(self, digest: Digest) -> tuple[Answered, ...]:
        today = [kept for item in digest.items if (kept := followup_of(item)) is not None]
        self._items.record(today, self._days)
        later = [later_pr(item) for item in digest.items if item.listing.merged_at is not None]
        found: list[Answered] = []
        for repo in sorted({pr.repo.casefold() for pr in later}):
            prs = [pr for pr in later if pr.repo.casefold() == repo]
            times = [pr.merged_at for pr in prs if pr.merged_at is not None]
            stored = self._items.between(prs[0].repo, min(times) - self._keep, max(times), digest.language)
            # Today's own items too: a PR may answer one merged hours before it, in the same digest.
            known = {item.number: item for item in stored if item.repo.casefold() == repo}
            known |= {item.number: item for item in today if item.repo.casefold() == repo}
            found.extend(answers(prs, known.values(), self._keep))
        return tuple(found)
