"""One set of fakes for the whole corpus: fake GitHub, model and Slack, the app served on loopback,
and the session's real Redis. Each test uses its own PR number and day, so none sees another's data."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.redis_server import RedisServer

from tests.integration.conftest import REPO
from tests.integration.slack_harness import SlackHarness, serve_harness


@pytest.fixture(scope="module")
def stack(redis_server: RedisServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlackHarness]:
    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    client.close()
    with FakeGitHub() as github, FakeOpenAI() as model:
        github.add_repo(REPO)
        with serve_harness(github, model, redis_server.url, tmp_path_factory.mktemp("adversarial")) as harness:
            yield harness
