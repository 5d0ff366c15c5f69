"""The parsers of what people write in the config file, the settings form and the CLI: durations
('24h'), times of day ('09:30'), IANA zones and repositories (owner/name), each into its type once.

Pure functions of text: no environment, no file, no vendor. bot/settings.py, the config file's
models (core/config.py) and the services that read what people type all use these.
"""

from __future__ import annotations

from datetime import time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.core.strings.patterns import lazy
from bot.errors import quoted

REPO_PATTERN = lazy(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")  # for fullmatch: `$` allows a final newline
DURATION_PATTERN = lazy(r"([0-9]{1,9})([mhd])")
TIME_OF_DAY_PATTERN = lazy(r"([01][0-9]|2[0-3]):([0-5][0-9])")
# A digest looks back a year at most: longer spans are typos (365d for 36.5d), and a few
# thousand years would overflow datetime (OverflowError, not a message).
MAX_DURATION = timedelta(days=365)


def parse_duration(text: str) -> timedelta:
    """'90m', '24h', '7d' -> timedelta. Raises ValueError with a message a person can act on."""
    match = DURATION_PATTERN.fullmatch(text.strip())
    if not match or int(match.group(1)) == 0:
        raise ValueError(f"{quoted(text)} is not a duration; use minutes, hours or days such as 90m, 24h or 7d")
    amount, unit = int(match.group(1)), match.group(2)
    span = {"m": timedelta(minutes=amount), "h": timedelta(hours=amount), "d": timedelta(days=amount)}[unit]
    if span > MAX_DURATION:
        raise ValueError(f"{quoted(text)} is longer than a year; use at most 365d")
    return span


def duration_text(span: timedelta) -> str:
    """A duration as the config spells one ('24h', '7d', '90m'): parse_duration reads it back."""
    minutes = int(span.total_seconds()) // 60
    if minutes % (24 * 60) == 0 and minutes > 24 * 60:
        return f"{minutes // (24 * 60)}d"
    if minutes % 60 == 0:
        return f"{minutes // 60}h"
    return f"{minutes}m"


def parse_time_of_day(text: str) -> time:
    """'09:30' -> time(9, 30): HH:MM in ASCII digits. Raises ValueError like parse_duration."""
    match = TIME_OF_DAY_PATTERN.fullmatch(text)
    if not match:
        raise ValueError(f"{quoted(text)} is not a time of day; use HH:MM such as 09:30")
    return time(int(match.group(1)), int(match.group(2)))


# Monday is 0, as date.weekday() counts; English names and their three-letter forms, any case.
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def parse_weekday(text: str) -> int:
    """'Mon' or 'monday' -> 0 … 'Sun' -> 6. Raises ValueError like parse_duration."""
    said = text.strip().lower()
    for index, (short, name) in enumerate(zip(WEEKDAYS, _WEEKDAY_NAMES, strict=True)):
        if said in (short, name):
            return index
    raise ValueError(f"{quoted(text)} is not a weekday; use Mon, Tue, Wed, Thu, Fri, Sat or Sun")


def parse_timezone(text: str) -> ZoneInfo:
    """An IANA name such as 'Asia/Shanghai' -> ZoneInfo. Raises ValueError like parse_duration."""
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        # OSError: ZoneInfo opens the name as a file, so "America" is IsADirectoryError and a
        # 300-character name is "File name too long".
        raise ValueError(f"unknown time zone {quoted(text)} (use an IANA name such as Europe/Paris)") from None
