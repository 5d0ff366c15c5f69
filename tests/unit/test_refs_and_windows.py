from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.core.refs import parse_ref, parse_repo
from bot.digests.windows import parse_date, parse_since, window_for_date, window_since
from bot.errors import UsageError
from bot.models import PRRef

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("vllm-project/vllm#51079", PRRef("vllm-project/vllm", 51079)),
        ("https://github.com/vllm-project/vllm/pull/51079", PRRef("vllm-project/vllm", 51079)),
        ("https://github.com/vllm-project/vllm/pull/51079/files#diff-1", PRRef("vllm-project/vllm", 51079)),
        ("<https://ghe.example.com/org/repo/pull/7>", PRRef("org/repo", 7)),
        ("#12", PRRef("default/repo", 12)),
        ("12", PRRef("default/repo", 12)),
    ],
)
def test_references_people_type(text: str, expected: PRRef) -> None:
    assert parse_ref(text, default_repo="default/repo") == expected


@pytest.mark.parametrize(
    "text", ["", "vllm", "vllm-project/vllm", "#abc", "owner/repo#0", "https://github.com/a/b/issues/3"]
)
def test_bad_references_say_what_works(text: str) -> None:
    with pytest.raises(UsageError, match="owner/repo#123"):
        parse_ref(text, default_repo=None if text.startswith("#") else "x/y")


def test_short_reference_without_repository_asks_for_one() -> None:
    with pytest.raises(UsageError, match="write owner/repo#12"):
        parse_ref("#12")


def test_repository_names() -> None:
    assert parse_repo("vllm-project/vllm") == "vllm-project/vllm"
    with pytest.raises(UsageError, match="owner/name"):
        parse_repo("vllm")


def test_window_since() -> None:
    window = window_since(NOW, parse_since("24h"))
    assert window.end == NOW
    assert window.start == datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    assert parse_since("90m") == timedelta(minutes=90)
    with pytest.raises(UsageError, match="--since"):
        parse_since("yesterday")


def test_window_for_date_in_a_time_zone() -> None:
    window = window_for_date(parse_date("2026-08-05"), ZoneInfo("Asia/Shanghai"), NOW)
    assert window.start.astimezone(UTC) == datetime(2026, 8, 4, 16, 0, tzinfo=UTC)
    assert (window.end - window.start).days == 1


@pytest.mark.parametrize("text", ["2026-13-01", "05/08/2026", "tomorrow"])
def test_bad_date(text: str) -> None:
    with pytest.raises(UsageError, match="is not a date; use YYYY-MM-DD"):
        parse_date(text)


def test_a_day_before_github_is_refused() -> None:
    with pytest.raises(UsageError, match="before GitHub had pull requests"):
        parse_date("2007-12-31")


def test_future_date_is_refused() -> None:
    with pytest.raises(UsageError, match="has not started yet in UTC"):
        window_for_date(parse_date("2027-01-01"), ZoneInfo("UTC"), NOW)
