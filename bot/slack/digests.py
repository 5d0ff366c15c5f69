"""ChannelDigests: build and post one channel's digest for one day, by exactly one process.

The scheduler and `prdigest digest --post` both come here, so both go through the same lease
and the same ledger. Every run, successful or not, is recorded for the App Home.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime

from bot.errors import PrdigestError, PublishError
from bot.models import DigestRun, Filters, Language, Window
from bot.services.digest import DigestService
from bot.settings import parse_duration
from bot.slack.channels import ChannelPlan
from bot.slack.lease import POST_LEASE_SECONDS, PostLease
from bot.slack.publisher import Publisher, PublishResult
from bot.store.ledger import PostLedger

log = logging.getLogger(__name__)


def scheduled_window(plan: ChannelPlan, now: datetime) -> tuple[Window, str]:
    """The window a channel's digest covers today: `window` back from today's post time."""
    local = now.astimezone(plan.timezone)
    end = datetime.combine(local.date(), plan.post_at, tzinfo=plan.timezone)
    return Window(end - parse_duration(plan.window), end), local.date().isoformat()


class ChannelDigests:
    def __init__(
        self,
        digests: DigestService,
        publisher: Publisher,
        ledger: PostLedger,
        may_post: Callable[[str, str], bool],
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        lease_seconds: float = POST_LEASE_SECONDS,
    ) -> None:
        self._lease_seconds = lease_seconds
        self._digests = digests
        self._may_post = may_post
        self._publisher = publisher
        self._ledger = ledger
        self._now = now

    def done(self, channel: str, day: str) -> bool:
        return "done" in self._ledger.entries(channel, day)

    def run(
        self,
        channel: str,
        day: str,
        window: Window,
        repos: tuple[str, ...],
        *,
        language: Language,
        filters: Filters,
        quiet_days: str,
    ) -> PublishResult | None:
        """Post the digest unless another process is posting it; None when it is."""
        with PostLease(self._ledger, channel, day, self._lease_seconds) as lease:
            if not lease.acquire():
                log.info("digest of %s for %s: another process holds the lease", channel, day)
                return None
            failures: list[str] = []
            prs = 0
            result: PublishResult | None = None
            try:
                withheld = [repo for repo in repos if not self._may_post(channel, repo)]
                failures.extend(
                    f"{repo} is private and {channel} is shared with another organisation" for repo in withheld
                )
                repos = tuple(repo for repo in repos if repo not in withheld)
                if not repos:
                    raise PublishError(f"nothing to post in {channel}: " + "; ".join(failures))
                digest = self._digests.build(repos, window, language=language, filters=filters)
                prs = digest.shown
                failures.extend(digest.notes)
                result = self._publisher.publish(channel, day, digest, quiet_days=quiet_days, before_post=lease.check)
                return result
            except PrdigestError as exc:
                failures.append(str(exc))
                raise
            finally:
                posted = result.posted + result.already if result else 0
                self._ledger.save_run(DigestRun(channel, day, self._now(), prs, posted, tuple(failures)))

    def run_scheduled(self, plan: ChannelPlan) -> PublishResult | None:
        window, day = scheduled_window(plan, self._now())
        return self.run(
            plan.id,
            day,
            window,
            plan.repos,
            language=plan.language,
            filters=plan.filters,
            quiet_days=plan.quiet_days,
        )

    def due(self, plan: ChannelPlan) -> bool:
        local = self._now().astimezone(plan.timezone)
        if local.time() < plan.post_at:
            return False
        _, day = scheduled_window(plan, self._now())
        return not self.done(plan.id, day)
