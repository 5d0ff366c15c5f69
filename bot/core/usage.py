"""Tokens a model endpoint reported, and what they cost (pure).

A Tally gathers the `usage` of every response one card or one answer received (the retries
that got an answer, the mode probes, the second request), per model; its owner records it once
(spending/budgets.py). Before each request the code that sends it calls `reserve` with what the
request may spend: a plain Tally holds nothing, the one a daily budget gives (spending.py) holds
it against the budget and raises BudgetSpent once the budget is reached.
Prices are the config's `[models."NAME"]` input_per_million and output_per_million; a model
without both has no price, and its tokens are shown without a cost.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta


@dataclass(frozen=True)
class Usage:
    """Prompt ("in") and completion ("out") tokens, as OpenAI's `usage` names them."""

    prompt: int = 0
    completion: int = 0

    @property
    def total(self) -> int:
        return self.prompt + self.completion

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.prompt + other.prompt, self.completion + other.completion)


@dataclass(frozen=True)
class Spent:
    """Tokens of one scope over some days, and their estimated cost (None: no price configured)."""

    usage: Usage
    cost: float | None


@dataclass(frozen=True)
class Period:
    """One scope's tokens today and over the report's days."""

    today: Spent
    days: Spent


class Tally:
    """The usage of every response one piece of work received, per model (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_model: dict[str, Usage] = {}

    def reserve(self, tokens: int) -> None:
        """Before a model request: hold `tokens` (core/window.request_tokens) of the owner's daily
        budget. Nothing is held here: no budget counts this work."""

    def add(self, model: str, usage: Usage) -> None:
        if usage.total <= 0:
            return
        with self._lock:
            self._by_model[model] = self._by_model.get(model, Usage()) + usage

    def by_model(self) -> dict[str, Usage]:
        with self._lock:
            return dict(self._by_model)

    @property
    def total(self) -> Usage:
        return sum(self.by_model().values(), Usage())


@dataclass(frozen=True)
class Price:
    """Dollars per million tokens, in and out."""

    input_per_million: float
    output_per_million: float

    def of(self, usage: Usage) -> float:
        return (usage.prompt * self.input_per_million + usage.completion * self.output_per_million) / 1_000_000


def cost(by_model: dict[str, Usage], prices: dict[str, Price]) -> float | None:
    """The estimated cost of `by_model`'s tokens; None when any model that spent some has no price."""
    total = 0.0
    for model, usage in by_model.items():
        if usage.total == 0:
            continue
        price = prices.get(model)
        if price is None:
            return None
        total += price.of(usage)
    return total


def spent_out(spent: int, budget: int) -> bool:
    """Whether a daily budget (0: none) is spent: model calls stop once it is reached."""
    return budget > 0 and spent >= budget


def utc_days(today: date, count: int) -> list[date]:
    """`count` UTC days ending with `today`, oldest first."""
    return [today - timedelta(days=back) for back in range(count - 1, -1, -1)]


@dataclass(frozen=True)
class DayTokens:
    """One UTC day's tokens: per model in total, and per model for each repository and payer."""

    day: date
    spent: int = 0  # in + out, every model
    total: dict[str, Usage] = field(default_factory=dict)
    repos: dict[str, dict[str, Usage]] = field(default_factory=dict)
    payers: dict[str, dict[str, Usage]] = field(default_factory=dict)


@dataclass(frozen=True)
class Report:
    days: tuple[DayTokens, ...]  # oldest first, today last
    prices: dict[str, Price]
    budget: int

    @property
    def spent_today(self) -> int:
        return self.days[-1].spent if self.days else 0

    def _period(self, pick: Callable[[DayTokens], dict[str, Usage]]) -> Period:
        today = pick(self.days[-1]) if self.days else {}
        week = summed([pick(day) for day in self.days])
        return Period(self._spent(today), self._spent(week))

    def _spent(self, by_model: dict[str, Usage]) -> Spent:
        return Spent(sum(by_model.values(), Usage()), cost(by_model, self.prices))

    def total(self) -> Period:
        return self._period(lambda day: day.total)

    def repo(self, repo: str) -> Period:
        return self._period(lambda day: day.repos.get(repo.lower(), {}))

    def payer(self, payer: str) -> Period:
        return self._period(lambda day: day.payers.get(payer, {}))

    def repos(self) -> list[str]:
        return sorted({repo for day in self.days for repo in day.repos})

    def payers(self) -> list[str]:
        return sorted({payer for day in self.days for payer in day.payers})


def summed(tables: list[dict[str, Usage]]) -> dict[str, Usage]:
    """Per-model tokens of several days (or scopes) added up."""
    result: dict[str, Usage] = {}
    for table in tables:
        for model, usage in table.items():
            result[model] = result.get(model, Usage()) + usage
    return result
