"""Publisher: a digest into a channel, exactly once per (channel, day), paced for Slack.

One lead message, then the cards in its thread, several per message. Every message posted is
written to the ledger at once; a run that was stopped halfway is finished by the next one,
which posts only what the ledger lacks. A message that may have reached Slack without reaching
the ledger (the process died in between) is marked pending first and looked up in the thread
(by its metadata) before it is posted again. A ledger found empty (Redis restarted without
persistence, or flushed) is rebuilt from the channel the same way before anything is posted.
What the messages say is not this module's: it asks the DigestMessages port (ports/messages.py)
it is given for them and posts them as they come, so it never imports render.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.core.followups import Answered
from bot.core.links import CrossLink
from bot.core.pacing import REAL_TIME, Pacing
from bot.digests.crosslinks import CrossLinks, PostHooks
from bot.digests.followups import DEFAULT_WATCH_DAYS, FollowUpAnswers
from bot.errors import PublishError, SlackError
from bot.models import Digest, DigestThread, Note, QuietDays
from bot.ops import telemetry
from bot.ports.messages import DigestMessages
from bot.ports.slack import TRANSIENT, Message, SlackPort
from bot.store.history import DigestHistory
from bot.store.ledger import PostLedger
from bot.store.repos.followups import FollowUpStore
from bot.store.threads import ThreadStore

# Marks a ledger field ("pending:2", "replying:…") before its post, or raises to stop the run.
Claim = Callable[[str], None]

log = logging.getLogger(__name__)

# chat.postMessage: about one message per second per channel (Slack rate-limit docs).
PACE_SECONDS = 1.0
METADATA_EVENT = "prdigest_part"
# conversations.history returns at most 999 per page; 200 top-level messages cover a day of a
# busy channel.
HISTORY_LIMIT = 200
LEAD = 0


@dataclass(frozen=True)
class PublishResult:
    thread_ts: str | None
    posted: int  # messages this run posted
    already: int  # messages an earlier run had posted


@dataclass(frozen=True)
class PostPace:
    """Slack's pace for one channel's posts: the seconds between two, and the clock and the sleep
    that keep them apart."""

    seconds: float = PACE_SECONDS
    pacing: Pacing = REAL_TIME


@dataclass(frozen=True)
class DigestTies:
    """What ties today's digest to the channel's earlier ones: its PRs that refer to PRs of earlier
    digests (CrossLinks.find), and earlier cards' follow-ups its PRs answer (FollowUpAnswers.find)."""

    links: tuple[CrossLink, ...] = ()
    answered: tuple[Answered, ...] = ()


