"""RedisStore: cards, snapshots and leases shared by every process of a deployment.

Key families live under one versioned prefix (README lists them with their TTLs). Redis
going away never stops a digest: each call that fails is logged once per outage and answers
as a miss; redis-py reconnects by itself on the next call, so the cache comes back without a
restart.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable
from typing import TypeVar

import redis

from bot.models import Card, CardKey, PRRef, PRSnapshot
from bot.store import codec

log = logging.getLogger(__name__)

PREFIX = "prdigest:v1:"
DAY = 24 * 3600
# Merged PRs never change; 30 days keeps a month of digests answerable without GitHub.
SNAPSHOT_TTL = 30 * DAY
# Cards are keyed by prompt version and model, so old ones are never read again: let them go.
CARD_TTL = 30 * DAY
REVISION_TTL = 90 * DAY

# Release a lease only if it still holds our token (a lease that expired may be someone else's).
_RELEASE_SCRIPT = """
if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end
return 0
"""

T = TypeVar("T")


def snapshot_key(ref: PRRef, revision: str) -> str:
    return f"{PREFIX}snapshot:{ref.repo}#{ref.number}:{revision}"


def revision_key(ref: PRRef) -> str:
    return f"{PREFIX}revision:{ref.repo}#{ref.number}"


def card_key(key: CardKey) -> str:
    return f"{PREFIX}card:{key}"


def lease_key(name: str) -> str:
    return f"{PREFIX}lock:{name}"


class RedisStore:
    def __init__(self, client: redis.Redis) -> None:
        self._redis = client
        self._release = client.register_script(_RELEASE_SCRIPT)
        self._degraded = threading.Event()

    @classmethod
    def from_url(cls, url: str) -> RedisStore:
        # Short timeouts: a cache that answers slowly is worse than none.
        client = redis.Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0, health_check_interval=30)
        return cls(client)

    def ping(self) -> bool:
        try:
            return bool(self._redis.ping())
        except redis.RedisError:
            return False

    def _call(self, action: Callable[[], T], fallback: T) -> T:
        try:
            result = action()
        except redis.RedisError as exc:
            if not self._degraded.is_set():
                self._degraded.set()
                log.warning("Redis is unreachable (%s); going on without the cache", type(exc).__name__)
            return fallback
        if self._degraded.is_set():
            self._degraded.clear()
            log.warning("Redis is back; the cache is in use again")
        return result

    def get_snapshot(self, ref: PRRef, revision: str) -> PRSnapshot | None:
        raw = self._call(lambda: self._redis.get(snapshot_key(ref, revision)), None)
        return codec.load_snapshot(raw) if raw else None

    def put_snapshot(self, snapshot: PRSnapshot) -> None:
        revision = snapshot.listing.merge_sha
        if not snapshot.complete or revision is None:
            return

        def write() -> None:
            pipe = self._redis.pipeline(transaction=False)
            pipe.set(snapshot_key(snapshot.ref, revision), codec.dump_snapshot(snapshot), ex=SNAPSHOT_TTL)
            pipe.set(revision_key(snapshot.ref), revision, ex=REVISION_TTL)
            pipe.execute()

        self._call(write, None)

    def get_revision(self, ref: PRRef) -> str | None:
        raw = self._call(lambda: self._redis.get(revision_key(ref)), None)
        return raw.decode() if isinstance(raw, bytes) else raw

    def get_card(self, key: CardKey) -> Card | None:
        raw = self._call(lambda: self._redis.get(card_key(key)), None)
        return codec.load_card(raw) if raw else None

    def put_card(self, key: CardKey, card: Card, ttl_seconds: int | None = None) -> None:
        ttl = ttl_seconds or CARD_TTL
        self._call(lambda: self._redis.set(card_key(key), codec.dump_card(card), ex=ttl), None)

    def try_lock(self, name: str, ttl_seconds: float) -> str | None:
        token = uuid.uuid4().hex
        # When Redis is down every caller gets the lease: work may be done twice, never not at all.
        acquired = self._call(
            lambda: bool(self._redis.set(lease_key(name), token, nx=True, px=int(ttl_seconds * 1000))), True
        )
        return token if acquired else None

    def release(self, name: str, token: str) -> None:
        self._call(lambda: self._release(keys=[lease_key(name)], args=[token]), None)

    def lock_held(self, name: str) -> bool:
        return bool(self._call(lambda: self._redis.exists(lease_key(name)), 0))
