"""The days of a question across days, as merge times and limits (pure): the window a span
covers in the asker's zone, why a span cannot be answered, and the span of a revert question.

Which days a question names is read by questions/dates.py, the rest of it by questions/reading.py.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from bot.digests import FIRST_DAY
from bot.models import Span, Window

# A span longer than this is refused: the stored snapshots and cards last 30 days
# (store/repos/cards.py SNAPSHOT_TTL), and a month of a busy repository is already a few hundred PRs.
MAX_SPAN_DAYS = 31
# "Did anything revert #N?" without a span looks this far back: reverts come within days.
REVERT_DAYS = 14
# A question that names no days ("anything on XPU?") is about the last week.
DEFAULT_DAYS = 7
# Windows are cut at this step, so that questions asked within a few minutes share one cached
# list of merged PRs (store/repos/cards.py MERGED_TTL is ten minutes).
WINDOW_STEP = timedelta(minutes=10)


def span_window(span: Span, zone: ZoneInfo, now: datetime) -> Window:
    """The merge times `span` covers, in `zone`: from its first day's midnight to the end of its
    last day, or to now (cut at WINDOW_STEP, so nearby questions share a cached list)."""
    start = datetime.combine(span.start, time(0, 0), tzinfo=zone)
    if span.end is not None:
        return Window(start, datetime.combine(span.end, time(0, 0), tzinfo=zone))
    return Window(start, _step_up(now))


def _step_up(moment: datetime) -> datetime:
    step = int(WINDOW_STEP.total_seconds())
    seconds = int(moment.timestamp())
    return datetime.fromtimestamp(-(-seconds // step) * step, tz=moment.tzinfo)


def span_problem(span: Span, today: date) -> Literal["not_a_date", "too_long", "future"] | None:
    """Why a span cannot be answered ("not_a_date", "too_long", "future"), or None.

    Its length is capped (MAX_SPAN_DAYS), not how far back it starts: "on 2026-08-04" is one day,
    answered months later as far as GitHub keeps the PRs."""
    if span.unreadable:
        return "not_a_date"
    if span.start > today:
        return "future"
    last = min(span.end - timedelta(days=1), today) if span.end is not None else today
    if span.start < FIRST_DAY or (last - span.start).days + 1 > MAX_SPAN_DAYS:
        return "too_long"
    return None


def recent_span(today: date) -> Span:
    """The days a question that names none is about ("anything on XPU?", "PRs by nhill")."""
    return Span("days", today - timedelta(days=DEFAULT_DAYS - 1), days=DEFAULT_DAYS)


def revert_span(today: date) -> Span:
    return Span("days", today - timedelta(days=REVERT_DAYS - 1), days=REVERT_DAYS)
