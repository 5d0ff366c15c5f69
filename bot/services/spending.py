"""Spending: the model's tokens, recorded when spent and capped per UTC day and workspace.

Tokens are counted when they are spent, never when a cached card is served again: a card is
made once and every surface shares it, so its tokens are charged to whoever caused the spend
(a Payer): the channel whose digest or question made the call (its id), or the surface that did
(`cli`, `worker` for cards the poller or the webhook queued, `alerts`), in the workspace the
request came from. A channel that reads a card another channel paid for spends nothing. Each
record goes to the day's counters of that workspace in the store (store/tokens.py) and to
/metrics (bot/telemetry.py).

Each workspace has its own daily budget (in + out tokens, every repository), read before each
card or answer made for it: the single or home workspace `[defaults] daily_token_budget`, each
other installed workspace (OAuth mode) `[slack] workspace_daily_token_budget`. Once a
workspace's tokens of the day reach its budget, no model call is made for it until the next UTC
day; another workspace's spend never counts against it. Check-then-spend: calls already under
way finish, so a day may end a few cards over a budget. Without Redis the counters, and so the
budgets, are this process's own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime

from bot import telemetry
from bot.core.usage import Price, Report, Tally, spent_out, utc_days
from bot.store.tokens import TokenStore

# doctor and the App Home show today and the last week.
REPORT_DAYS = 7
# Who caused a spend when no channel did.
CLI, WORKER, ALERTS = "cli", "worker", "alerts"


@dataclass(frozen=True)
class Payer:
    """Who a model call's tokens are charged to: a channel id or a surface's name, in a workspace
    (None: the single or home one; else its team id, OAuth mode)."""

    name: str
    workspace: str | None = None


# The terminal's commands: the operator's own, paid from the home workspace's budget.
CLI_PAYER = Payer(CLI)


def background_workspace(followers: Iterable[str | None]) -> str | None:
    """The workspace a card nobody asked for yet is charged to (the poller's, for a repository
    these workspaces follow): the home one when it follows it, else the first other by id, so a
    repository only another workspace follows is never paid from the home workspace's budget."""
    found = set(followers)
    others = sorted(team for team in found if team is not None)
    return None if None in found or not others else others[0]


class Spending:
    def __init__(
        self,
        store: TokenStore,
        *,
        budget: int,
        now: Callable[[], datetime],
        prices: dict[str, Price],
        workspace_budget: int = 0,
    ) -> None:
        self._store = store
        self.budget = budget
        self._workspace_budget = workspace_budget
        self._now = now
        self._prices = prices

    def today(self) -> date:
        return self._now().date()  # the wiring's clock is UTC

    def budget_of(self, workspace: str | None = None) -> int:
        """The daily budget of `workspace` (None: the single or home one); 0: no cap."""
        return self.budget if workspace is None else self._workspace_budget

    def allows(self, workspace: str | None = None) -> bool:
        """Whether a model call may be made now for `workspace` (its day's budget is not spent)."""
        budget = self.budget_of(workspace)
        return budget <= 0 or not spent_out(self._store.spent(self.today(), workspace), budget)

    def spent_today(self, workspace: str | None = None) -> int:
        return self._store.spent(self.today(), workspace)

    def record(self, tally: Tally, *, repo: str | None, payer: Payer) -> None:
        """Count what `tally` gathered: for the payer's workspace and day, the repository (None:
        several), the payer."""
        day = self.today()
        for model, usage in tally.by_model().items():
            self._store.add(day, model, usage, repo=repo, payer=payer.name, workspace=payer.workspace)
            telemetry.count("model_tokens_total", usage.prompt, direction="in")
            telemetry.count("model_tokens_total", usage.completion, direction="out")
            if repo:
                telemetry.count("model_tokens_by_repo_total", usage.total, repo=repo.lower())

    def report(self, days: int = REPORT_DAYS, workspace: str | None = None) -> Report:
        """One workspace's last `days` UTC days' tokens, today last (doctor, App Home): only its own."""
        found = tuple(self._store.day(day, workspace) for day in utc_days(self.today(), days))
        return Report(found, dict(self._prices), self.budget_of(workspace))


@dataclass(frozen=True)
class Account:
    """One workspace's side of the daily budgets: whether it may ask the model now, and what
    each request cost (None: the single or home workspace)."""

    spending: Spending
    workspace: str | None = None

    def allows(self) -> bool:
        return self.spending.allows(self.workspace)

    def record(self, tally: Tally, repo: str | None, payer: Payer) -> None:
        self.spending.record(tally, repo=repo, payer=payer)
