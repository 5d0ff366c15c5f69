"""The days a question names, as people write them (bot/questions/dates.py), on a clock at Friday
2026-08-14: yesterday is Thursday Aug 13, "Tuesday" is Aug 11, this week began Monday Aug 10."""

from __future__ import annotations

import time
from datetime import date

import pytest

from bot.models import DayProblem, Span
from bot.questions.dates import read_days

TODAY = date(2026, 8, 14)


def day(month: int, number: int, year: int = 2026) -> tuple[date, date]:
    """A single day's (first, end) pair."""
    first = date(year, month, number)
    return first, date.fromordinal(first.toordinal() + 1)


def days(first: tuple[int, int], last: tuple[int, int]) -> tuple[date, date]:
    """The (first, end) pair of a range of days, both named days included."""
    return date(2026, *first), date.fromordinal(date(2026, *last).toordinal() + 1)


ONE_DAY = [
    ("what merged yesterday about ROCm?", day(8, 13)),
    ("yesterday's PRs pls", day(8, 13)),
    ("昨天合并了什么", day(8, 13)),
    ("昨日的改动", day(8, 13)),
    ("what landed the day before yesterday", day(8, 12)),
    ("前天有哪些 PR", day(8, 12)),
    ("大前天呢", day(8, 11)),
    ("anything on Tuesday?", day(8, 11)),
    ("what merged last Tuesday", day(8, 11)),
    ("tuesday's xpu fixes", day(8, 11)),
    ("any PRs on tues", day(8, 11)),
    ("what about Sunday", day(8, 9)),
    ("from Sunday's digest", day(8, 9)),
    ("last Friday", day(8, 7)),
    ("周二合并了什么", day(8, 11)),
    ("上周二有哪些", day(8, 11)),
    ("星期天的 PR", day(8, 9)),
    ("礼拜三", day(8, 12)),
    ("这周一的改动", day(8, 10)),
    ("PRs on 2026-08-11", day(8, 11)),
    ("2026/08/11 changes", day(8, 11)),
    ("on Aug 11", day(8, 11)),
    ("Aug. 11", day(8, 11)),
    ("on August 11th about attention", day(8, 11)),
    ("aug 11, 2026", day(8, 11)),
    ("11 Aug", day(8, 11)),
    ("the 11th of August", day(8, 11)),
    ("11th August", day(8, 11)),
    ("8月11日有哪些 ROCm 相关的", day(8, 11)),
    ("8月11号", day(8, 11)),
    ("2026年8月11日", day(8, 11)),
    ("8/11 changes?", day(8, 11)),
    ("what merged on 8/4", day(8, 4)),
    ("what merged on Nov 29 about Kimi-K3?", day(11, 29, 2025)),
    ("11月29日", day(11, 29, 2025)),
    ("on May 2", day(5, 2)),
]

RANGES = [
    ("between Aug 10 and Aug 12", days((8, 10), (8, 12))),
    ("what merged between aug 10 and 12", days((8, 10), (8, 12))),
    ("from Aug 10 to Aug 12", days((8, 10), (8, 12))),
    ("Aug 10 to Aug 12", days((8, 10), (8, 12))),
    ("Aug 10-12", days((8, 10), (8, 12))),
    ("aug 10 – aug 12 ci changes", days((8, 10), (8, 12))),
    ("from Monday to Wednesday", days((8, 10), (8, 12))),
    ("between 2026-08-10 and 2026-08-12", days((8, 10), (8, 12))),
    ("8月10日到12日", days((8, 10), (8, 12))),
    ("从8月10日到8月12日", days((8, 10), (8, 12))),
    ("8月10日至8月12日的 XPU 改动", days((8, 10), (8, 12))),
    ("从周一到周三", days((8, 10), (8, 12))),
    ("until Aug 12", days((8, 6), (8, 12))),
    ("before Aug 12", days((8, 5), (8, 11))),
    ("直到8月12日", days((8, 6), (8, 12))),
    ("8月12日之前", days((8, 5), (8, 11))),
]

SINCE = [
    ("since Aug 10", date(2026, 8, 10)),
    ("since Monday", date(2026, 8, 10)),
    ("since last Monday", date(2026, 8, 10)),
    ("since 2026-08-04", date(2026, 8, 4)),
    ("starting from Aug 10", date(2026, 8, 10)),
    ("after Aug 10", date(2026, 8, 10)),
    ("8月10日以来", date(2026, 8, 10)),
    ("自8月10日", date(2026, 8, 10)),
    ("从8月10日开始", date(2026, 8, 10)),
    ("周一以来", date(2026, 8, 10)),
]

