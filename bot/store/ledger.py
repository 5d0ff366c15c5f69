"""PostLedger: which messages of a channel's daily digest are already in Slack.

- ledger:{channel}:{day}     7 days: a hash of part:{i} → ts (part:0 is the lead message),
  pending:{i} (being posted), done.
- run:{channel}              30 days: the last DigestRun, for the App Home.
- lock:post:{channel}:{day}  60 s, renewed while posting: one poster at a time.

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
        return scoped(self.team, f"ledger:{channel}:{day}")

    def _lease(self, channel: str, day: str) -> str:
        return scoped(self.team, f"lock:post:{channel}:{day}")

    def check(self) -> None:
        """One round trip to the ledger's store: StoreError when it cannot be reached."""
        self._strict.exists("ledger")

    def entries(self, channel: str, day: str) -> dict[str, str]:
        return {name: value.decode() for name, value in self._strict.hgetall(self._key(channel, day)).items()}

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
