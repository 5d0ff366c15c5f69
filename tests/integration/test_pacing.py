"""Posting waits its turn: about one message a second per channel (Slack's chat.postMessage limit)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.slack import FakeSlack

from bot.store.backends.memory import MemoryKV
from bot.wiring.process import build_process
from bot.wiring.slack import wire_slack
from bot.wiring.timing import Timing
from tests.integration.conftest import REPO, ServicesFactory, day, settings_for
from tests.integration.test_digest import WINDOW


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


def test_each_message_after_the_first_waits_for_the_channels_pace(
    github: FakeGitHub, slack: FakeSlack, make_services: ServicesFactory
) -> None:
    for number in range(1, 41):
        github.add_pr(
            REPO,
            number,
            title=f"Change {number}",
            merged_at=day(number * 0.5),
            files=[{"path": f"vllm/m{number}.py", "additions": 60, "deletions": 2}],
        )
    digest = make_services(settings_for(github)).digests.build((REPO,), WINDOW)
    waits: list[float] = []
    # A clock that stands still: every post comes right after the previous one.
    timing = Timing(pace=1.0, sleep=waits.append, monotonic=lambda: 100.0)
    settings = settings_for(github, SLACK_BOT_TOKEN=slack.bot_token, SLACK_API_URL=slack.api_url)
    with contextlib.closing(build_process(settings, timing, kv=MemoryKV())) as process:
        result = wire_slack(process).tenants.home.publisher.publish("C0PACE0001", "2026-08-05", digest)
    posted = len(slack.calls("chat.postMessage"))
    assert result.posted == posted >= 3
    assert waits == [1.0] * (posted - 1)
