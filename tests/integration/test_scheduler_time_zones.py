"""The scheduler posts each channel's digest at post_at of the channel's own time zone: in a zone
behind UTC, near local midnight, and across both daylight-saving changes, once per local day,
with windows that meet, so no PR falls between two digests or lands in two.

The real scheduler of a served app ticks against an injected clock (every few minutes, as its
30-second tick would), and a PR appears on the fake GitHub only once its merge time has come.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from devkit.clocks import WallClock
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from tests.integration.conftest import REPO
from tests.integration.slack_harness import DIGEST_CHANNEL, SlackHarness, serve_harness, wait_for
from tests.integration.test_reliability import good_card

ZONE = "America/Los_Angeles"  # UTC-8 in winter, UTC-7 in summer


@dataclass
class Run:
    """What a run of ticks posted: each local day's digest, when it went out and which PRs it holds."""

    harness: SlackHarness
    clock: WallClock
    posted_at: dict[str, datetime] = field(default_factory=dict)

    def numbers(self, day: str) -> list[int]:
        lead = self.harness.ledger.entries(DIGEST_CHANNEL, day)["part:0"]
        text = " ".join(message["text"] for message in self.harness.slack.thread(DIGEST_CHANNEL, lead))
        return sorted(int(number) for number in re.findall(r"#(\d+)\b", text))


@pytest.fixture
def clock() -> WallClock:
    return WallClock(datetime(2026, 1, 1, tzinfo=UTC))


@contextlib.contextmanager
def served(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path, clock: WallClock, post_at: str
) -> Iterator[SlackHarness]:
    config = f'[defaults]\ntimezone = "{ZONE}"\npost_at = "{post_at}"\n\n'
    config += f'[[channels]]\nid = "{DIGEST_CHANNEL}"\nrepos = ["{REPO}"]\n'
    model.responder = good_card
    with serve_harness(github, model, redis_url, tmp_path, config_text=config, now=clock) as harness:
        yield harness


def tick_through(
    harness: SlackHarness, clock: WallClock, start: datetime, end: datetime, step: timedelta, merges: Sequence[datetime]
) -> Run:
    """Tick from `start` to `end`; PR number i merges at merges[i - 1] (on GitHub from then on)."""
    run = Run(harness, clock)
    waiting = sorted(enumerate(merges, start=1), key=lambda pair: pair[1])
    clock.now = start
    while clock.now <= end:
        while waiting and waiting[0][1] <= clock.now:
            number, merged_at = waiting.pop(0)
            harness.github.add_pr(
                REPO,
                number,
                title=f"Change number {number}",
                merged_at=merged_at,
                files=[{"path": f"vllm/mod_{number}.py", "additions": 50, "deletions": 3}],
            )
        leads = len(harness.slack.messages(DIGEST_CHANNEL))
        harness.parts.scheduler.tick()
        wait_for(lambda: not harness.parts.scheduler.busy, timeout=30)
        if len(harness.slack.messages(DIGEST_CHANNEL)) > leads:
            (day,) = [day for day in days_done(harness, clock.now) if day not in run.posted_at]
            run.posted_at[day] = clock.now
        clock.now += step
    return run


def days_done(harness: SlackHarness, moment: datetime) -> list[str]:
    """The days around `moment` (any zone's) whose digest the ledger says is done."""
    days = [(moment + timedelta(days=offset)).date().isoformat() for offset in (-1, 0, 1)]
    return [day for day in days if "done" in harness.ledger.entries(DIGEST_CHANNEL, day)]


def each_in_one_digest(run: Run, merges: Sequence[datetime], days: Sequence[str]) -> None:
    """Every PR merged before the last digest of `days` is in exactly one of them."""
    shown = [number for day in days for number in run.numbers(day)]
    last = max(run.posted_at[day] for day in days)
    expected = [number for number, merged_at in enumerate(merges, start=1) if merged_at < last]
    assert sorted(shown) == expected


def utc(month: int, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=UTC)


