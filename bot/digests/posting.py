"""DigestPosting: build and post one channel's digest for one day, by exactly one process.

The scheduler and `prdigest digest --post` both come here, so both go through the same lease
and the same ledger. Every run, successful or not, is recorded for the App Home. Without Redis
nothing is posted: the lease and the ledger raise StoreError rather than answer "free".
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from bot.channels import ChannelPlan
from bot.core.pacing import utc_now
from bot.digests.areas import area_counts
from bot.digests.build import DigestService
from bot.digests.feedback import rank, tally
from bot.digests.lease import POST_LEASE_SECONDS, PostLease
from bot.digests.publisher import DigestTies, Publisher, PublishResult
from bot.errors import PrdigestError, PublishError
from bot.models import DigestOptions, DigestRun, Note, Window
from bot.ops.logs import request_id
from bot.spending import Payer
from bot.store.feedback import FeedbackStore
from bot.store.ledger import PostLedger

log = logging.getLogger(__name__)


def scheduled_window(plan: ChannelPlan, now: datetime) -> tuple[Window, str]:
    """The window a channel's digest covers today: `window` back from today's post time."""
    local = now.astimezone(plan.timezone)
    end = datetime.combine(local.date(), plan.post_at, tzinfo=plan.timezone)
    return Window(end - plan.window, end), local.date().isoformat()


def completed_window(plan: ChannelPlan, now: datetime) -> tuple[Window, str]:
    """The last window that has ended: today's once today's post time has passed, else
    yesterday's. `/pr digest` posts this one, never a partial window, so the next scheduled
    digest starts where it ends and no PR falls between two digests."""
    window, day = scheduled_window(plan, now)
    if now < window.end:
        window, day = scheduled_window(plan, now - timedelta(days=1))
    return window, day


def next_post(plan: ChannelPlan, now: datetime) -> datetime:
    """When the channel's next scheduled digest is due (local time of the plan's zone)."""
    local = now.astimezone(plan.timezone)
    due = datetime.combine(local.date(), plan.post_at, tzinfo=plan.timezone)
    # Against `now`, not `local`: two datetimes of one zone compare by wall clock, so in the hour
    # a fall back repeats, the 01:30 already posted would still be "next".
    return due if due > now else datetime.combine(local.date() + timedelta(days=1), plan.post_at, plan.timezone)


def weekly_window(plan: ChannelPlan, now: datetime) -> tuple[Window, str] | None:
    """The week a channel's roll-up covers, and its ledger key, on the plan's weekday (None on
    any other day): the seven days back from that day's post time. A replica down all that day
    leaves the week unposted, as a day's digest is left on the next day."""
    local = now.astimezone(plan.timezone)
    if local.weekday() != plan.weekly_on:
        return None
    end = datetime.combine(local.date(), plan.post_at, tzinfo=plan.timezone)
    return Window(end - timedelta(days=7), end), f"week:{local.date().isoformat()}"


@dataclass(frozen=True)
class PostTiming:
    """The posting run's wall clock (which day's window is due, when a run happened) and how long
    its lease lasts unless renewed; a watch DM is posted by the same rule (watches/dms.py)."""

    now: Callable[[], datetime] = utc_now
    lease_seconds: float = POST_LEASE_SECONDS


# Production's wall clock and post lease: the default of what posts by the ledger's rule.
REAL_POST_TIMING = PostTiming()


@dataclass(frozen=True)
class PostingScope:
    """Whose channels a posting run serves: the workspace (None: the single or home one), whose
    budget pays for the cards, and the store of its channels' votes, which rank them (None: no
    ranking)."""

    workspace: str | None = None
    feedback: FeedbackStore | None = None


