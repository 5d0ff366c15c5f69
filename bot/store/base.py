"""The store port: what services may ask of shared state, whatever holds it.

Services depend on this protocol only; RedisStore and MemoryStore implement it. Every method
is safe to call when the backing server is away: reads miss, writes are dropped, locks are
granted (no cache is better than no digest).
"""

from __future__ import annotations

from typing import Protocol

from bot.models import Card, CardKey, PRRef, PRSnapshot


class Store(Protocol):
    def get_snapshot(self, ref: PRRef, revision: str) -> PRSnapshot | None: ...

    def put_snapshot(self, snapshot: PRSnapshot) -> None:
        """Keep a complete snapshot of a merged PR (merged PRs never change)."""

    def get_revision(self, ref: PRRef) -> str | None:
        """The merge SHA recorded for a merged PR, for listings that do not carry it (search)."""

    def get_card(self, key: CardKey) -> Card | None: ...

    def put_card(self, key: CardKey, card: Card, ttl_seconds: int | None = None) -> None:
        """Keep a card; `ttl_seconds` shortens its life (fallback cards are retried later)."""

    def try_lock(self, name: str, ttl_seconds: float) -> str | None:
        """Take a named lease; return its token, or None when someone else holds it."""

    def release(self, name: str, token: str) -> None:
        """Give a lease back, only if it is still ours."""

    def lock_held(self, name: str) -> bool: ...
