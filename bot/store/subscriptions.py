"""SubscriptionStore: what channels changed from Slack, and who changed what, when.

- subscriptions            a hash of channel → its Slack edits (ChannelEdits JSON): the values
  set from Slack, written as the config file spells them ("09:30", "Asia/Shanghai", lists).
- audit                    a list of the last AUDIT_KEEP changes (AuditEntry JSON), oldest first.
- lock:subs:{channel}      5 s: one change of a channel at a time (read, then written back).

Both keys go through `scoped(team, …)`: None is the single-workspace install. They fail closed
(`strict()`): a follow that cannot be written must say so, never be dropped; a scheduler that
cannot read them keeps the plans it read last (channels/directory.py). Validation is not here: the
values are checked with the config file's rules (channels/subscriptions.py) before they are saved.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from bot.errors import ChannelBusy
from bot.models.channels import AuditEntry
from bot.store.codec import deferred
from bot.store.kv import DAY, KV
from bot.store.workspace import scoped

# A subscription lasts until it is unfollowed; the KV port writes every key with a TTL, so this
# one is long and renewed by every change.
SUBSCRIPTION_TTL = 10 * 365 * DAY
# The audit trail is for people asking "who changed this?": the last 500 changes of the
# workspace, kept a year after the last one.
AUDIT_KEEP = 500
AUDIT_TTL = 365 * DAY

# A change reads a channel's record and writes it back: one change per channel at a time, on any
# replica, so two follows made at once both stay. A change takes milliseconds; the lock expires
# by itself if its holder dies; a second change waits for it up to about a second.
CHANGE_LOCK_MS = 5000
CHANGE_WAITS = 20
CHANGE_WAIT_SECONDS = 0.05

# A value as the config file writes it: a string (a time, a zone, a language) or a list of them.
EditValue = str | list[str]


class ChannelEdits(BaseModel):
    """A channel's values set from Slack, by ChannelConfig field name, and the last change."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    values: dict[str, EditValue]
    by: str
    at: datetime


_EDITS: TypeAdapter[ChannelEdits] = deferred(ChannelEdits)
_AUDIT: TypeAdapter[AuditEntry] = deferred(AuditEntry)


class SubscriptionStore:
    def __init__(self, kv: KV, team: str | None = None, sleep: Callable[[float], None] = time.sleep) -> None:
        self._kv = kv.strict()
        self._team = team
        self._key = scoped(team, "subscriptions")
        self._audit = scoped(team, "audit")
        self._sleep = sleep

    @contextlib.contextmanager
    def changing(self, channel: str) -> Iterator[None]:
        """Hold the channel's change lock while its record is read and written back.

        Raises StoreError when Redis cannot be reached or another change holds it too long.
        """
        key, token = scoped(self._team, f"lock:subs:{channel}"), uuid.uuid4().hex.encode()
        for _ in range(CHANGE_WAITS):
            if self._kv.set_nx(key, token, CHANGE_LOCK_MS):
                break
            self._sleep(CHANGE_WAIT_SECONDS)
        else:
            raise ChannelBusy("subs.busy")
        try:
            yield
        finally:
            self._kv.delete_if(key, token)

    def all(self) -> dict[str, ChannelEdits]:
        """Every channel's edits (one round trip; StoreError when Redis cannot be reached)."""
        found: dict[str, ChannelEdits] = {}
        for channel, raw in self._kv.hgetall(self._key).items():
            try:
                found[channel] = _EDITS.validate_json(raw)
            except ValidationError:
                continue  # written by another version: as if never set, rather than a crash each tick
        return found

    def get(self, channel: str) -> ChannelEdits | None:
        return self.all().get(channel)

    def save(self, channel: str, edits: ChannelEdits) -> None:
        self._kv.hset(self._key, channel, _EDITS.dump_json(edits), SUBSCRIPTION_TTL)

    def remove(self, channel: str) -> None:
        """Forget the channel's edits: it follows what the config file says, or nothing."""
        # The KV port has no HDEL; an empty record means "no edits" and is skipped by readers.
        self._kv.hset(self._key, channel, b"{}", SUBSCRIPTION_TTL)

    def record(self, entry: AuditEntry) -> None:
        self._kv.push(self._audit, _AUDIT.dump_json(entry), AUDIT_KEEP, AUDIT_TTL)

    def audit(self, channel: str | None = None) -> list[AuditEntry]:
        """The audit trail, oldest first; only `channel`'s when given."""
        entries = []
        for raw in self._kv.items(self._audit):
            try:
                entry = _AUDIT.validate_json(raw)
            except ValidationError:
                continue
            if channel is None or entry.channel == channel:
                entries.append(entry)
        return entries
