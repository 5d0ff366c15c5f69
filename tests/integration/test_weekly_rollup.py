"""The weekly roll-up through the real scheduler, over a replayed fortnight with two replicas on
one Redis and one Slack: a `weekly` channel gets one message each Monday and no daily digest; a
`both` channel gets its daily digests and one roll-up each Friday; each week is posted once
whichever replica ticks first, and holds the PRs of the seven days before its post time."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from devkit.clocks import WallClock
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack

from bot.slack.app import SlackParts
from bot.wiring.process import build_process
from bot.wiring.slack import slack_app, wire_slack
from tests.integration.conftest import REPO
from tests.integration.slack_harness import app_settings, harness_timing, wait_for
from tests.integration.test_reliability import good_card

WEEKLY = "C0WEEKLY01"
BOTH = "C0BOTHWK01"
START = datetime(2026, 11, 1, tzinfo=UTC)  # a Sunday
END = START + timedelta(days=14)
MERGES = [START - timedelta(days=3) + timedelta(hours=7 * n) for n in range(60)]
CONFIG = f"""[defaults]
timezone = "UTC"
post_at = "09:00"

[[channels]]
id = "{WEEKLY}"
repos = ["{REPO}"]
cadence = "weekly"
weekly_on = "Mon"

[[channels]]
id = "{BOTH}"
repos = ["{REPO}"]
cadence = "both"
weekly_on = "friday"
"""


@contextlib.contextmanager
def replica(
    slack: FakeSlack, github: FakeGitHub, model: FakeOpenAI, redis_url: str, config: Path, clock: WallClock
) -> Iterator[SlackParts]:
    services = build_process(
        app_settings(github, model, slack, redis_url, config), harness_timing(clock), warn=lambda _: None
    )
    parts = slack_app(wire_slack(services))
    try:
        yield parts
    finally:
        parts.drain()
        services.close()


@pytest.fixture
def fortnight(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[FakeSlack]:
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG, encoding="utf-8")
    model.responder = good_card
    clock = WallClock(START)
    for number, merged_at in enumerate(MERGES, start=1):
        github.add_pr(
            REPO,
            number,
            title=f"Revert a change {number}" if number == 20 else f"[Core] Change {number}",
            merged_at=merged_at,
            files=[{"path": f"vllm/core/mod_{number}.py", "additions": 10, "deletions": 1}],
        )
    with (
        FakeSlack() as slack,
        replica(slack, github, model, redis_url, config, clock) as first,
        replica(slack, github, model, redis_url, config, clock) as second,
    ):
        while clock.now < END:
            for parts in (first, second):  # both tick at every step; the lease decides who posts
                parts.scheduler.tick()
            for parts in (first, second):
                wait_for(lambda p=parts: not p.scheduler.busy, timeout=30)  # type: ignore[misc]
            clock.now += timedelta(hours=1)
        yield slack


def merged_between(start: datetime, end: datetime) -> int:
    return sum(start <= merged_at < end for merged_at in MERGES)


def test_a_replayed_fortnight_posts_each_roll_up_once_on_its_day(fortnight: FakeSlack) -> None:
    # (One replayed fortnight, asked three things: replaying it costs seconds.)
    # A weekly channel: one message each Monday, no daily digest, each the seven days before.
    posted = fortnight.messages(WEEKLY)
    assert [message["text"].split(":")[0] for message in posted] == [
        f"{REPO} · the week of 2026-10-26 to 2026-11-02",
        f"{REPO} · the week of 2026-11-02 to 2026-11-09",
    ]
    mondays = (datetime(2026, 11, 2, 9, tzinfo=UTC), datetime(2026, 11, 9, 9, tzinfo=UTC))
    for message, monday in zip(posted, mondays, strict=True):
        merged = int(re.search(r"(\d+) merged", message["text"]).group(1))  # type: ignore[union-attr]
        assert merged == merged_between(monday - timedelta(days=7), monday)
        assert fortnight.thread(WEEKLY, message["ts"]) == []  # one message: no thread of cards

    # Both: the daily digests, once each, and a roll-up each Friday.
    titles = [message["text"] for message in fortnight.messages(BOTH)]
    weekly = [title for title in titles if "the week of" in title]
    assert len(weekly) == 2 and "2026-11-06" in weekly[0] and "2026-11-13" in weekly[1]
    assert len(titles) - len(weekly) == 14

    # The week of PR 20, a revert (merged on Nov 3), says so; the week before does not.
    first, second = posted
    assert "Reverted this week" not in str(first["blocks"])
    assert "Reverted this week" in str(second["blocks"]) and "#20" in str(second["blocks"])
