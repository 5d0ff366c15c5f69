"""CrossLinks: a channel's digest linked to its earlier digests, and a reply in each earlier thread.

Finds, for today's digest of a channel, the PRs that revert, follow up or fix a PR of that
channel's earlier digests (store/history.py, core/links.py); records what today's digest shows;
posts "Reverted by #N" once into the earlier thread. A reply is a part of today's run: it is
posted under the run's lease and written to today's ledger (reply:{key}), marked pending first
and looked up in the earlier thread by its metadata before it is posted again, exactly like the
digest's own parts (digests/publisher.py), so no replica posts it twice.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from bot.core.links import CrossLink, Mentioned, Shown, cross_links
from bot.errors import SlackError
from bot.models import Digest
from bot.ops import telemetry
from bot.ports.messages import DigestMessages
from bot.ports.slack import SlackPort
from bot.store.history import DigestHistory
from bot.store.ledger import PostLedger

log = logging.getLogger(__name__)

METADATA_EVENT = "prdigest_link"


def reply_key(item: CrossLink) -> str:
    return f"{item.repo.lower()}#{item.number}>{item.earlier.number}"


@dataclass(frozen=True)
class PostHooks:
    """What the poster does around each reply: `before` waits the channel's turn and marks the
    reply's ledger field (or stops the run: a lost lease), `after` notes when the channel was last
    posted in, for Slack's pace."""

    before: Callable[[str], None]
    after: Callable[[], None]


class CrossLinks:
    def __init__(self, slack: SlackPort, ledger: PostLedger, history: DigestHistory, messages: DigestMessages) -> None:
        self._slack = slack
        self._messages = messages
        self._ledger = ledger
        self._history = history

    def find(self, channel: str, day: str, digest: Digest) -> tuple[CrossLink, ...]:
        """Today's PRs that refer to PRs of the channel's digests before `day`."""
        shown = self._history.before(channel, day)
        if not shown:
            return ()
        prs = [
            Mentioned(i.listing.repo, i.listing.number, i.listing.title, i.listing.body, i.mentions)
            for i in digest.items
        ]
        links = cross_links(prs, shown)
        # The earlier thread one click away: asked of Slack only for the threads a link points to.
        permalinks = {ts: self._permalink(channel, ts) for ts in {item.earlier.thread_ts for item in links}}
        return tuple(
            replace(item, earlier=replace(item.earlier, permalink=permalinks[item.earlier.thread_ts])) for item in links
        )

    def record(self, channel: str, day: str, lead_ts: str, digest: Digest) -> None:
        """What today's digest shows in the channel, for the links of later days."""
        self._history.record(
            channel,
            [
                Shown(
                    item.listing.repo,
                    item.listing.number,
                    item.listing.title,
                    item.listing.merge_sha,
                    day,
                    lead_ts,
                    url=item.listing.url,
                )
                for item in digest.items
            ],
        )

    def reply(
        self,
        channel: str,
        day: str,
        digest: Digest,
        links: Sequence[CrossLink],
        entries: dict[str, str],
        hooks: PostHooks,
    ) -> int:
        """Post the replies the ledger lacks into the earlier threads; how many this call posted."""
        listings = {(item.listing.repo.lower(), item.listing.number): item for item in digest.items}
        posted = 0
        for item in links:
            key = reply_key(item)
            if f"reply:{key}" in entries:
                continue
            if f"replying:{key}" in entries and (found := self._find(channel, day, key, item.earlier.thread_ts)):
                self._ledger.record(channel, day, f"reply:{key}", found)
                continue
            later = listings.get((item.repo.lower(), item.number))
            if later is None:
                continue
            text = self._messages.reply(item, later.listing.url, later.card.headline, digest.language)
            hooks.before(f"replying:{key}")
            try:
                ts = self._slack.post(
                    channel,
                    text,
                    thread_ts=item.earlier.thread_ts,
                    metadata={"event_type": METADATA_EVENT, "event_payload": {"day": day, "link": key}},
                )
            except SlackError as exc:
                if exc.code == SlackError.TRANSPORT:
                    raise  # stays pending: the next run looks for it in the thread first
                # A reply is an extra: an earlier thread Slack refuses (deleted, archived) must not
                # stop today's digest, nor be asked again every run.
                log.warning("reply in %s's thread %s refused: %s", channel, item.earlier.thread_ts, exc)
                self._ledger.record(channel, day, f"reply:{key}", "refused")
                continue
            finally:
                hooks.after()
            telemetry.count("messages_posted_total")  # a digest's message, in an earlier thread
            self._ledger.record(channel, day, f"reply:{key}", ts)
            posted += 1
        return posted

    def _find(self, channel: str, day: str, key: str, thread_ts: str) -> str | None:
        """The ts of a reply marked pending that did reach Slack, read back by its metadata."""
        for message in self._slack.thread_messages(channel, thread_ts):
            metadata = message.get("metadata") or {}
            payload = metadata.get("event_payload") or {}
            if metadata.get("event_type") == METADATA_EVENT and payload == {"day": day, "link": key}:
                return str(message["ts"])
        return None

    def _permalink(self, channel: str, ts: str) -> str | None:
        try:
            return self._slack.permalink(channel, ts)
        except SlackError as exc:
            # The card still names the day; only the click to the earlier thread is lost.
            log.warning("no permalink for %s's digest at %s: %s", channel, ts, exc)
            return None
