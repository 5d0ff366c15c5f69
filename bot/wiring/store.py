"""The store a process keeps its state in: Redis when REDIS_URL names one, else one SQLite file
on this host, else memory; said once on stderr when it is not Redis.

Only the choice lives here; each store is its own module (store/backends/redis_store.py, reached through
store/backends/connect.py so that redis-py is imported only with REDIS_URL; sqlite_kv.py,
memory.py). A file PRDIGEST_CACHE names must open (one line and a non-zero exit if not: the user
asked for it). The default file falls back to memory with one line saying why, so a read-only home
directory (a container) still gives a digest, only one that is not kept.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.errors import ConfigError
from bot.settings import Settings
from bot.store.backends.connect import redis_kv
from bot.store.backends.memory import MemoryKV
from bot.store.backends.sqlite_kv import SqliteKV
from bot.store.kv import KV

log = logging.getLogger(__name__)

CLUSTER_QUEUE_NOTE = (
    "REDIS_URL is a Redis Cluster and QUEUE_URL is not set: cards are made in each process "
    "(the card queue needs a single Redis; docs/deployment.md)"
)

MEMORY_STORE_NOTE = "the store is in memory (PRDIGEST_CACHE=off, or --no-cache): nothing is kept after this run."


def file_store_note(where: str) -> str:
    return f"REDIS_URL is not set: the cache is kept in {where} (PRDIGEST_CACHE names another file, or off)."


def fallback_note(problem: str) -> str:
    return (
        f"{problem}: the store is in memory, nothing is kept after this run "
        "(PRDIGEST_CACHE names another file, or off)."
    )


@dataclass(frozen=True)
class Chosen:
    kv: KV
    close: Callable[[], None] | None  # None: nothing to close (memory)
    queue_url: str | None = None  # the card queue's Redis (None: cards are made in each process)


def choose_store(settings: Settings, warn: Callable[[str], None], usual: Callable[[str], None] | None = None) -> Chosen:
    """The store, and a line saying which when it is not Redis: to `warn`, or for the cache file
    as it is meant to be (nothing wrong) to `usual` when given (the CLI says that once a machine)."""
    if settings.redis_url:
        redis = redis_kv(settings.redis_url)
        return Chosen(redis, redis.close, _queue_url(settings, settings.redis_url, redis.clustered_now))
    if settings.cache is None:
        warn(MEMORY_STORE_NOTE)
        return Chosen(MemoryKV(), None)
    try:
        embedded = SqliteKV.open(settings.cache, own_directory=not settings.cache_named)
    except ConfigError as exc:
        if settings.cache_named:
            raise
        warn(fallback_note(str(exc)))
        return Chosen(MemoryKV(), None)
    (usual or warn)(file_store_note(str(settings.cache)))
    return Chosen(embedded, embedded.close)


def without_cache(settings: Settings) -> Settings:
    """`--no-cache`: this run keeps its state in memory only (no Redis, no file, no queue)."""
    return replace(settings, redis_url=None, cache=None, cache_named=True)


def _queue_url(settings: Settings, redis_url: str, clustered: Callable[[], bool | None]) -> str | None:
    """QUEUE_URL; else REDIS_URL's, unless that is a cluster (asked of it now): Dramatiq's Redis
    broker runs scripts over keys no hash tag joins, which only a single node serves."""
    if settings.queue_url is not None:
        return settings.queue_url
    if clustered():
        log.warning(CLUSTER_QUEUE_NOTE)
        return None
    return redis_url