class Publisher:
    def __init__(
        self,
        slack: SlackPort,
        ledger: PostLedger,
        threads: ThreadStore,
        *,
        messages: DigestMessages,
        pace: PostPace = PostPace(),
        watch_days: int = DEFAULT_WATCH_DAYS,
    ) -> None:
        # Links to the channel's earlier digests; their history is the ledger's workspace's (no
        # caller ever gave another, so the parameter that allowed it went with `messages` coming in).
        self.links = CrossLinks(slack, ledger, DigestHistory(ledger.kv, ledger.team), messages)
        # Earlier cards' follow-ups that today's PRs answer: kept per repository, in the same workspace.
        self.watch = FollowUpAnswers(FollowUpStore(ledger.kv, ledger.team), watch_days)
        self._slack = slack
        self._messages = messages
        self._ledger = ledger
        self._threads = threads
        self._pace = pace.seconds
        self._sleep = pace.pacing.sleep
        self._clock = pace.pacing.clock
        self._last_post: dict[str, float] = {}

    def publish(
        self,
        channel: str,
        day: str,
        digest: Digest,
        *,
        quiet_days: QuietDays = "note",
        claim: Claim | None = None,
        ties: DigestTies = DigestTies(),
    ) -> PublishResult:
        """Post what the ledger lacks; `claim` marks each part before it is posted, and may stop
        the run (a lost lease); without it the ledger is written as is. `ties`: how this digest
        refers to the channel's earlier ones (links to them, follow-ups answered)."""
        mark = claim or self._unfenced(channel, day)
        links, answered = ties.links, ties.answered
        entries = self._ledger.entries(channel, day) or self._recover(channel, day)
        if "done" in entries:
            return PublishResult(entries.get("part:0"), 0, sum(name.startswith("part:") for name in entries))
        if digest.shown == 0:
            posted = 0
            if quiet_days != "silent" and "part:0" not in entries:
                _, new = self._post_part(channel, day, LEAD, self._messages.quiet(digest), None, entries, mark)
                posted = int(new)
            self._ledger.record(channel, day, "done", "1")
            if quiet_days != "silent":
                telemetry.count("digests_posted_total")  # a silent day posts nothing
            return PublishResult(None, posted, 0)
        posted = already = 0
        lead_ts = entries.get("part:0")
        if lead_ts is None:
            lead_ts, new = self._post_part(channel, day, LEAD, self._messages.lead(digest, links), None, entries, mark)
            posted, already = int(new), int(not new)
        else:
            already += 1
        # Questions in the thread may come while the cards are still being posted.
        self._threads.save_digest(
            DigestThread(
                channel, lead_ts, day, digest.repos, digest.language, digest.items, digest.window, digest.filters
            )
        )
        self.links.record(channel, day, lead_ts, digest)
        for part, message in enumerate(self._messages.thread(digest, links, answered), start=1):
            if f"part:{part}" in entries:
                already += 1
                continue
            _, new = self._post_part(channel, day, part, message, lead_ts, entries, mark)
            posted, already = posted + new, already + (not new)

        def before_reply(name: str) -> None:
            self._wait_turn(channel)
            mark(name)

        hooks = PostHooks(before_reply, lambda: self._paced(channel))
        posted += self.links.reply(channel, day, digest, links, entries, hooks)
        self._ledger.record(channel, day, "done", "1")
        # Once per digest: by the run that completes it (an earlier run's parts included).
        telemetry.count("digests_posted_total")
        return PublishResult(lead_ts, posted, already)

    def publish_weekly(
        self,
        channel: str,
        key: str,
        digest: Digest,
        areas: Sequence[tuple[str, int]],
        *,
        claim: Claim,
    ) -> PublishResult:
        """The week's roll-up, one message posted once under `key` ("week:{day}"); a quiet week
        as the channel's quiet days say (`quiet_days` "silent": nothing). Its thread answers
        questions about the week's PRs, like a digest's."""
        answered = self.watch.find(digest) if digest.items else ()
        message = self._messages.weekly(digest, areas, answered)
        result = self.publish_parts(channel, key, [message], claim=claim)
        if result.thread_ts is not None and digest.items:
            self._threads.save_digest(
                DigestThread(channel, result.thread_ts, key, digest.repos, digest.language, digest.items, digest.window)
            )
        return result

    def publish_parts(self, channel: str, key: str, parts: Sequence[Message], *, claim: Claim) -> PublishResult:
        """Post `parts` (a lead, then its thread) once under the ledger's `key`, as a digest's
        parts are (a release: "release:{repo}:{base}...{tag}"); an earlier run's are not posted again."""
        entries = self._ledger.entries(channel, key) or self._recover(channel, key)
        if "done" in entries:
            return PublishResult(entries.get("part:0"), 0, sum(name.startswith("part:") for name in entries))
        posted = already = 0
        lead_ts: str | None = None
        for part, message in enumerate(parts):
            if f"part:{part}" in entries:
                already += 1
                lead_ts = lead_ts or entries[f"part:{part}"]
                continue
            ts, new = self._post_part(channel, key, part, message, lead_ts, entries, claim)
            lead_ts = lead_ts or ts
            posted, already = posted + new, already + (not new)
        self._ledger.record(channel, key, "done", "1")
        return PublishResult(lead_ts, posted, already)

    def _post_part(
        self,
        channel: str,
        day: str,
        part: int,
        message: Message,
        thread_ts: str | None,
        entries: dict[str, str],
        claim: Claim,
    ) -> tuple[str, bool]:
        """The part's ts, and whether this call posted it (False: an earlier run's post was found)."""
        if f"pending:{part}" in entries:
            found = self._find_posted(channel, day, part, thread_ts)
            if found is not None:
                self._ledger.record(channel, day, f"part:{part}", found)
                return found, False
        self._wait_turn(channel)
        claim(f"pending:{part}")
        try:
            ts = self._slack.post(
                channel,
                message.text,
                blocks=message.blocks,
                thread_ts=thread_ts,
                metadata={"event_type": METADATA_EVENT, "event_payload": {"day": day, "part": part}},
            )
        except SlackError as exc:
            if exc.code == SlackError.TRANSPORT:
                raise  # not a refusal: no hint fits; the part stays pending and the next run finishes it
            raise PublishError("error.slack_refused", channel=channel, error=exc.code, hint=_hint(exc.code)) from exc
        finally:
            self._last_post[channel] = self._clock()
        telemetry.count("messages_posted_total")
        self._ledger.record(channel, day, f"part:{part}", ts)
        return ts, True

    def _unfenced(self, channel: str, day: str) -> Claim:
        """A claim without a lease (a caller that holds none): the mark is written as is."""
        return lambda name: self._ledger.record(channel, day, name, "1")

    def _paced(self, channel: str) -> None:
        self._last_post[channel] = self._clock()

    def _wait_turn(self, channel: str) -> None:
        last = self._last_post.get(channel)
        if last is not None:
            wait = self._pace - (self._clock() - last)
            if wait > 0:
                self._sleep(wait)

    def _recover(self, channel: str, day: str) -> dict[str, str]:
        """The ledger of a digest already (partly) in Slack, read back from the channel; {} if none.

        One conversations.history call per channel and day when the ledger is empty, which is
        also every first run: the price of never posting a digest twice after losing Redis' data.
        """
        lead_ts = self._posted(channel, day, None).get(LEAD)
        if lead_ts is None:
            return {}
        found = {LEAD: lead_ts} | self._posted(channel, day, lead_ts)
        log.warning("the ledger of %s for %s was empty: %d message(s) found in Slack", channel, day, len(found))
        for part, ts in found.items():
            self._ledger.record(channel, day, f"part:{part}", ts)
        return {f"part:{part}": ts for part, ts in found.items()}

    def _find_posted(self, channel: str, day: str, part: int, thread_ts: str | None) -> str | None:
        """Whether a message marked pending did reach Slack (read back by its metadata)."""
        return self._posted(channel, day, thread_ts).get(part)

    def _posted(self, channel: str, day: str, thread_ts: str | None) -> dict[int, str]:
        """Our digest's parts for `day` found in the channel (thread_ts None) or in a thread, by part."""
        found: dict[int, str] = {}
        try:
            if thread_ts is None:
                # The newest HISTORY_LIMIT top-level messages, one page: a lead is posted on its
                # day, and a busy channel's whole history must not be read page by page.
                messages: Iterable[Mapping[str, Any]] = self._slack.recent_messages(channel, HISTORY_LIMIT)
            else:
                messages = self._slack.thread_messages(channel, thread_ts)  # further pages are requests too
            for message in messages:
                metadata = message.get("metadata") or {}
                payload = metadata.get("event_payload") or {}
                part = payload.get("part")
                if metadata.get("event_type") == METADATA_EVENT and payload.get("day") == day and isinstance(part, int):
                    found.setdefault(part, str(message["ts"]))
        except SlackError as exc:
            if exc.code == SlackError.TRANSPORT or exc.code in TRANSIENT:
                # No answer, or "not now": nothing is posted on a guess (the run fails and is retried).
                raise
            # A lasting refusal (a missing history scope): the digest could never be checked, and
            # not posting it would be worse than the duplicate this check is there to prevent.
            log.warning("could not read back %s's digest of %s: %s", channel, day, exc)
        return found


# Slack's errors that an operator can act on; any other gets the generic hint.
_HINTED = frozenset({"not_in_channel", "channel_not_found", "invalid_auth", "not_authed", "ratelimited"})


def _hint(error: str) -> Note:
    """What to do about a message Slack refused with `error` (a sentence of bot/words)."""
    return Note(f"slack_hint.{error}" if error in _HINTED else "slack_hint.other")
