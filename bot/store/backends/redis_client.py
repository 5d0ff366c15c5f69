"""REDIS_URL's client: a single Redis, or redis-py's RedisCluster when the URL names a cluster's node.

Nothing else is set to say which: the first call that reaches Redis reads `INFO cluster`, and
`cluster_enabled:1` picks the cluster client, which learns the other nodes and their slots from
that one and follows them as slots move. Until Redis answers, nothing is chosen, so a process
that starts while Redis is down works without the cache and picks correctly once it is back.
"""

from __future__ import annotations

import logging
import threading
from urllib.parse import urlsplit

import redis
import redis.cluster
from redis.cluster import RedisCluster
from redis.commands.core import Script
from redis.exceptions import RedisClusterException

from bot.errors import ConfigError

log = logging.getLogger(__name__)

Client = redis.Redis | RedisCluster

# Short timeouts: a cache that answers slowly is worse than none.
_OPTIONS: dict[str, float] = {"socket_timeout": 2.0, "socket_connect_timeout": 2.0, "health_check_interval": 30}


class RedisConnection:
    """The client for one URL, chosen at the first call that reaches Redis, and its scripts."""

    def __init__(self, url: str) -> None:
        try:
            # Read now, so an option redis-py cannot read is said at start, not at the first call.
            redis.connection.parse_url(url)  # type: ignore[no-untyped-call]
        except ValueError as exc:
            # Not the URL itself in the message: it may hold a password.
            raise ConfigError(f"REDIS_URL has an option redis-py cannot read ({exc})") from exc
        self._url = url
        self._lock = threading.Lock()
        self._client: Client | None = None
        self._scripts: dict[str, Script] = {}
        self._closed = False

    @property
    def clustered(self) -> bool | None:
        """Whether the URL is a cluster's node; None until Redis has been reached."""
        client = self._client
        return None if client is None else isinstance(client, RedisCluster)

    def client(self) -> Client:
        """The client; redis-py's ConnectionError while Redis cannot be reached (asked again next call)."""
        with self._lock:
            if self._client is None:
                if self._closed:
                    raise redis.ConnectionError("the store is closed")
                self._client = _connect(self._url)
            return self._client

    def script(self, source: str) -> Script:
        """A Lua script registered with the client (its SHA is loaded on each node at first use)."""
        client = self.client()
        with self._lock:
            script = self._scripts.get(source)
            if script is None:
                script = self._scripts[source] = client.register_script(source)
            return script

    def close(self) -> None:
        with self._lock:
            self._closed = True
            client, self._client = self._client, None
        if client is not None:
            client.close()


def _connect(url: str) -> Client:
    single = redis.Redis.from_url(url, **_OPTIONS)
    try:
        enabled = _cluster_enabled(single)
    except BaseException:
        single.close()
        raise
    if not enabled:
        return single
    single.close()
    if redis.connection.parse_url(url).get("db", 0) not in (0, None):  # type: ignore[no-untyped-call]
        raise ConfigError("REDIS_URL names a database other than 0, and a Redis Cluster has only database 0")
    try:
        cluster = redis.cluster.RedisCluster.from_url(url, **_OPTIONS)
    except RedisClusterException as exc:  # no node of the cluster answered while it was being read
        raise redis.ConnectionError(type(exc).__name__) from exc
    log.info("REDIS_URL is a node of a Redis Cluster (%s): %d masters", _host(url), len(cluster.get_primaries()))  # type: ignore[no-untyped-call]
    return cluster


def _cluster_enabled(client: redis.Redis) -> bool:
    try:
        info = client.info("cluster")
    except redis.ResponseError as exc:
        # A cluster's node refuses SELECT of any database but 0 ("SELECT is not allowed in
        # cluster mode"); otherwise INFO is renamed or refused (some hosted Redis): a single node.
        return "cluster mode" in str(exc)
    return str(info.get("cluster_enabled", 0)) == "1"


def _host(url: str) -> str:
    """The host and port, without the password a URL may carry."""
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port or 6379}"