SPANS = [
    ("this week", Span("week", date(2026, 8, 10))),
    ("this week's PRs", Span("week", date(2026, 8, 10))),
    ("本周", Span("week", date(2026, 8, 10))),
    ("这周合并了什么", Span("week", date(2026, 8, 10))),
    ("last week", Span("last_week", date(2026, 8, 3), end=date(2026, 8, 10))),
    ("上周", Span("last_week", date(2026, 8, 3), end=date(2026, 8, 10))),
    ("上个星期", Span("last_week", date(2026, 8, 3), end=date(2026, 8, 10))),
    ("the last 3 days", Span("days", date(2026, 8, 12), days=3)),
    ("in the past 3 days", Span("days", date(2026, 8, 12), days=3)),
    ("past three days", Span("days", date(2026, 8, 12), days=3)),
    ("previous 5 days", Span("days", date(2026, 8, 10), days=5)),
    ("the last couple of days", Span("days", date(2026, 8, 13), days=2)),
    ("the past few days", Span("days", date(2026, 8, 12), days=3)),
    ("last 2 weeks", Span("days", date(2026, 8, 1), days=14)),
    ("the past week", Span("days", date(2026, 8, 8), days=7)),
    ("最近3天", Span("days", date(2026, 8, 12), days=3)),
    ("最近 3 天", Span("days", date(2026, 8, 12), days=3)),
    ("最近三天", Span("days", date(2026, 8, 12), days=3)),
    ("过去两天", Span("days", date(2026, 8, 13), days=2)),
    ("近7天", Span("days", date(2026, 8, 8), days=7)),
    ("过去两周", Span("days", date(2026, 8, 1), days=14)),
    ("this month", Span("month", date(2026, 8, 1))),
    ("本月", Span("month", date(2026, 8, 1))),
    ("last month", Span("last_month", date(2026, 7, 1), end=date(2026, 8, 1))),
    ("上个月", Span("last_month", date(2026, 7, 1), end=date(2026, 8, 1))),
    ("today", Span("today", TODAY)),
    ("on Friday", Span("today", TODAY)),
    ("今天", Span("today", TODAY)),
]

PROBLEMS = [
    ("05/06", "ambiguous"),
    ("what merged 3/4?", "ambiguous"),
    ("Aug 20", "future"),
    ("8月20日", "future"),
    ("2026-09-01", "future"),
    ("Feb 30", "not_a_date"),
    ("2026-13-45", "not_a_date"),
    ("2月30日", "not_a_date"),
    ("between Aug 12 and Aug 10", "reversed"),
    ("从8月12日到8月10日", "reversed"),
]

NO_DAYS = [
    "what does #50912 change?",
    "the v0.12.0 release",
    "is 3.5x faster real?",
    "1/2 of the PRs",
    "it may 2x the speed",
    "tell me about the lamport PR",
    "PRs by nhill",
    "what is vllm/v1/attention/backends/flash_attn.py",
    "50/50 split",
    "version 2026.8 notes",
    "a 10 GiB model",
]


@pytest.mark.parametrize(("said", "expected"), ONE_DAY)
def test_one_day(said: str, expected: tuple[date, date]) -> None:
    read = read_days(said, TODAY)
    assert isinstance(read, Span), read
    assert (read.start, read.end) == expected


@pytest.mark.parametrize(("said", "expected"), RANGES)
def test_a_range_of_days_includes_both_named_days(said: str, expected: tuple[date, date]) -> None:
    read = read_days(said, TODAY)
    assert isinstance(read, Span) and read.kind == "range", read
    assert (read.start, read.end) == expected


@pytest.mark.parametrize(("said", "first"), SINCE)
def test_since_a_day_runs_to_now(said: str, first: date) -> None:
    assert read_days(said, TODAY) == Span("since", first)


@pytest.mark.parametrize(("said", "expected"), SPANS)
def test_spans_of_their_own(said: str, expected: Span) -> None:
    assert read_days(said, TODAY) == expected


@pytest.mark.parametrize(("said", "kind"), PROBLEMS)
def test_days_that_cannot_be_answered_say_why(said: str, kind: str) -> None:
    read = read_days(said, TODAY)
    assert isinstance(read, DayProblem) and read.kind == kind, read


def test_an_ambiguous_numeric_date_gives_both_readings() -> None:
    assert read_days("what merged on 05/06?", TODAY) == DayProblem(
        "ambiguous", "05/06", (date(2026, 5, 6), date(2026, 6, 5))
    )


def test_a_numeric_date_whose_other_reading_is_long_ago_is_the_recent_one() -> None:
    # 8/11 on Aug 14 is Aug 11, not last November's 8th; 29/11 can only be a day/month.
    assert read_days("8/11", TODAY) == Span("day", date(2026, 8, 11), end=date(2026, 8, 12))
    assert read_days("29/11", date(2026, 12, 1)) == Span("day", date(2026, 11, 29), end=date(2026, 11, 30))


def test_a_date_without_a_year_well_ahead_of_today_is_last_years() -> None:
    assert read_days("Dec 30", date(2027, 1, 5)) == Span("day", date(2026, 12, 30), end=date(2026, 12, 31))


@pytest.mark.parametrize("said", NO_DAYS)
def test_numbers_that_are_no_days_are_not_read_as_days(said: str) -> None:
    assert read_days(said, TODAY) is None


@pytest.mark.parametrize(
    "shape",
    ["Aug " * 5000, "8/" * 10000, "1" * 20000, "between " * 5000, "8月" * 10000, "last " * 8000, "#1 " * 7000],
)
def test_reading_is_linear_in_the_text(shape: str) -> None:
    # Not a timing target (bench/ measures it): a quadratic reading of 40,000 characters takes
    # tens of seconds, a linear one milliseconds, so a generous bound tells them apart.
    text = (shape * (40_000 // len(shape) + 1))[:40_000]
    started = time.perf_counter()
    read_days(text, TODAY)
    assert time.perf_counter() - started < 5.0
