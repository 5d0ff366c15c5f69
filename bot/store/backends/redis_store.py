"""RedisKV: the KV port on Redis, shared by every process of a deployment.

All keys live under one versioned prefix (the README lists the families and their TTLs).
REDIS_URL may name a single Redis or any node of a Redis Cluster: the first call that reaches it
asks which (`redis_client.py`). Every operation here touches one key, or keys that share a hash
tag (a lease and its ledger), so each runs on the one node that holds its slot.
Redis going away never stops a digest from being built or a card from being shown: a call that
fails answers as a miss (set_nx grants: work may be done twice, never not at all). The strict
view (`strict()`) raises StoreError instead, for what must happen at most once (posting, answering
a delivery). Either way the outage is logged once; redis-py reconnects by itself on the next
call, so everything comes back without a restart. redis-py's errors become ours in `store_error`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TypeVar

import redis
from redis.commands.core import Script
from redis.exceptions import RedisClusterException

from bot.errors import StoreError
from bot.store.backends.redis_client import Client, RedisConnection
from bot.store.kv import PREFIX

log = logging.getLogger(__name__)

__all__ = ["PREFIX", "RedisKV", "store_error"]  # PREFIX: the tests read keys by their full name

# Delete a lease only if it still holds our token (one that expired may be someone else's).
_DELETE_IF_SCRIPT = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""

# Extend a lease only while it still holds our token.
_RENEW_SCRIPT = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end
return 0
"""

# Add ARGV[2] to the hash field ARGV[1] only while the fields ARGV[5..] add up to less than ARGV[3];
# then set the TTL ARGV[4]. One script: no other client's call runs between the read and the add.
_HINCRBY_BELOW_SCRIPT = """
local counted = 0
for index = 5, #ARGV do
  counted = counted + (tonumber(redis.call('hget', KEYS[1], ARGV[index])) or 0)
end
if counted >= tonumber(ARGV[3]) then return 0 end
redis.call('hincrby', KEYS[1], ARGV[1], ARGV[2])
redis.call('expire', KEYS[1], ARGV[4])
return 1
"""

# HSET (and its TTL) only while the lease KEYS[2] holds our token ARGV[3]: the write and the
# check in one step, so a poster whose lease expired under it cannot mark a part as its own.
_HSET_HELD_SCRIPT = """
if redis.call('get', KEYS[2]) ~= ARGV[3] then return 0 end
redis.call('hset', KEYS[1], ARGV[1], ARGV[2])
if tonumber(ARGV[4]) > 0 then redis.call('expire', KEYS[1], ARGV[4]) end
return 1
"""

T = TypeVar("T")

# Keys asked of SCAN per round trip, and unlinked per command: a workspace holds a few hundred.
SCAN_BATCH = 500


# What redis-py raises when Redis cannot do a call: RedisClusterException is not a RedisError
# (a cluster none of whose nodes answers, or a slot no node serves yet).
FAILURES = (redis.RedisError, RedisClusterException)


def store_error(exc: Exception) -> StoreError:
    """Ours for any redis-py failure (ConnectionError, TimeoutError, ResponseError…).

    Only the failure's kind is kept: redis-py's text may name the host, or repeat a command's
    arguments (our keys and values).
    """
    return StoreError("error.redis_unreachable", error=type(exc).__name__)


