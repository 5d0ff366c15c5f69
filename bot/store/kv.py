"""The key-value port every store is built on: the few Redis operations prdigest needs.

RedisKV (shared by every replica), SqliteKV (one host's processes, one file) and MemoryKV (one
process) implement it; the stores in this package (cards, threads, ledgers) are written once
against it. Keys passed in are relative: the implementation adds the versioned prefix.

When the backend is away, a KV either stays open or fails closed, and each store picks per key
family (the README lists which):
- open (caches: cards, snapshots, threads, visibility): reads miss, writes are dropped, set_nx
  grants. The work is done again; nothing is lost.
- closed (`strict()`: the post lease, the post ledger, delivery and replay de-duplication):
  every call raises StoreError. Answering "the key is free" from a store we cannot read would
  post a digest twice or answer a delivery twice.
"""

from __future__ import annotations

from typing import Protocol

DAY = 24 * 3600  # seconds: TTLs are written in days
# Every key of every backend lives under it; a layout that changes its values takes v2.
PREFIX = "prdigest:v1:"


class KV(Protocol):
    def get(self, key: str) -> bytes | None: ...

    def set(self, key: str, value: bytes, ttl: int | None) -> None:
        """Store `value`; ttl None keeps it until deleted (a workspace's installation)."""

    def set_nx(self, key: str, value: bytes, ttl_ms: int) -> bool:
        """Set only if absent; True when this call set it (a lease, a dedupe claim)."""

    def delete(self, key: str) -> None: ...

    def delete_if(self, key: str, value: bytes) -> bool:
        """Delete only if the key still holds `value` (a lease we still own); True when it did."""

    def renew(self, key: str, value: bytes, ttl_ms: int) -> bool:
        """Extend a lease only if it still holds `value`; False when it was lost."""

    def exists(self, key: str) -> bool: ...

    def hset(self, key: str, field: str, value: bytes, ttl: int | None) -> None: ...

    def hset_held(self, key: str, field: str, value: bytes, ttl: int | None, *, lease: str, token: bytes) -> bool:
        """`hset`, only while the key `lease` still holds `token` (a write fenced by its lease), in
        one step; True when it wrote. A cluster needs `key` and `lease` in one slot: a shared hash
        tag (`{...}`). The open view answers False when the backend is away: nothing is written."""

    def hgetall(self, key: str) -> dict[str, bytes]: ...

    def hincrby(self, key: str, amounts: dict[str, int], ttl: int) -> None:
        """Add each amount to its field (a missing one counts from 0), in one step; the TTL is set anew."""

    def hincrby_below(
        self, key: str, field: str, amount: int, *, counted: tuple[str, ...], limit: int, ttl: int
    ) -> bool | None:
        """Add `amount` to `field` only while the `counted` fields add up to less than `limit` (a
        missing one counts 0), in one step, so that callers on every replica racing for the last
        of a limit pass it by one amount at most (a daily budget's reservation); the TTL is set
        anew when it adds. True: added; False: the limit is reached, nothing added; None: the
        backend could not be asked, nothing added (the open view; the strict one raises)."""

    def incr(self, key: str, ttl_ms: int) -> int:
        """Add one to a counter (a missing one counts from 0) and return it; the TTL is set only
        by the call that makes the counter, so it counts within a fixed window (a rate limit)."""

    def push(self, key: str, value: bytes, keep: int, ttl: int) -> None:
        """Append to a list, keeping only its last `keep` items."""

    def items(self, key: str) -> list[bytes]: ...

    def hdel(self, key: str, field: str) -> None: ...

    def delete_prefix(self, prefix: str) -> int:
        """Delete every key starting with `prefix` (a workspace's data on uninstall); how many."""
        ...

    def strict(self) -> KV:
        """The same keys, failing closed: a call that cannot reach the backend raises StoreError."""
        ...

    @property
    def degraded(self) -> bool:
        """Whether the last call found the backend unreachable (for /healthz)."""
        ...
