"""Tokens a model endpoint reported, and what they cost (pure).

A Tally gathers the `usage` of every response one card or one answer received (the retries
that got an answer, the mode probes, the second request), per model; its owner records it once
(services/spending.py). Prices are the config's `[models."NAME"]` input_per_million and
output_per_million; a model without both has no price, and its tokens are shown without a cost.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
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


class Tally:
    """The usage of every response one piece of work received, per model (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_model: dict[str, Usage] = {}

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