def test_in_a_zone_behind_utc_the_digest_waits_for_the_channels_morning(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path, clock: WallClock
) -> None:
    # 09:00 in Los Angeles in August is 16:00 UTC: from 09:00 UTC to 15:59 UTC it is still night there.
    merges = [utc(8, 4, 15, 30), utc(8, 4, 16, 30), utc(8, 5, 15, 50), utc(8, 5, 16, 30)]
    with served(github, model, redis_url, tmp_path, clock, "09:00") as harness:
        run = tick_through(harness, clock, utc(8, 5, 7, 10), utc(8, 6, 7, 0), timedelta(minutes=10), merges)
        assert run.posted_at == {"2026-08-05": utc(8, 5, 16, 0)}
        # Its window is the day before 09:00 Los Angeles time: 16:00 UTC to 16:00 UTC.
        assert run.numbers("2026-08-05") == [2, 3]


def test_near_local_midnight_the_digest_is_the_local_days_not_the_utc_days(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path, clock: WallClock
) -> None:
    # 23:30 in Los Angeles is 06:30 UTC of the next day: the digest is still the local day's.
    merges = [utc(8, 4, 6, 45), utc(8, 5, 6, 15), utc(8, 5, 6, 45), utc(8, 5, 23, 55), utc(8, 6, 6, 15)]
    with served(github, model, redis_url, tmp_path, clock, "23:30") as harness:
        run = tick_through(harness, clock, utc(8, 5, 6, 0), utc(8, 6, 8, 0), timedelta(minutes=10), merges)
        assert run.posted_at == {"2026-08-04": utc(8, 5, 6, 30), "2026-08-05": utc(8, 6, 6, 30)}
        assert (run.numbers("2026-08-04"), run.numbers("2026-08-05")) == ([1, 2], [3, 4, 5])


def test_a_post_time_the_spring_forward_skips_posts_that_day_once_and_loses_no_pr(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path, clock: WallClock
) -> None:
    # 2026-03-08 in Los Angeles: 02:00 PST becomes 03:00 PDT (10:00 UTC); 02:30 never shows.
    merges = [
        utc(3, 7, 9, 0),
        utc(3, 8, 9, 45),  # 01:45 PST, before the jump
        utc(3, 8, 10, 5),  # 03:05 PDT, just after it
        utc(3, 8, 10, 15),
        utc(3, 8, 10, 25),
        utc(3, 8, 10, 45),
        utc(3, 9, 9, 0),  # 02:00 PDT the next day, before its 02:30
    ]
    with served(github, model, redis_url, tmp_path, clock, "02:30") as harness:
        run = tick_through(harness, clock, utc(3, 7, 10, 0), utc(3, 9, 10, 0), timedelta(minutes=5), merges)
        assert sorted(run.posted_at) == ["2026-03-07", "2026-03-08", "2026-03-09"]
        assert run.posted_at["2026-03-07"] == utc(3, 7, 10, 30)  # 02:30 PST
        assert utc(3, 8, 10, 0) <= run.posted_at["2026-03-08"] <= utc(3, 8, 11, 0)  # after the jump
        assert run.posted_at["2026-03-09"] == utc(3, 9, 9, 30)  # 02:30 PDT
        each_in_one_digest(run, merges, ["2026-03-07", "2026-03-08", "2026-03-09"])


def test_a_post_time_the_fall_back_repeats_posts_once_and_loses_no_pr(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path, clock: WallClock
) -> None:
    # 2026-11-01 in Los Angeles: 02:00 PDT becomes 01:00 PST (09:00 UTC); 01:30 comes twice.
    merges = [
        utc(10, 31, 7, 0),
        utc(10, 31, 9, 0),
        utc(11, 1, 8, 0),  # 01:00 PDT
        utc(11, 1, 8, 45),  # 01:45 PDT, after the first 01:30
        utc(11, 1, 9, 15),  # 01:15 PST, the hour again
        utc(11, 1, 9, 45),  # 01:45 PST
        utc(11, 2, 9, 0),  # 01:00 PST the next day, before its 01:30
    ]
    with served(github, model, redis_url, tmp_path, clock, "01:30") as harness:
        run = tick_through(harness, clock, utc(10, 31, 8, 0), utc(11, 2, 10, 0), timedelta(minutes=10), merges)
        assert run.posted_at == {
            "2026-10-31": utc(10, 31, 8, 30),  # 01:30 PDT
            "2026-11-01": utc(11, 1, 8, 30),  # the first 01:30, and not again at the second
            "2026-11-02": utc(11, 2, 9, 30),  # 01:30 PST
        }
        assert len(harness.slack.messages(DIGEST_CHANNEL)) == 3
        each_in_one_digest(run, merges, ["2026-10-31", "2026-11-01", "2026-11-02"])
