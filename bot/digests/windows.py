"""Digest windows from what people type: '24h' back from now, or one calendar day in a zone.

`--since` takes the durations the config's `window` takes, read by the same parser.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.core.strings.parsing import DURATION_PATTERN, parse_duration
from bot.errors import UsageError, quoted
from bot.models import Window

# GitHub opened in 2008: no pull request was merged before. Refusing earlier days also keeps
# the window's UTC conversion clear of datetime's year-1 edge (OverflowError).
FIRST_DAY = date(2008, 1, 1)


def parse_since(text: str) -> timedelta:
    """`--since 90m`: a duration back from now."""
    try:
        return parse_duration(text)
    except ValueError:
        # parse_duration refuses what is not a duration (0h included), and well-formed ones over its maximum.
        match = DURATION_PATTERN.fullmatch(text.strip())
        kind = "error.since_too_long" if match and int(match[1]) > 0 else "error.since_not_duration"
        raise UsageError(kind, text=quoted(text)) from None


def parse_date(text: str) -> date:
    """`--date 2026-08-05`: one calendar day, from GitHub's first year on."""
    try:
        parsed = date.fromisoformat(text)
    except ValueError:
        raise UsageError("error.date_not_date", text=quoted(text)) from None
    if parsed < FIRST_DAY:
        raise UsageError("error.date_too_early", day=text)
    return parsed


def window_since(now: datetime, span: timedelta) -> Window:
    return Window(start=now - span, end=now)


def window_for_date(day: date, zone: ZoneInfo, now: datetime) -> Window:
    start = datetime.combine(day, time(0, 0), tzinfo=zone)
    if start > now:
        raise UsageError("error.date_not_started", day=day.isoformat(), zone=zone.key)
    return Window(start=start, end=start + timedelta(days=1))
