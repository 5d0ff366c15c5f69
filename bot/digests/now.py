"""ChannelDigest: what a channel's people ask of its digest from Slack.

- `/pr following`: what the channel follows and how (its effective config and where each value
  comes from), its last run and last change, and the repositories a reply there may not name.
- `/pr digest`: the last completed window's digest, posted now through the scheduler's own lease
  and ledger (DigestPosting), or why not. A refusal names repositories: in a channel shared with
  another organisation its private ones stay unnamed.

A door of the digests feature: it answers values (a FollowingView, a DigestNow), which render/
words.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.access import AccessPolicy
from bot.channels import ChannelDirectory, ChannelView, Subscriptions, bot_in_channel
from bot.digests.posting import DigestPosting
from bot.errors import PrdigestError, StoreError
from bot.models import AuditEntry, DigestNow, DigestRun
from bot.ports.slack import SlackPort

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FollowingView:
    """`/pr following`'s values: the channel's view (None: it follows nothing), its last run and
    last change, and the repositories (lower case) the reply may not name."""

    view: ChannelView | None
    last_run: DigestRun | None
    last_change: AuditEntry | None
    hidden: frozenset[str]


@dataclass(frozen=True)
class ChannelDigest:
    directory: ChannelDirectory
    subscriptions: Subscriptions
    access: AccessPolicy
    digests: DigestPosting

    def following(self, channel: str) -> FollowingView:
        view = self.subscriptions.view(channel)
        history = self.subscriptions.audit(channel)
        last = history[-1] if history else None
        # "following" types no repository: in a shared channel its private ones go unnamed.
        named = (*(view.config.repos if view else ()), *(last.detail if last and last.action != "settings" else ()))
        return FollowingView(view, self.digests.last_run(channel), last, self.access.hidden(channel, named))

    def post_now(self, slack: SlackPort, channel: str) -> DigestNow:
        """The last completed window's digest of `channel`, posted unless it was (StoreError when
        Redis is away: nothing is posted then)."""
        self.directory.refresh()
        plan = self.directory.plan(channel)
        if plan is None:
            return DigestNow("none")
        window, day = self.digests.last_completed(plan)
        next_at = self.digests.next_post(plan)
        if self.digests.done(channel, day):
            return self._already(slack, channel, day, DigestNow("already", day, next_at, plan.timezone.key))
        if not bot_in_channel(slack, channel):
            return DigestNow("not_in_channel", day)
        try:
            result = self.digests.run_plan(plan, window, day)
        except StoreError:
            raise
        except PrdigestError as exc:
            if exc.note is not None:
                return DigestNow("failed", day, reason=self.access.concealed(exc.note, channel))
            return DigestNow("failed", day, reason_text=exc.in_language(self.directory.language(channel)))
        if result is None:
            return DigestNow("busy", day)
        if result.posted == 0:
            return self._already(slack, channel, day, DigestNow("already", day, next_at, plan.timezone.key))
        return DigestNow("posted", day)

    def _already(self, slack: SlackPort, channel: str, day: str, now: DigestNow) -> DigestNow:
        """`now` with the link to the day's digest, when Slack gives one."""
        ts = self.digests.lead_ts(channel, day)
        if ts is None:
            return now
        try:
            return DigestNow(now.outcome, day, now.next_at, now.zone, permalink=slack.permalink(channel, ts))
        except PrdigestError as exc:
            log.warning("no permalink for the digest of %s on %s (%s)", channel, day, exc)
            return now
