"""WatchStore: every person's `/pr watch` list, kept until `/pr unwatch`.

- watches   a hash of `{user} {owner/repo} {glob | #N}` → the watch (JSON), 10 years renewed at
  each change (as subscriptions): a watch is kept until its owner removes it. One field per
  watch, so two commands of one person never overwrite each other's watch; one key per
  workspace, so the scheduler reads every watcher in one round trip per tick.
The key goes through `scoped(team, …)`. Changes and the listener's reads fail closed
(StoreError: the person is told Redis is away); the scheduler's read stays open (no watcher
is due while Redis is away, and its ledger read says so first).

Each day's DM is recorded in the post ledger (store/ledger.py) under `alert:{user}` in place of
a channel: `ledger:alert:{user}:{day}` and its lease `lock:post:alert:{user}:{day}`.
"""

from __future__ import annotations

import json
from collections import defaultdict

from bot.core.watches import Watch
from bot.store.kv import DAY, KV
from bot.store.workspace import scoped

# "Until unwatched", written as subscriptions write it: a TTL far away, renewed by every change.
WATCH_TTL = 10 * 365 * DAY


def watch_dm_channel(user: str) -> str:
    """The name a person's daily DM goes by in the post ledger and its lease."""
    return f"alert:{user}"


class WatchStore:
    def __init__(self, kv: KV, team: str | None = None) -> None:
        self._kv = kv
        self._strict = kv.strict()
        self.team = team

    def _key(self) -> str:
        return scoped(self.team, "watches")

    def add(self, user: str, watch: Watch) -> None:
        value = {"repo": watch.repo, "kind": watch.kind, "pattern": watch.pattern, "number": watch.number}
        self._strict.hset(self._key(), f"{user} {watch.key}", json.dumps(value).encode(), WATCH_TTL)

    def remove(self, user: str, watch: Watch) -> None:
        self._strict.hdel(self._key(), f"{user} {watch.key}")

    def of(self, user: str) -> list[Watch]:
        """`user`'s watches, by repository, then PR numbers before globs. Raises StoreError."""
        return everyone(self._strict.hgetall(self._key())).get(user, [])

    def everyone(self) -> dict[str, list[Watch]]:
        """Every watcher's watches (empty when Redis is away)."""
        return everyone(self._kv.hgetall(self._key()))


def everyone(fields: dict[str, bytes]) -> dict[str, list[Watch]]:
    found: defaultdict[str, list[Watch]] = defaultdict(list)
    for field in sorted(fields):
        watch = _read(fields[field])
        if watch is not None:
            found[field.split(" ", 1)[0]].append(watch)
    return dict(found)


def _read(raw: bytes) -> Watch | None:
    try:
        data = json.loads(raw)
        kind = data["kind"]
        if kind == "path":
            return Watch(str(data["repo"]), "path", pattern=str(data["pattern"]))
        if kind == "pr":
            return Watch(str(data["repo"]), "pr", number=int(data["number"]))
    except (ValueError, KeyError, TypeError):
        pass
    return None  # written by another version: not ours to guess at