class RedisKV:
    def __init__(
        self, connection: RedisConnection, *, fail_closed: bool = False, degraded: threading.Event | None = None
    ) -> None:
        self._connection = connection
        self._fail_closed = fail_closed
        # Shared with the strict view, so one outage is logged once and seen by both.
        self._degraded = degraded if degraded is not None else threading.Event()

    @classmethod
    def from_url(cls, url: str) -> RedisKV:
        """The store at `url`; nothing is connected until the first call (Redis may be down at start)."""
        return cls(RedisConnection(url))

    def strict(self) -> RedisKV:
        return RedisKV(self._connection, fail_closed=True, degraded=self._degraded)

    @property
    def clustered(self) -> bool | None:
        """Whether REDIS_URL is a cluster's node; None until Redis has been reached."""
        return self._connection.clustered

    def clustered_now(self) -> bool | None:
        """Whether REDIS_URL is a cluster's node, asking Redis now if it was not yet reached;
        None when it cannot be reached (a process that starts during an outage)."""
        if self.clustered is None:
            self.ping()
        return self.clustered

    @property
    def _redis(self) -> Client:
        # Raises redis-py's ConnectionError while Redis cannot be reached: _call counts it.
        return self._connection.client()

    def _script(self, source: str) -> Script:
        return self._connection.script(source)

    @property
    def degraded(self) -> bool:
        return self._degraded.is_set()

    def ping(self) -> bool:
        try:
            return bool(self._redis.ping())
        except FAILURES:
            return False

    def close(self) -> None:
        self._connection.close()

    def _call(self, action: Callable[[], T], fallback: T) -> T:
        try:
            result = action()
        except FAILURES as exc:
            if not self._degraded.is_set():
                self._degraded.set()
                # Said to terminal users too: what must happen once says its own line (scheduler, listeners).
                log.warning(
                    "Redis is unreachable (%s): going on without the cache until it is back", type(exc).__name__
                )
            if self._fail_closed:
                raise store_error(exc) from exc
            return fallback
        if self._degraded.is_set():
            self._degraded.clear()
            log.warning("Redis is back: the cache is in use again")
        return result

    def get(self, key: str) -> bytes | None:
        value = self._call(lambda: self._redis.get(PREFIX + key), None)
        return value if isinstance(value, bytes) else None

    def set(self, key: str, value: bytes, ttl: int | None) -> None:
        self._call(lambda: self._redis.set(PREFIX + key, value, ex=ttl), None)

    def set_nx(self, key: str, value: bytes, ttl_ms: int) -> bool:
        return self._call(lambda: bool(self._redis.set(PREFIX + key, value, nx=True, px=ttl_ms)), True)

    def delete(self, key: str) -> None:
        self._call(lambda: self._redis.delete(PREFIX + key), None)

    def delete_if(self, key: str, value: bytes) -> bool:
        return bool(self._call(lambda: self._script(_DELETE_IF_SCRIPT)(keys=[PREFIX + key], args=[value]), 0))

    def renew(self, key: str, value: bytes, ttl_ms: int) -> bool:
        # Open view, Redis away: the lease is not known to be lost. Leases use the strict view.
        return bool(self._call(lambda: self._script(_RENEW_SCRIPT)(keys=[PREFIX + key], args=[value, ttl_ms]), 1))

    def exists(self, key: str) -> bool:
        return bool(self._call(lambda: self._redis.exists(PREFIX + key), 0))

    def hset(self, key: str, field: str, value: bytes, ttl: int | None) -> None:
        def write() -> None:
            pipe = self._redis.pipeline(transaction=True)
            pipe.hset(PREFIX + key, field, value)
            if ttl is not None:
                pipe.expire(PREFIX + key, ttl)
            pipe.execute()

        self._call(write, None)

    def hset_held(self, key: str, field: str, value: bytes, ttl: int | None, *, lease: str, token: bytes) -> bool:
        args: list[str | bytes | int] = [field, value, token, ttl or 0]
        keys = [PREFIX + key, PREFIX + lease]
        return bool(self._call(lambda: self._script(_HSET_HELD_SCRIPT)(keys=keys, args=args), 0))

    def hgetall(self, key: str) -> dict[str, bytes]:
        empty: dict[bytes | str, bytes | str] = {}
        raw = self._call(lambda: self._redis.hgetall(PREFIX + key), empty)
        return {_text(name): _bytes(value) for name, value in raw.items()}

    def hincrby(self, key: str, amounts: dict[str, int], ttl: int) -> None:
        def write() -> None:
            pipe = self._redis.pipeline(transaction=True)
            for name, amount in amounts.items():
                pipe.hincrby(PREFIX + key, name, amount)
            pipe.expire(PREFIX + key, ttl)
            pipe.execute()

        self._call(write, None)

    def hincrby_below(
        self, key: str, field: str, amount: int, *, counted: tuple[str, ...], limit: int, ttl: int
    ) -> bool | None:
        args: list[str | int] = [field, amount, limit, ttl, *counted]
        added = self._call(lambda: self._script(_HINCRBY_BELOW_SCRIPT)(keys=[PREFIX + key], args=args), None)
        return None if added is None else bool(added)

    def incr(self, key: str, ttl_ms: int) -> int:
        def write() -> int:
            # One transaction: a counter never exists without its TTL, whoever dies when.
            pipe = self._redis.pipeline(transaction=True)
            pipe.set(PREFIX + key, 0, nx=True, px=ttl_ms)
            pipe.incr(PREFIX + key)
            return int(pipe.execute()[1])

        return self._call(write, 0)

    def push(self, key: str, value: bytes, keep: int, ttl: int) -> None:
        def write() -> None:
            pipe = self._redis.pipeline(transaction=True)
            pipe.rpush(PREFIX + key, value)
            pipe.ltrim(PREFIX + key, -keep, -1)
            pipe.expire(PREFIX + key, ttl)
            pipe.execute()

        self._call(write, None)

    def items(self, key: str) -> list[bytes]:
        empty: list[bytes | str] = []
        return [_bytes(value) for value in self._call(lambda: self._redis.lrange(PREFIX + key, 0, -1), empty)]

    def hdel(self, key: str, field: str) -> None:
        self._call(lambda: self._redis.hdel(PREFIX + key, field), None)

    def delete_prefix(self, prefix: str) -> int:
        # SCAN, not KEYS: it never blocks Redis for the whole keyspace. UNLINK frees the memory
        # in the background. A key written meanwhile under the prefix may survive the scan: the
        # caller deletes a workspace after Slack has stopped sending its events.
        pattern = _glob_escape(PREFIX + prefix) + "*"

        def purge() -> int:
            deleted = 0
            batch: list[bytes | str] = []
            for name in self._redis.scan_iter(match=pattern, count=SCAN_BATCH):
                batch.append(name)
                if len(batch) >= SCAN_BATCH:
                    deleted += int(self._redis.unlink(*batch))
                    batch = []
            if batch:
                deleted += int(self._redis.unlink(*batch))
            return deleted

        return self._call(purge, 0)


def _glob_escape(text: str) -> str:
    """`text` matched literally by SCAN's MATCH (a glob): its special characters escaped."""
    return "".join(f"\\{char}" if char in "*?[]\\" else char for char in text)


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _bytes(value: bytes | str) -> bytes:
    return value if isinstance(value, bytes) else value.encode()
