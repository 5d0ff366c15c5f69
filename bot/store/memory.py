"""The embedded store: the same contract as RedisStore, held in this process only.

Used by the CLI when REDIS_URL is unset and by service tests. Nothing survives the process,
and nothing is shared with another one.
"""

from __future__ import annotations

import threading
import time
import uuid

from bot.models import Card, CardKey, PRRef, PRSnapshot


class MemoryStore:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snapshots: dict[tuple[PRRef, str], PRSnapshot] = {}
        self._revisions: dict[PRRef, str] = {}
        self._cards: dict[CardKey, tuple[Card, float]] = {}
        self._leases: dict[str, tuple[str, float]] = {}

    def get_snapshot(self, ref: PRRef, revision: str) -> PRSnapshot | None:
        return self._snapshots.get((ref, revision))

    def put_snapshot(self, snapshot: PRSnapshot) -> None:
        revision = snapshot.listing.merge_sha
        if not snapshot.complete or revision is None:
            return
        with self._lock:
            self._snapshots[(snapshot.ref, revision)] = snapshot
            self._revisions[snapshot.ref] = revision

    def get_revision(self, ref: PRRef) -> str | None:
        return self._revisions.get(ref)

    def get_card(self, key: CardKey) -> Card | None:
        held = self._cards.get(key)
        return held[0] if held and held[1] > time.monotonic() else None

    def put_card(self, key: CardKey, card: Card, ttl_seconds: int | None = None) -> None:
        expires = time.monotonic() + ttl_seconds if ttl_seconds is not None else float("inf")
        with self._lock:
            self._cards[key] = (card, expires)

    def try_lock(self, name: str, ttl_seconds: float) -> str | None:
        now = time.monotonic()
        with self._lock:
            held = self._leases.get(name)
            if held and held[1] > now:
                return None
            token = uuid.uuid4().hex
            self._leases[name] = (token, now + ttl_seconds)
            return token

    def release(self, name: str, token: str) -> None:
        with self._lock:
            held = self._leases.get(name)
            if held and held[0] == token:
                del self._leases[name]

    def lock_held(self, name: str) -> bool:
        held = self._leases.get(name)
        return bool(held and held[1] > time.monotonic())
