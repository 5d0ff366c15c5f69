"""One fake Slack per test module, reset before each test: for tests of the fake itself."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from devkit.fakes.slack import FakeSlack


@pytest.fixture(scope="module")
def server() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:  # one server: stopping one costs ~50 ms (the base's shutdown poll)
        yield fake


@pytest.fixture
def slack(server: FakeSlack) -> Iterator[FakeSlack]:
    server.reset()
    yield server
    assert not server.errors, server.errors[0]
