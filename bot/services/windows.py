"""Digest windows from what people type: '24h' back from now, or one calendar day in a zone."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.errors import UsageError, quoted
from bot.models import Window
from bot.settings import DURATION_PATTERN, parse_duration

# GitHub opened in 2008: no pull request was merged before. Refusing earlier days also keeps
# the window's UTC conversion clear of datetime's year-1 edge (OverflowError).
FIRST_DAY = date(2008, 1, 1)


def window_since(now: datetime, since: str) -> Window:
    try:
        span = parse_duration(since)
    except ValueError:
        # parse_duration refuses what is not a duration (0h included), and well-formed ones over its maximum.
        match = DURATION_PATTERN.fullmatch(since.strip())
        kind = "error.since_too_long" if match and int(match[1]) > 0 else "error.since_not_duration"
        raise UsageError(kind, text=quoted(since)) from None
    return Window(start=now - span, end=now)


def window_for_date(day: str, timezone: str, now: datetime) -> Window:
    try:
        parsed = date.fromisoformat(day)
    except ValueError:
        raise UsageError("error.date_not_date", text=quoted(day)) from None
    if parsed < FIRST_DAY:
        raise UsageError("error.date_too_early", day=day)
    zone = ZoneInfo(timezone)
    start = datetime.combine(parsed, time(0, 0), tzinfo=zone)
    if start > now:
        raise UsageError("error.date_not_started", day=day, zone=timezone)
    return Window(start=start, end=start + timedelta(days=1))
