"""PostLedger: which messages of a channel's daily digest are already in Slack.

- ledger:{channel}:{day}     7 days: a hash of part:{i} → ts (part:0 is the lead message),
  pending:{i} (being posted), done.
- run:{channel}              30 days: the last DigestRun, for the App Home.
- lock:post:{channel}:{day}  60 s, renewed while posting: one poster at a time.

The ledger and its lease carry the channel as a hash tag, in literal braces (`ledger:{C0123}:…`,
`lock:post:{C0123}:…`): on a Redis Cluster both are in one slot, so a part is marked pending
only while the lease is still held, in one step (`claim`). A ledger written before the tag, under
`ledger:C0123:…`, is still read until it expires.

Every key is the workspace's (store/workspace.py `scoped`): unchanged for the single-workspace
install, so a ledger written before workspaces existed is still honoured.

A restarted run reads the ledger and posts only what is missing, so a thread is finished
without any message posted twice. The ledger and the lease fail closed (StoreError when Redis
cannot be reached: no post without them); the run record is for display and stays open.
"""

from __future__ import annotations

from pydantic import TypeAdapter, ValidationError

from bot.models import DigestRun
from bot.store.codec import deferred
from bot.store.kv import DAY, KV
from bot.store.workspace import scoped

LEDGER_TTL = 7 * DAY
RUN_TTL = 30 * DAY

_RUN: TypeAdapter[DigestRun] = deferred(DigestRun)


class PostLedger:
    def __init__(self, kv: KV, team: str | None = None) -> None:
        self.kv = kv
        self.team = team
        self._strict = kv.strict()

    def _key(self, channel: str, day: str) -> str:
        return scoped(self.team, f"ledger:{{{channel}}}:{day}")

    def _untagged(self, channel: str, day: str) -> str:
        return scoped(self.team, f"ledger:{channel}:{day}")

    def _lease(self, channel: str, day: str) -> str:
        return scoped(self.team, f"lock:post:{{{channel}}}:{day}")

    def check(self) -> None:
        """One round trip to the ledger's store: StoreError when it cannot be reached."""
        self._strict.exists("ledger")

    def entries(self, channel: str, day: str) -> dict[str, str]:
        found = self._strict.hgetall(self._key(channel, day)) or self._strict.hgetall(self._untagged(channel, day))
        return {name: value.decode() for name, value in found.items()}

    def claim(self, channel: str, day: str, name: str, token: str) -> bool:
        """Record `name` (a part about to be posted) only while the lease still holds `token`."""
        lease = self._lease(channel, day)
        return self._strict.hset_held(
            self._key(channel, day), name, b"1", LEDGER_TTL, lease=lease, token=token.encode()
        )

    def record(self, channel: str, day: str, name: str, value: str) -> None:
        self._strict.hset(self._key(channel, day), name, value.encode(), LEDGER_TTL)

    def take_lease(self, channel: str, day: str, token: str, ttl_seconds: float) -> bool:
        return self._strict.set_nx(self._lease(channel, day), token.encode(), int(ttl_seconds * 1000))

    def renew_lease(self, channel: str, day: str, token: str, ttl_seconds: float) -> bool:
        return self._strict.renew(self._lease(channel, day), token.encode(), int(ttl_seconds * 1000))

    def release_lease(self, channel: str, day: str, token: str) -> None:
        self._strict.delete_if(self._lease(channel, day), token.encode())

    def save_run(self, run: DigestRun) -> None:
        self.kv.set(scoped(self.team, f"run:{run.channel}"), _RUN.dump_json(run), RUN_TTL)

    def last_run(self, channel: str) -> DigestRun | None:
        raw = self.kv.get(scoped(self.team, f"run:{channel}"))
        if raw is None:
            return None
        try:
            return _RUN.validate_json(raw)
        except ValidationError:
            return None
