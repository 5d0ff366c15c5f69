"""TokenStore: the tokens the model spent, per UTC day, on any KV (Redis or memory).

One hash per day and workspace, kept TOKENS_TTL (the 30-day view and some days more):
`tokens:{YYYY-MM-DD}` for the single or home workspace (and the CLI, the poller's own), and
`tokens:{YYYY-MM-DD}:{team}` for each other installed workspace (OAuth mode), so that no
workspace's budget counts another's spend. A workspace's hash is not under its `team:` prefix on
purpose: an uninstall deletes that prefix, and an uninstall and a new install must not give a
workspace a fresh budget for the same day; the hash expires with its TTL.
Its fields, each a counter:
- `all`                        in + out tokens of the day, every model: what the budget reads
- `reserved`                   tokens held for model requests under way (not spent: no report
                               reads it), added only while `all` + `reserved` is below the budget
- `{in|out}|total|{model}`     the day's tokens of one model
- `{in|out}|repo:{repo}|{model}`  ... spent on one repository's PRs (the name lower-cased)
- `{in|out}|for:{payer}|{model}`  ... spent for one channel (its id) or surface (cli, worker, alerts)
The model's name is the last part: it is the only one that may hold a `|`. Without Redis the
hash is the process's own (MemoryKV): the budget then counts in this process only.
A request's tokens are held on the day it starts and released when its work is recorded, in the
same step as its real tokens are added. A process that dies with requests under way leaves their
hold in that day's `reserved` until the day ends: the next UTC day's hash starts from zero.
"""

from __future__ import annotations

from datetime import date

from bot.core.usage import DayTokens, Usage
from bot.store.kv import DAY, KV
from bot.store.workspace import checked_team

TOKENS_TTL = 40 * DAY
ALL, RESERVED = "all", "reserved"


def tokens_key(day: date, workspace: str | None = None) -> str:
    """The day's hash of `workspace` (None: the single or home one)."""
    key = f"tokens:{day.isoformat()}"
    return key if workspace is None else f"{key}:{checked_team(workspace)}"


class TokenStore:
    def __init__(self, kv: KV) -> None:
        self._kv = kv

    def add(
        self, day: date, model: str, usage: Usage, *, repo: str | None, payer: str, workspace: str | None = None
    ) -> None:
        self.settle(day, {model: usage}, repo=repo, payer=payer, workspace=workspace)

    def settle(
        self,
        day: date,
        spent: dict[str, Usage],
        *,
        repo: str | None,
        payer: str,
        workspace: str | None = None,
        released: int = 0,
    ) -> None:
        """Add what each model of `spent` spent, and release `released` tokens held on `day`, in
        one step: no reader sees the work's tokens both held and spent, or neither."""
        amounts: dict[str, int] = {}
        for model, usage in spent.items():
            amounts[ALL] = amounts.get(ALL, 0) + usage.total
            for direction, amount in (("in", usage.prompt), ("out", usage.completion)):
                if amount <= 0:
                    continue
                amounts[f"{direction}|total|{model}"] = amount
                amounts[f"{direction}|for:{payer}|{model}"] = amount
                if repo:
                    amounts[f"{direction}|repo:{repo.lower()}|{model}"] = amount
        if released:
            amounts[RESERVED] = -released
        if amounts:
            self._kv.hincrby(tokens_key(day, workspace), amounts, TOKENS_TTL)

    def reserve(self, day: date, tokens: int, budget: int, workspace: str | None = None) -> int | None:
        """Hold `tokens` of `day`'s `budget` for a model request, if the day's spent and held
        tokens are below it (so a burst passes the budget by one request at most, on every
        replica): the tokens held; 0 when the store cannot say (nothing held, the request goes,
        as `spent` lets it); None when the budget is reached."""
        added = self._kv.hincrby_below(
            tokens_key(day, workspace), RESERVED, tokens, counted=(ALL, RESERVED), limit=budget, ttl=TOKENS_TTL
        )
        if added is None:
            return 0
        return tokens if added else None

    def release(self, day: date, tokens: int, workspace: str | None = None) -> None:
        """Give back `tokens` held on `day` (a request's work recorded on a later day)."""
        self._kv.hincrby(tokens_key(day, workspace), {RESERVED: -tokens}, TOKENS_TTL)

    def spent(self, day: date, workspace: str | None = None) -> int:
        """In + out tokens of `day` (0 when the store cannot say: a cache outage spends no budget)."""
        return _int(self._kv.hgetall(tokens_key(day, workspace)).get(ALL))

    def day(self, day: date, workspace: str | None = None) -> DayTokens:
        fields = self._kv.hgetall(tokens_key(day, workspace))
        result = DayTokens(day, spent=_int(fields.get(ALL)))
        for name, raw in fields.items():
            parts = name.split("|", 2)
            if len(parts) != 3 or parts[0] not in ("in", "out"):
                continue
            direction, scope, model = parts
            if scope == "total":
                table = result.total
            elif scope.startswith("repo:"):
                table = result.repos.setdefault(scope.removeprefix("repo:"), {})
            elif scope.startswith("for:"):
                table = result.payers.setdefault(scope.removeprefix("for:"), {})
            else:
                continue
            amount = _int(raw)
            usage = Usage(amount, 0) if direction == "in" else Usage(0, amount)
            table[model] = table.get(model, Usage()) + usage
        return result


def _int(raw: bytes | None) -> int:
    try:
        return int(raw) if raw else 0
    except ValueError:
        return 0
