"""Token counts, their cost, the daily budget, and the day's counters in a store."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, date, datetime, timedelta

import pytest

from bot.core.usage import Price, Tally, Usage, cost, spent_out, utc_days
from bot.ops import telemetry
from bot.render.tokens import doctor_lines, home_tokens, money
from bot.spending.budgets import Payer, Spending
from bot.store.backends.memory import MemoryKV
from bot.store.tokens import TOKENS_TTL, TokenStore

DAY = date(2026, 8, 5)


def test_a_tally_adds_every_response_per_model_and_ignores_empty_ones() -> None:
    tally = Tally()
    tally.add("a", Usage(100, 20))
    tally.add("a", Usage(50, 5))  # a retry that got an answer, the second request
    tally.add("b", Usage(7, 3))
    tally.add("a", Usage(0, 0))  # a server that reports no usage
    assert tally.by_model() == {"a": Usage(150, 25), "b": Usage(7, 3)}
    assert tally.total == Usage(157, 28) and tally.total.total == 185


def test_cost_is_tokens_times_the_price_per_million_of_the_model_that_spent_them() -> None:
    prices = {"small": Price(0.15, 0.60), "big": Price(2.5, 10.0)}
    spent = {"small": Usage(1_000_000, 500_000), "big": Usage(2_000, 1_000)}
    assert cost(spent, prices) == pytest.approx(0.15 + 0.30 + 0.005 + 0.01)
    assert cost({}, prices) == 0.0
    assert cost({"unpriced": Usage(0, 0), "small": Usage(1_000_000, 0)}, prices) == pytest.approx(0.15)
    assert cost({"unpriced": Usage(10, 1)}, prices) is None  # no price: tokens only


@pytest.mark.parametrize(
    ("spent", "budget", "out"), [(0, 0, False), (10**9, 0, False), (99, 100, False), (100, 100, True), (101, 100, True)]
)
def test_a_budget_is_spent_once_the_days_tokens_reach_it_and_zero_is_no_budget(
    spent: int, budget: int, out: bool
) -> None:
    assert spent_out(spent, budget) is out


def test_the_report_days_end_with_today() -> None:
    assert utc_days(DAY, 3) == [date(2026, 8, 3), date(2026, 8, 4), DAY]


def test_the_days_counters_read_back_per_model_repository_and_payer() -> None:
    kv = MemoryKV()
    store = TokenStore(kv)
    store.add(DAY, "gpt-4o-mini", Usage(100, 10), repo="Vllm-Project/vLLM", payer="C0123")
    store.add(DAY, "gpt-4o-mini", Usage(50, 5), repo="vllm-project/vllm", payer="cli")
    store.add(DAY, "org|odd:model", Usage(7, 0), repo=None, payer="C0123")  # a digest of several repos
    found = store.day(DAY)
    assert found.spent == 172 == store.spent(DAY)
    assert found.total == {"gpt-4o-mini": Usage(150, 15), "org|odd:model": Usage(7, 0)}
    assert found.repos == {"vllm-project/vllm": {"gpt-4o-mini": Usage(150, 15)}}
    assert found.payers == {
        "C0123": {"gpt-4o-mini": Usage(100, 10), "org|odd:model": Usage(7, 0)},
        "cli": {"gpt-4o-mini": Usage(50, 5)},
    }
    assert store.day(DAY + timedelta(days=1)).spent == 0
    assert TOKENS_TTL >= 31 * 24 * 3600  # the 30-day view


def spending(budget: int, now: datetime, kv: MemoryKV) -> Spending:
    return Spending(TokenStore(kv), budget=budget, now=lambda: now, prices={"m": Price(1.0, 2.0)})


def test_the_budget_stops_calls_for_the_utc_day_and_a_new_day_starts_from_zero() -> None:
    kv = MemoryKV()
    today = spending(1000, datetime(2026, 8, 5, 23, 59, tzinfo=UTC), kv)
    assert today.allows()
    tally = Tally()
    tally.add("m", Usage(900, 100))
    today.record(tally, repo="a/b", payer=Payer("C1"))
    assert not today.allows() and today.spent_today() == 1000
    assert spending(1000, datetime(2026, 8, 6, 0, 0, tzinfo=UTC), kv).allows()
    assert spending(0, datetime(2026, 8, 5, 12, 0, tzinfo=UTC), kv).allows()  # no budget


def test_the_report_gives_today_and_seven_days_with_their_cost() -> None:
    kv = MemoryKV()
    for days_ago, amount in ((0, 1000), (3, 2000), (9, 5000)):  # the 9-day-old spend is not in the week
        tally = Tally()
        tally.add("m", Usage(amount, amount // 10))
        spending(0, datetime(2026, 8, 15 - days_ago, 12, tzinfo=UTC), kv).record(tally, repo="a/b", payer=Payer("C1"))
    report = spending(0, datetime(2026, 8, 15, 12, tzinfo=UTC), kv).report()
    assert len(report.days) == 7
    total = report.total()
    assert total.today.usage == Usage(1000, 100) and total.today.cost == pytest.approx(0.0012)
    assert total.days.usage == Usage(3000, 300) and report.repo("A/B").days.usage == Usage(3000, 300)
    assert report.payer("C1") == total and report.payer("C2").days.usage == Usage()
    assert report.repos() == ["a/b"] and report.payers() == ["C1"]


def test_doctor_and_home_lines_say_the_cost_or_that_no_price_is_configured() -> None:
    kv = MemoryKV()
    tally = Tally()
    tally.add("m", Usage(1500, 500))
    tally.add("unpriced", Usage(10, 0))
    now = datetime(2026, 8, 5, 12, tzinfo=UTC)
    spending(1000, now, kv).record(tally, repo="a/b", payer=Payer("C0CHANNEL1"))
    lines = doctor_lines(spending(1000, now, kv).report())
    assert (True, "daily budget 1,000 tokens: 2,010 today, spent: no model calls until 00:00 UTC") in lines
    assert any(line.startswith("channel C0CHANNEL1: today 2,010 (in 1,510, out 500), no price") for _, line in lines)
    priced = Tally()
    priced.add("m", Usage(1500, 500))
    kv2 = MemoryKV()
    spending(0, now, kv2).record(priced, repo="a/b", payer=Payer("cli"))
    report = spending(0, now, kv2).report()
    assert (
        False,
        "surface cli: today 2,000 (in 1,500, out 500), ≈ $0.0025; 7 days 2,000 (in 1,500, out 500), ≈ $0.0025",
    ) in doctor_lines(report)
    assert home_tokens(report.payer("cli"), "en") == (
        "Model tokens spent for this channel: today 2,000 (≈ $0.0025) · last 7 days 2,000 (≈ $0.0025)"
    )
    assert "约 $0.0025" in home_tokens(report.payer("cli"), "zh-CN")
    assert money(12.345) == "$12.35" and money(0.00012) == "$0.0001"


class RecordingSink:
    def __init__(self) -> None:
        self.counts: list[tuple[str, float, dict[str, str]]] = []

    def count(self, name: str, amount: float, labels: Mapping[str, str]) -> None:
        self.counts.append((name, amount, dict(labels)))

    def observe(self, name: str, value: float, labels: Mapping[str, str]) -> None: ...

    def gauge(self, name: str, read: Callable[[], float]) -> None: ...


def test_recorded_tokens_reach_the_metrics_in_and_out_and_per_repository() -> None:
    sink = RecordingSink()
    with telemetry.installed(sink):
        tally = Tally()
        tally.add("m", Usage(120, 30))
        spending(0, datetime(2026, 8, 5, tzinfo=UTC), MemoryKV()).record(tally, repo="Acme/Widgets", payer=Payer("C1"))
    assert sink.counts == [
        ("model_tokens_total", 120, {"direction": "in"}),
        ("model_tokens_total", 30, {"direction": "out"}),
        ("model_tokens_by_repo_total", 150, {"repo": "acme/widgets"}),
    ]
    assert telemetry.SERIES["model_tokens_by_repo_total"][1] == ("repo",)
