"""Shared fixtures: a clean environment for every test and a real redis-server on loopback."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

# Variables that would let a developer's real credentials or services leak into a test.
PRODUCT_ENV = (
    "GITHUB_TOKEN",
    "GITHUB_API_URL",
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
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in PRODUCT_ENV:
        monkeypatch.delenv(name, raising=False)
    # No config file unless a test writes one.
    monkeypatch.setenv("PRDIGEST_CONFIG", "")
    monkeypatch.chdir(tmp_path)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RedisServer:
    """A redis-server process on loopback that a test may stop and start again."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.fail("redis-server is not installed: run the tests through `make check`, which installs it")
        self._process = subprocess.Popen(
            [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port)
        try:
            for _ in range(200):
                try:
                    client.ping()
                    return
                except redis.ConnectionError:
                    time.sleep(0.02)
        finally:
            client.close()
        pytest.fail("redis-server did not start")

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=10)
            self._process = None


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
