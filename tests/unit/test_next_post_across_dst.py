"""When `/pr digest` says the next digest goes out (digests/posting.py `next_post`), across both
daylight-saving changes of a zone behind UTC: the moment the scheduler will post, never one past."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.channels.directory import ChannelPlan
from bot.digests.posting import next_post, scheduled_window
from bot.models import Filters

LOS_ANGELES = ZoneInfo("America/Los_Angeles")


def plan(post_at: time) -> ChannelPlan:
    return ChannelPlan("C0DIGEST01", ("a/b",), "en", LOS_ANGELES, post_at, timedelta(hours=24), "note", Filters())


def utc(month: int, day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, month, day, hour, minute, tzinfo=UTC)


@pytest.mark.parametrize(
    ("post_at", "now", "expected"),
    [
        # 2026-11-01: 02:00 PDT becomes 01:00 PST (09:00 UTC). The 01:30 of the first pass (08:30
        # UTC) has posted; at 01:15 PST the next is tomorrow's, not the one an hour ago.
        (time(1, 30), utc(11, 1, 8, 15), utc(11, 1, 8, 30)),
        (time(1, 30), utc(11, 1, 9, 15), utc(11, 2, 9, 30)),
        # 2026-03-08: 02:00 PST becomes 03:00 PDT (10:00 UTC); 02:30 PST is 03:30 PDT, today.
        (time(2, 30), utc(3, 8, 10, 10), utc(3, 8, 10, 30)),
        (time(2, 30), utc(3, 8, 10, 30), utc(3, 9, 9, 30)),
        # Near local midnight, a zone behind UTC: 23:30 on the 5th is 06:30 UTC on the 6th.
        (time(23, 30), utc(8, 6, 6, 0), utc(8, 6, 6, 30)),
        (time(23, 30), utc(8, 6, 6, 30), utc(8, 7, 6, 30)),
    ],
)
def test_the_next_post_is_the_moment_the_scheduler_posts(post_at: time, now: datetime, expected: datetime) -> None:
    # In UTC: a time a fall back repeats never equals a moment of another zone (PEP 495).
    assert next_post(plan(post_at), now).astimezone(UTC) == expected


@pytest.mark.parametrize("post_at", [time(1, 30), time(2, 30), time(23, 30)])
@pytest.mark.parametrize("first", [datetime(2026, 3, 6), datetime(2026, 10, 30)])
def test_each_days_window_starts_where_the_day_befores_ended(post_at: time, first: datetime) -> None:
    ends = []
    for offset in range(4):  # across the change
        local = datetime.combine((first + timedelta(days=offset)).date(), time(12, 0), LOS_ANGELES)
        window, _ = scheduled_window(plan(post_at), local.astimezone(UTC))
        ends.append((window.start.astimezone(UTC), window.end.astimezone(UTC)))
    assert all(previous[1] == following[0] for previous, following in itertools.pairwise(ends))
