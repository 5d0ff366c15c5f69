"""Digest windows from what people type: '24h' back from now, or one calendar day in a zone.

`--since` takes the durations the config's `window` takes, read by the same parser.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.errors import UsageError, quoted
from bot.models import Window
from bot.settings import parse_duration

# GitHub opened in 2008: no pull request was merged before. Refusing earlier days also keeps
# the window's UTC conversion clear of datetime's year-1 edge (OverflowError).
FIRST_DAY = date(2008, 1, 1)


def parse_since(text: str) -> timedelta:
    """`--since 90m`: a duration back from now."""
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise UsageError(f"--since: {exc}") from None


def parse_date(text: str) -> date:
    """`--date 2026-08-05`: one calendar day, from GitHub's first year on."""
    try:
        parsed = date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"--date: {quoted(text)} is not a date; use YYYY-MM-DD such as 2026-08-05") from None
    if parsed < FIRST_DAY:
        raise UsageError(f"--date: {text} is before GitHub had pull requests; use a day from 2008 on")
    return parsed


def window_since(now: datetime, span: timedelta) -> Window:
    return Window(start=now - span, end=now)


def window_for_date(day: date, zone: ZoneInfo, now: datetime) -> Window:
    start = datetime.combine(day, time(0, 0), tzinfo=zone)
    if start > now:
        raise UsageError(f"--date: {day} has not started yet in {zone.key}")
    return Window(start=start, end=start + timedelta(days=1))
