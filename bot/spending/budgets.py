"""Spending: the model's tokens, recorded when spent and capped per UTC day and workspace.

Tokens are counted when they are spent, never when a cached card is served again: a card is
made once and every surface shares it, so its tokens are charged to whoever caused the spend
(a Payer): the channel whose digest or question made the call (its id), or the surface that did
(`cli`, `worker` for cards the poller or the webhook queued, `alerts`), in the workspace the
request came from. A channel that reads a card another channel paid for spends nothing. Each
record goes to the day's counters of that workspace in the store (store/tokens.py) and to
/metrics (bot/ops/telemetry.py).

Each workspace has its own daily budget (in + out tokens, every repository), read before each
card or answer made for it: the single or home workspace `[defaults] daily_token_budget`, each
other installed workspace (OAuth mode) `[slack] workspace_daily_token_budget`. Once a
workspace's tokens of the day reach its budget, no model call is made for it until the next UTC
day; another workspace's spend never counts against it.

Reserve, then settle: before each model request, what it may spend (its prompt's estimate and
the answer's cap, core/window.request_tokens) is held in the day's counters, in one step with
the check, and only while the day's spent and held tokens are below the budget (store/tokens.py:
atomic on Redis across replicas, and in the SQLite file and in memory). So however many requests
start at once, a day passes its budget by one request's hold at most (while no request spends
more than it held: the estimate counts more than tokenizers do, and an answer is held to the cap
only where max_output_tokens sends one). When the work ends, failed, timed out or stopped
included, its real tokens replace what it held (`record`, one write). Held tokens are not spent:
reports, the App Home, doctor and /metrics count only what was recorded. A request that finds
the budget held by others, not spent, waits for them to settle (up to HOLD_WAIT_SECONDS), so a
burst is answered until the budget is spent, not refused while it is not. A hold is the day's:
one left by a process that died is given back by no one, and ends with its UTC day. Without
Redis the counters, and so the budgets, are this process's own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime

from bot.core.pacing import REAL_TIME, Pacing
from bot.core.usage import Price, Report, Tally, spent_out, utc_days
from bot.errors import BudgetSpent
from bot.ops import telemetry
from bot.store.tokens import TokenStore

# doctor and the App Home show today and the last week.
REPORT_DAYS = 7
# Who caused a spend when no channel did.
CLI, WORKER, ALERTS = "cli", "worker", "alerts"
# How long a request waits for the requests under way to give back what they hold, when they
# hold the rest of the budget: a card's or an answer's request takes seconds (longer ones are
# rare), and a question waits no longer than this before it is told the budget is spent.
HOLD_WAIT_SECONDS = 20.0
HOLD_STEP_SECONDS, HOLD_STEP_MAX_SECONDS = 0.05, 1.0  # the store is asked less and less often


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
        pacing: Pacing = REAL_TIME,
    ) -> None:
        self._store = store
        self.budget = budget
        self._workspace_budget = workspace_budget
        self._now = now
        self._prices = prices
        self.pacing = pacing  # how a request waits for others' holds

    def today(self) -> date:
        return self._now().date()  # the wiring's clock is UTC

    def budget_of(self, workspace: str | None = None) -> int:
        """The daily budget of `workspace` (None: the single or home one); 0: no cap."""
        return self.budget if workspace is None else self._workspace_budget

    def allows(self, workspace: str | None = None) -> bool:
        """Whether a model call may be made now for `workspace` (its day's budget is not spent;
        each request then holds its tokens, BudgetTally)."""
        budget = self.budget_of(workspace)
        return budget <= 0 or not spent_out(self._store.spent(self.today(), workspace), budget)

    def tally(self, workspace: str | None = None) -> Tally:
        """The Tally of one piece of work for `workspace`: with a budget, each of its requests
        holds its tokens against it first (BudgetTally); without one, a plain Tally."""
        return Tally() if self.budget_of(workspace) <= 0 else BudgetTally(self, workspace)

    def reserve(self, tokens: int, workspace: str | None = None) -> tuple[date, int] | None:
        """Hold `tokens` of today's budget of `workspace` for a request: the day and the tokens
        held (0: the store cannot say, nothing held); None when the budget is reached."""
        day = self.today()
        held = self._store.reserve(day, tokens, self.budget_of(workspace), workspace)
        return None if held is None else (day, held)

    def spent_today(self, workspace: str | None = None) -> int:
        return self._store.spent(self.today(), workspace)

    def record(self, tally: Tally, *, repo: str | None, payer: Payer) -> None:
        """Count what `tally` gathered: for the payer's workspace and day, the repository (None:
        several), the payer; and give back what its requests held (BudgetTally), in the same write."""
        day = self.today()
        spent = tally.by_model()
        held, holder = (tally.release(), tally.workspace) if isinstance(tally, BudgetTally) else ({}, payer.workspace)
        released = held.pop(day, 0) if holder == payer.workspace else 0
        self._store.settle(day, spent, repo=repo, payer=payer.name, workspace=payer.workspace, released=released)
        for other, tokens in held.items():  # held on a day since ended (or for another workspace)
            self._store.release(other, tokens, holder)
        for usage in spent.values():
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

    def tally(self) -> Tally:
        return self.spending.tally(self.workspace)

    def record(self, tally: Tally, repo: str | None, payer: Payer) -> None:
        self.spending.record(tally, repo=repo, payer=payer)


class BudgetTally(Tally):
    """A Tally whose requests hold their tokens against a workspace's daily budget before they are
    sent (Spending.reserve): before each, enough is held for what the work spent so far and the
    request's own tokens, so a request that got no answer (a refused mode) holds nothing more, and
    a second request holds only what the first did not use. BudgetSpent when the budget is
    reached: that request is not sent. What is held is given back when the work is recorded."""

    def __init__(self, spending: Spending, workspace: str | None) -> None:
        super().__init__()
        self._spending = spending
        self.workspace = workspace
        self._held_lock = threading.Lock()
        self._held: dict[date, int] = {}

    def reserve(self, tokens: int) -> None:
        with self._held_lock:
            more = self.total.total + tokens - sum(self._held.values())
            if more <= 0:
                return
            day, held = self._waited(more)
            self._held[day] = self._held.get(day, 0) + held

    def _waited(self, tokens: int) -> tuple[date, int]:
        """`tokens` held, once the requests under way leave room for them (HOLD_WAIT_SECONDS at
        most); BudgetSpent at once when the budget is spent, or when they still hold it then."""
        spending, pacing = self._spending, self._spending.pacing
        deadline = pacing.clock() + HOLD_WAIT_SECONDS
        step = HOLD_STEP_SECONDS
        while (found := spending.reserve(tokens, self.workspace)) is None:
            if not spending.allows(self.workspace) or pacing.clock() >= deadline:
                raise BudgetSpent("the day's token budget is reached")
            pacing.sleep(step)
            step = min(step * 2, HOLD_STEP_MAX_SECONDS)
        return found

    def release(self) -> dict[date, int]:
        """What this work's requests hold, per day, forgotten here: the caller gives it back."""
        with self._held_lock:
            held, self._held = self._held, {}
        return {day: tokens for day, tokens in held.items() if tokens}
