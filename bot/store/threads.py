"""ThreadStore: what conversations need to survive a restart or land on another replica.

- digest:{channel}:{thread_ts}   30 days: the digest a thread belongs to (its cards).
- turns:{channel}:{thread_ts}    30 days, last 6, each clipped to 1,200 characters: earlier
  questions and answers of a thread (Slack's conversations.replies is too rate-limited to
  re-read threads). Only what the next answer reads is kept, never a whole transcript.
- seen:{id}                      1 hour: a Slack delivery already handled (Slack retries span ~5 min).
  Fails closed: without Redis, no delivery is answered rather than some answered twice.
- stop:{channel}:{thread_ts}:{user}   10 minutes: when (Slack's clock) that person last pressed
  Stop in the thread (agent_session_stopped); it stops only their answers to questions asked
  before it, so a late Stop never silences the next one, nor anyone else's answer.
- stop:stream:{channel}:{ts}     10 minutes: a streamed answer Slack ended for a Stop (the event's
  streaming_message_ts), whoever pressed it. Both are read by the replica making the answer
  (core/stops.py says whom a Stop ends).
Every key is the workspace's (store/workspace.py `scoped`), unchanged for the single install.
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import TypeAdapter, ValidationError

from bot.core.stops import StopPress
from bot.models import DigestThread, Turn
from bot.store.codec import deferred
from bot.store.kv import DAY, KV
from bot.store.workspace import scoped

THREAD_TTL = 30 * DAY
# What the next answer reads and no more (core/prompting/conversation.py sends the last HISTORY_TURNS = 6
# turns, each cut to HISTORY_TURN_CHARS = 1,200): three questions with their answers, enough
# for "and its tests?". Anything beyond it would be people's text kept for 30 days for nothing.
TURNS_KEPT = 6
TURN_CHARS = 1200
SEEN_TTL_MS = 3600 * 1000
# Longer than an answer may take (model_timeout is minutes at most).
STOP_TTL = 600

_THREAD: TypeAdapter[DigestThread] = deferred(DigestThread)
_TURN: TypeAdapter[Turn] = deferred(Turn)


class ThreadStore:
    def __init__(self, kv: KV, team: str | None = None) -> None:
        self.kv = kv
        self.team = team
        self._strict = kv.strict()

    def _key(self, key: str) -> str:
        return scoped(self.team, key)

    def first_delivery(self, delivery_id: str) -> bool:
        """True the first time an id is seen, by any replica; False for a retry or a twin.

        Raises StoreError when Redis cannot be reached.
        """
        return self._strict.set_nx(self._key(f"seen:{delivery_id}"), b"1", SEEN_TTL_MS)

    def save_digest(self, thread: DigestThread) -> None:
        self.kv.set(self._key(f"digest:{thread.channel}:{thread.thread_ts}"), _THREAD.dump_json(thread), THREAD_TTL)

    def digest(self, channel: str, thread_ts: str) -> DigestThread | None:
        raw = self.kv.get(self._key(f"digest:{channel}:{thread_ts}"))
        if raw is None:
            return None
        try:
            return _THREAD.validate_json(raw)
        except ValidationError:
            return None

    def stop(self, press: StopPress) -> None:
        """Mark a Stop for any replica to see: by its presser in the thread, and on each stream
        Slack ended for it; never on the thread, where other people's answers are being made."""
        if press.user:
            self.kv.set(
                self._key(f"stop:{press.channel}:{press.thread_ts}:{press.user}"), repr(press.at).encode(), STOP_TTL
            )
        for ts in press.streams:
            self.kv.set(self._key(f"stop:stream:{press.channel}:{ts}"), b"1", STOP_TTL)

    def stopped_at(self, channel: str, thread_ts: str, user: str) -> float | None:
        """When `user` last pressed Stop in the thread; None if not lately, or when Redis cannot
        say (the answer goes on, as it would have before anyone pressed anything)."""
        raw = self.kv.get(self._key(f"stop:{channel}:{thread_ts}:{user}"))
        try:
            return float(raw) if raw is not None else None
        except ValueError:
            return None

    def stream_stopped(self, channel: str, ts: str) -> bool:
        """Slack ended this streamed message for a Stop (False when Redis cannot say, as above)."""
        return self.kv.get(self._key(f"stop:stream:{channel}:{ts}")) is not None

    def add_turn(self, channel: str, thread_ts: str, turn: Turn) -> None:
        clipped = replace(turn, text=turn.text[:TURN_CHARS])
        self.kv.push(self._key(f"turns:{channel}:{thread_ts}"), _TURN.dump_json(clipped), TURNS_KEPT, THREAD_TTL)

    def turns(self, channel: str, thread_ts: str) -> list[Turn]:
        turns: list[Turn] = []
        for raw in self.kv.items(self._key(f"turns:{channel}:{thread_ts}")):
            try:
                turns.append(_TURN.validate_json(raw))
            except ValidationError:
                continue
        return turns