class DigestPosting:
    def __init__(
        self,
        digests: DigestService,
        publisher: Publisher,
        ledger: PostLedger,
        refusal: Callable[[str, str], Note | None],
        timing: PostTiming = PostTiming(),
        scope: PostingScope = PostingScope(),
    ) -> None:
        # The workspace posted in (None: the single or home one): its budget pays for the cards.
        self._workspace = scope.workspace
        self._feedback = scope.feedback
        self._lease_seconds = timing.lease_seconds
        self._digests = digests
        self._refusal = refusal
        self._publisher = publisher
        self._ledger = ledger
        self._now = timing.now

    def done(self, channel: str, day: str) -> bool:
        return "done" in self._ledger.entries(channel, day)

    def last_run(self, channel: str) -> DigestRun | None:
        """How `channel`'s last digest went (the App Home's and `/pr following`'s line), if kept."""
        return self._ledger.last_run(channel)

    def lead_ts(self, channel: str, day: str) -> str | None:
        """The ts of a posted digest's lead message (None when it has none: a silent quiet day)."""
        return self._ledger.entries(channel, day).get("part:0")

    def last_completed(self, plan: ChannelPlan) -> tuple[Window, str]:
        return completed_window(plan, self._now())

    def next_post(self, plan: ChannelPlan) -> datetime:
        return next_post(plan, self._now())

    def check_store(self) -> None:
        """Raise StoreError when the ledger cannot be read (one round trip)."""
        self._ledger.check()

    def refusals(self, channel: str, repos: tuple[str, ...]) -> dict[str, Note]:
        """Why some of `repos` may not be posted in `channel`, by repository (empty when all may)."""
        return {repo: reason for repo in repos if (reason := self._refusal(channel, repo)) is not None}

    def run(
        self,
        channel: str,
        day: str,
        window: Window,
        repos: tuple[str, ...],
        *,
        options: DigestOptions,
        stopping: threading.Event | None = None,
    ) -> PublishResult | None:
        """Post the digest unless another process is posting it; None when it is.

        `stopping` set (the process is shutting down) stops the run before its next post. Its
        log lines carry the request id CHANNEL:DAY.
        """
        with request_id(f"{channel}:{day}"):
            return self._run(channel, day, window, repos, options, stopping)

    def _run(
        self,
        channel: str,
        day: str,
        window: Window,
        repos: tuple[str, ...],
        options: DigestOptions,
        stopping: threading.Event | None,
    ) -> PublishResult | None:
        def claim(name: str) -> None:
            if stopping is not None and stopping.is_set():
                raise PublishError("error.shutting_down", channel=channel)
            lease.claim(name)

        with PostLease(self._ledger, channel, day, self._lease_seconds) as lease:
            if not lease.acquire():
                log.info("digest of %s for %s: another process holds the lease", channel, day)
                return None
            failures: list[Note] = []
            prs = 0
            result: PublishResult | None = None
            try:
                refused = self.refusals(channel, repos)
                failures.extend(refused.values())
                repos = tuple(repo for repo in repos if repo not in refused)
                if not repos:
                    raise PublishError("error.nothing_to_post", channel=channel, reasons=tuple(failures))
                payer = Payer(channel, self._workspace)
                digest = self._digests.build(
                    repos, window, language=options.language, filters=options.filters, payer=payer
                )
                if self._feedback is not None:
                    # The channel's Useful / Not for us clicks move cards within their verdict group.
                    digest = rank(digest, tally(self._feedback.votes(channel)))
                prs = digest.shown
                failures.extend(digest.notes)
                if digest.model_failures:
                    # One line per run, not one per PR: the cards say they are from metadata.
                    log.warning(
                        "digest of %s for %s: the model gave no card for %d of %d PRs",
                        channel,
                        day,
                        digest.model_failures,
                        digest.shown,
                    )
                # Links and replies only about repositories this channel may be shown now.
                links = self._publisher.links.find(channel, day, digest)
                links = tuple(item for item in links if self._refusal(channel, item.repo) is None)
                answered = self._publisher.watch.find(digest)
                result = self._publisher.publish(
                    channel,
                    day,
                    digest,
                    quiet_days=options.quiet_days,
                    claim=claim,
                    ties=DigestTies(links, answered),
                )
                log.info("digest of %s for %s: %d PRs, %d messages posted", channel, day, prs, result.posted)
                return result
            except PrdigestError as exc:
                failures.append(exc.note or Note("error.internal"))
                raise
            finally:
                posted = result.posted + result.already if result else 0
                self._ledger.save_run(DigestRun(channel, day, self._now(), prs, posted, tuple(failures)))

    def run_scheduled(self, plan: ChannelPlan, stopping: threading.Event | None = None) -> PublishResult | None:
        window, day = scheduled_window(plan, self._now())
        return self.run_plan(plan, window, day, stopping)

    def run_plan(
        self, plan: ChannelPlan, window: Window, day: str, stopping: threading.Event | None = None
    ) -> PublishResult | None:
        """The digest of `window` for the plan's channel, as its plan says to build it."""
        return self.run(
            plan.id,
            day,
            window,
            plan.repos,
            options=DigestOptions(plan.language, plan.filters, plan.quiet_days),
            stopping=stopping,
        )

    def weekly_due(self, plan: ChannelPlan) -> bool:
        """Whether the plan's weekly roll-up is due now (its day, past its time, not yet posted)."""
        if not plan.weekly:
            return False
        found = weekly_window(plan, self._now())
        return found is not None and self._now() >= found[0].end and not self.done(plan.id, found[1])

    def run_weekly(self, plan: ChannelPlan, stopping: threading.Event | None = None) -> PublishResult | None:
        """Post the plan's weekly roll-up, by one process (None: another holds the lease, or it
        is not the plan's day). The week's cards are the daily digests' (cached) or made now."""
        found = weekly_window(plan, self._now())
        if found is None:
            return None
        window, key = found
        channel = plan.id
        with request_id(f"{channel}:{key}"), PostLease(self._ledger, channel, key, self._lease_seconds) as lease:
            if not lease.acquire():
                log.info("roll-up of %s for %s: another process holds the lease", channel, key)
                return None

            def claim(name: str) -> None:
                if stopping is not None and stopping.is_set():
                    raise PublishError("error.shutting_down", channel=channel)
                lease.claim(name)

            repos = tuple(repo for repo in plan.repos if self._refusal(channel, repo) is None)
            if not repos:
                raise PublishError(
                    "error.nothing_to_post", channel=channel, reasons=tuple(self.refusals(channel, plan.repos).values())
                )
            digest = self._digests.build(
                repos, window, language=plan.language, filters=plan.filters, payer=Payer(channel, self._workspace)
            )
            if self._feedback is not None:
                digest = rank(digest, tally(self._feedback.votes(channel)))
            if not digest.items and plan.quiet_days == "silent":
                self._ledger.record(channel, key, "done", "1")
                return PublishResult(None, 0, 0)
            areas = area_counts(digest.items)
            result = self._publisher.publish_weekly(channel, key, digest, areas, claim=claim)
            log.info("roll-up of %s for %s: %d PRs, %d messages posted", channel, key, digest.shown, result.posted)
            return result

    def due(self, plan: ChannelPlan) -> bool:
        if not plan.daily:
            return False
        now = self._now()
        window, day = scheduled_window(plan, now)
        # The moment the window ends, not the wall clock's reading: a post_at that a spring
        # forward skips (02:30 in Los Angeles) ends the window at 03:30, and posting at 03:00
        # lost what merged in between (the next window starts at 03:30).
        return now >= window.end and not self.done(plan.id, day)
