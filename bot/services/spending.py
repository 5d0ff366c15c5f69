"""Spending: the model's tokens, recorded when spent and capped per UTC day.

Tokens are counted when they are spent, never when a cached card is served again: a card is
made once and every surface shares it, so its tokens are the repository's and are charged to
whoever caused the spend, the channel whose digest or question made the call (its id), or the
surface that did (`cli`, `worker` for cards the poller or the webhook queued, `alerts`). A
channel that reads a card another channel paid for spends nothing. Each record goes to the
day's counters in the store (store/tokens.py) and to /metrics (bot/telemetry.py).

The daily budget (`[defaults] daily_token_budget`, in + out tokens, every repository) is read
before each card or answer: once the day's tokens reach it, no model call is made until the
next UTC day. Check-then-spend: calls already under way finish, so a day may end a few cards
over its budget. Without Redis the counters, and so the budget, are this process's own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime

from bot import telemetry
from bot.core.usage import Price, Tally, Usage, cost, spent_out, utc_days
from bot.store.tokens import DayTokens, TokenStore

# doctor and the App Home show today and the last week.
REPORT_DAYS = 7
# Who caused a spend when no channel did.
CLI, WORKER, ALERTS = "cli", "worker", "alerts"


@dataclass(frozen=True)
class Spent:
    """Tokens of one scope over some days, and their estimated cost (None: no price configured)."""

    usage: Usage
    cost: float | None


class Spending:
    def __init__(
        self, store: TokenStore, *, budget: int, now: Callable[[], datetime], prices: dict[str, Price]
    ) -> None:
        self._store = store
        self.budget = budget
        self._now = now
        self._prices = prices

    def today(self) -> date:
        return self._now().date()  # the builder's clock is UTC

    def allows(self) -> bool:
        """Whether a model call may be made now (the day's budget is not spent)."""
        return self.budget <= 0 or not spent_out(self._store.spent(self.today()), self.budget)

    def spent_today(self) -> int:
        return self._store.spent(self.today())

    def record(self, tally: Tally, *, repo: str | None, payer: str) -> None:
        """Count what `tally` gathered: for the day, the repository (None: several), the payer."""
        day = self.today()
        for model, usage in tally.by_model().items():
            self._store.add(day, model, usage, repo=repo, payer=payer)
            telemetry.count("model_tokens_total", usage.prompt, direction="in")
            telemetry.count("model_tokens_total", usage.completion, direction="out")
            if repo:
                telemetry.count("model_tokens_by_repo_total", usage.total, repo=repo.lower())

    def report(self, days: int = REPORT_DAYS) -> Report:
        """The last `days` UTC days' tokens, today last (doctor, App Home)."""
        found = tuple(self._store.day(day) for day in utc_days(self.today(), days))
        return Report(found, dict(self._prices), self.budget)


@dataclass(frozen=True)
class Period:
    """One scope's tokens today and over the report's days."""

    today: Spent
    days: Spent


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
