"""Digest windows from what people type: '24h' back from now, or one calendar day in a zone."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.errors import UsageError, quoted
from bot.models import Window
from bot.settings import parse_duration

# GitHub opened in 2008: no pull request was merged before. Refusing earlier days also keeps
# the window's UTC conversion clear of datetime's year-1 edge (OverflowError).
FIRST_DAY = date(2008, 1, 1)


def window_since(now: datetime, since: str) -> Window:
    try:
        span = parse_duration(since)
    except ValueError as exc:
        raise UsageError(f"--since: {exc}") from None
    return Window(start=now - span, end=now)


def window_for_date(day: str, timezone: str, now: datetime) -> Window:
    try:
        parsed = date.fromisoformat(day)
    except ValueError:
        raise UsageError(f"--date: {quoted(day)} is not a date; use YYYY-MM-DD such as 2026-08-05") from None
    if parsed < FIRST_DAY:
        raise UsageError(f"--date: {day} is before GitHub had pull requests; use a day from 2008 on")
    zone = ZoneInfo(timezone)
    start = datetime.combine(parsed, time(0, 0), tzinfo=zone)
    if start > now:
        raise UsageError(f"--date: {day} has not started yet in {timezone}")
    return Window(start=start, end=start + timedelta(days=1))
