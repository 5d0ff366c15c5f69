"""Shared fixtures: a clean environment for every test and a real redis-server on loopback."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from devkit.redis_cluster import RedisCluster
from devkit.redis_server import RedisServer
from hypothesis import settings

from bot.ops import telemetry

# deadline per example failed them on a loaded machine (a 335 ms example). Speed is the
# benchmark's business (docs/benchmarks.md).
settings.register_profile("prdigest", deadline=None)
settings.load_profile("prdigest")

# Variables that would let a developer's real credentials or services leak into a test.
PRODUCT_ENV = (
    "GITHUB_TOKEN",
    "GITHUB_API_URL",
    "GITHUB_APP_ID",
    "GITHUB_APP_PRIVATE_KEY",
    "GITHUB_APP_PRIVATE_KEY_FILE",
    "GITHUB_WEBHOOK_SECRET",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "OPENAI_ORG_ID",
    "OPENAI_PROJECT_ID",
    "PRDIGEST_MODEL",
    "PRDIGEST_CONFIG",
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "SLACK_API_URL",
    "REDIS_URL",
    "QUEUE_URL",
    "SLACK_CLIENT_ID",
    "SLACK_CLIENT_SECRET",
    "SLACK_SCOPES",
    "SLACK_USER_SCOPES",
    "SLACK_REDIRECT_URI",
    "SLACK_INSTALL_PATH",
    "SLACK_REDIRECT_URI_PATH",
    "PRDIGEST_SECRET_KEY",
)


@pytest.fixture(autouse=True)
def no_metrics_sink_left() -> Iterator[None]:
    """A metrics sink reads the parts of the process that installed it (its GitHub client, its
    queue): one left installed would have a later test's counts reach into closed clients."""
    yield
    left = telemetry.active()
    telemetry.install(None)
    assert not left, "a metrics sink was left installed: install it with telemetry.installed()"


@pytest.fixture(autouse=True)
def redis_clients_closed(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every redis-py client made during a test is closed when it ends. redis-py's clients sit in
    reference cycles, so one a test forgot is freed by the garbage collector, in whatever test it
    next runs, and the collector may finalize a socket before the connection that would close it:
    an "unclosed socket" failing an unrelated test one run in several. The product closes its own
    (tests/integration/test_closed_clients.py counts Redis's clients after a process closes);
    this is for the many raw clients tests make to look at keys."""
    made: list[redis.Redis] = []
    original = redis.Redis.__init__

    def init(self: redis.Redis, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        made.append(self)

    monkeypatch.setattr(redis.Redis, "__init__", init)
    yield
    for client in made:
        client.close()


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in PRODUCT_ENV:
        monkeypatch.delenv(name, raising=False)
    # No config file unless a test writes one.
    monkeypatch.setenv("PRDIGEST_CONFIG", "")
    # The store in memory, as every test was written for (each run starts empty); the tests of
    # the cache file unset it. And a cache directory of the test's own, so that even a process
    # started without PRDIGEST_CACHE never writes to the developer's ~/.cache.
    monkeypatch.setenv("PRDIGEST_CACHE", "off")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """One server for the session, or the one REDIS_URL names (e.g. a CI service)."""
    external = os.environ.get("REDIS_URL")
    server = RedisServer()
    if external:
        server.url = external
        yield server
        return
    server.start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server: RedisServer) -> Iterator[str]:
    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    client.close()
    yield redis_server.url


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A private server, for tests that stop it halfway."""
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisCluster]:
    """A three-master Redis Cluster on loopback for the session (about five seconds to form)."""
    with RedisCluster() as cluster:
        yield cluster


@pytest.fixture
def cluster_url(redis_cluster: RedisCluster) -> str:
    """A node of the cluster, every master emptied first."""
    redis_cluster.flush()
    return redis_cluster.url


@pytest.fixture(params=["single", "cluster"])
def any_redis_url(request: pytest.FixtureRequest) -> str:
    """A single Redis, then a cluster's node: REDIS_URL as either deployment gives it."""
    return str(request.getfixturevalue("redis_url" if request.param == "single" else "cluster_url"))
