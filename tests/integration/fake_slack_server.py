"""One fake Slack per test module, reset before each test: for tests of the fake itself."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from devkit.fakes.slack import FakeSlack
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError


@pytest.fixture(scope="module")
def server() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:  # one server: stopping one costs ~50 ms (the base's shutdown poll)
        yield fake


@pytest.fixture
def slack(server: FakeSlack) -> Iterator[FakeSlack]:
    server.reset()
    yield server
    assert not server.errors, server.errors[0]


@pytest.fixture
def client(slack: FakeSlack) -> WebClient:
    """The real slack_sdk client, speaking to the fake."""
    return WebClient(token="xoxb-test", base_url=slack.api_url, timeout=5)


def error_of(call: Callable[..., Any]) -> str:
    """The error Slack's answer names when `call` is refused."""
    with pytest.raises(SlackApiError) as caught:
        call()
    return str(caught.value.response["error"])
