"""DigestHistory: which PRs each channel's digest showed on which day, in which thread.

- shown:{channel}:{day}   HISTORY_TTL: a hash of "{repo}#{number}" → the PR's title, merge SHA
  and the digest's thread (core/links.py `Shown`), written when the digest is posted.
Every key is the workspace's (store/workspace.py `scoped`). Links across days are read from it
(a later PR that reverts or follows up one of these); it is a cache: missing, no link is shown.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, timedelta

from pydantic import TypeAdapter, ValidationError

from bot.core.links import Shown
from bot.store.codec import deferred
from bot.store.kv import DAY, KV
from bot.store.workspace import scoped

# How far back a later PR finds the digest of the PR it refers to (the watch_days default).
HISTORY_DAYS = 30
HISTORY_TTL = (HISTORY_DAYS + 1) * DAY

_SHOWN: TypeAdapter[Shown] = deferred(Shown)


class DigestHistory:
    def __init__(self, kv: KV, team: str | None = None) -> None:
        self.kv = kv
        self.team = team

    def _key(self, channel: str, day: str) -> str:
        return scoped(self.team, f"shown:{channel}:{day}")

    def record(self, channel: str, entries: Iterable[Shown]) -> None:
        for entry in entries:
            self.kv.hset(
                self._key(channel, entry.day), f"{entry.repo}#{entry.number}", _SHOWN.dump_json(entry), HISTORY_TTL
            )

    def before(self, channel: str, day: str, days: int = HISTORY_DAYS) -> list[Shown]:
        """What the channel's digests of the `days` days before `day` showed (not `day` itself)."""
        start = date.fromisoformat(day)
        shown: list[Shown] = []
        for back in range(1, days + 1):
            for raw in self.kv.hgetall(self._key(channel, (start - timedelta(days=back)).isoformat())).values():
                try:
                    shown.append(_SHOWN.validate_json(raw))
                except ValidationError:
                    continue
        return shown
