"""Which day a channel's scheduled digest is for, and the window it covers (digests/posting.py
`scheduled_window`): the day of the channel's own zone, not UTC's, at the hours when the two
dates differ, ahead of UTC and behind it, on whole and half-hour offsets."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.channels.directory import ChannelPlan
from bot.digests.posting import scheduled_window
from bot.models import Filters


def plan(zone: str, post_at: time = time(9, 0), window: timedelta = timedelta(hours=24)) -> ChannelPlan:
    return ChannelPlan("C0ZONES001", ("a/b",), "en", ZoneInfo(zone), post_at, window, "note", Filters())


def utc(day: int, hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 8, day, hour, minute, tzinfo=UTC)


@pytest.mark.parametrize(
    ("zone", "now", "day", "end"),
    [
        # UTC+8: 20:00 UTC on the 5th is 04:00 on the 6th in Shanghai; the 6th's 09:00 is 01:00 UTC.
        ("Asia/Shanghai", utc(5, 20), "2026-08-06", utc(6, 1)),
        # UTC+5:30: 18:45 UTC on the 5th is 00:15 on the 6th in Kolkata; 09:00 there is 03:30 UTC.
        ("Asia/Kolkata", utc(5, 18, 45), "2026-08-06", utc(6, 3, 30)),
        # UTC+12 (NZST in August): 13:00 UTC on the 5th is 01:00 on the 6th; 09:00 is 21:00 UTC the 5th.
        ("Pacific/Auckland", utc(5, 13), "2026-08-06", utc(5, 21)),
        # UTC-10: 05:00 UTC on the 6th is 19:00 on the 5th in Honolulu; 09:00 there is 19:00 UTC.
        ("Pacific/Honolulu", utc(6, 5), "2026-08-05", utc(5, 19)),
    ],
)
def test_the_day_is_the_channels_own_where_utc_is_on_another(zone: str, now: datetime, day: str, end: datetime) -> None:
    assert now.date().isoformat() != day  # the case: UTC's date is not the channel's
    window, scheduled = scheduled_window(plan(zone), now)
    assert scheduled == day
    assert window.end.astimezone(UTC) == end
    assert window.start.astimezone(UTC) == end - timedelta(hours=24)


def test_one_moment_is_a_different_day_on_each_side_of_utc() -> None:
    moment = utc(5, 20)  # 04:00 on the 6th in Shanghai, 10:00 on the 5th in Honolulu
    days = {zone: scheduled_window(plan(zone), moment)[1] for zone in ("Asia/Shanghai", "UTC", "Pacific/Honolulu")}
    assert days == {"Asia/Shanghai": "2026-08-06", "UTC": "2026-08-05", "Pacific/Honolulu": "2026-08-05"}


def test_the_window_ends_at_post_at_on_the_channels_clock() -> None:
    window, _ = scheduled_window(plan("Asia/Shanghai", post_at=time(7, 30), window=timedelta(hours=12)), utc(5, 20))
    local_end = window.end.astimezone(ZoneInfo("Asia/Shanghai"))
    assert (local_end.date().isoformat(), local_end.time()) == ("2026-08-06", time(7, 30))
    assert window.end - window.start == timedelta(hours=12)
