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
from datetime import date, datetime

from bot import telemetry
from bot.core.usage import Price, Report, Tally, spent_out, utc_days
from bot.store.tokens import TokenStore

# doctor and the App Home show today and the last week.
REPORT_DAYS = 7
# Who caused a spend when no channel did.
CLI, WORKER, ALERTS = "cli", "worker", "alerts"


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
