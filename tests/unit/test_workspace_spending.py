"""Each workspace's own token budget: its counters, whose budget a card is charged to (the asker's,
a queued job's, the poller's), and a budget card of one workspace made again for another."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from devkit.doubles import FakeSource
from devkit.scripted import ScriptedModel

from bot.cards.service import CardService, CardTiming, ModelUse
from bot.core.card_jobs import CardJob
from bot.core.pacing import Pacing
from bot.core.usage import Tally, Usage
from bot.spending.budgets import WORKER, Payer, Spending, background_workspace
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CardStore
from bot.store.tokens import TokenStore, tokens_key
from tests.unit.test_card_service import draft, widget_pr, writer

NOW = datetime(2026, 8, 5, 12, tzinfo=UTC)
A, B = "T0AAAAAAA1", "T0BBBBBBB1"


def tally(tokens: int) -> Tally:
    found = Tally()
    found.add("m", Usage(tokens, 0))
    return found


def spending(kv: MemoryKV, *, home: int = 0, workspace: int = 0) -> Spending:
    return Spending(TokenStore(kv), budget=home, workspace_budget=workspace, now=lambda: NOW, prices={})


def test_a_workspaces_tokens_count_against_its_budget_only() -> None:
    kv = MemoryKV()
    spend = spending(kv, home=100, workspace=50)
    spend.record(tally(400), repo="acme/widgets", payer=Payer("C0B0000001", B))

    assert not spend.allows(B) and spend.spent_today(B) == 400
    assert spend.allows(None) and spend.spent_today(None) == 0  # the home workspace's
    assert spend.allows(A) and spend.spent_today(A) == 0  # another installed one's
    assert kv.hgetall(tokens_key(NOW.date())) == {}


def test_each_workspace_sees_its_own_report_and_budget() -> None:
    spend = spending(MemoryKV(), home=1000, workspace=300)
    spend.record(tally(40), repo="acme/widgets", payer=Payer("C0HOME0001"))
    spend.record(tally(7), repo="acme/gadgets", payer=Payer("C0B0000001", B))

    home, second = spend.report(), spend.report(workspace=B)
    assert (home.budget, home.spent_today, home.payers(), home.repos()) == (1000, 40, ["C0HOME0001"], ["acme/widgets"])
    assert (second.budget, second.spent_today, second.payers(), second.repos()) == (
        300,
        7,
        ["C0B0000001"],
        ["acme/gadgets"],
    )


def test_a_zero_workspace_budget_is_no_cap() -> None:
    spend = spending(MemoryKV(), home=1, workspace=0)
    spend.record(tally(10**9), repo=None, payer=Payer("C0B0000001", B))
    assert spend.allows(B)


def test_a_workspaces_counters_are_not_under_its_uninstall_prefix() -> None:
    # An uninstall deletes `team:{T}:…`; a new install the same day must not find a fresh budget.
    assert not tokens_key(NOW.date(), B).startswith(f"team:{B}:")
    with pytest.raises(ValueError, match="team id"):
        tokens_key(NOW.date(), "tokens:2026-08-05")


@pytest.mark.parametrize(
    ("followers", "pays"),
    [({None}, None), ({None, B}, None), ({B}, B), ({B, A}, A), (set(), None)],
)
def test_a_background_card_is_paid_by_the_home_workspace_only_when_it_follows_the_repository(
    followers: set[str | None], pays: str | None
) -> None:
    assert background_workspace(followers) == pays


def test_a_card_job_carries_its_workspace_and_an_older_job_reads_as_the_home_ones() -> None:
    job = CardJob("acme/widgets", 7, "en", None, "C0B0000001", B)
    assert CardJob.from_json(job.to_json()) == job
    assert "workspace" not in CardJob("acme/widgets", 7, "en").to_json()
    assert (
        CardJob.from_json({"repo": "acme/widgets", "number": 7, "language": "en", "merge_sha": None}).workspace is None
    )
    with pytest.raises(ValueError, match="workspace"):
        CardJob.from_json({**job.to_json(), "workspace": "team:T1:x"})


def cards_for(spend: Spending, model: ScriptedModel) -> CardService:
    return CardService(FakeSource(widget_pr()), CardStore(MemoryKV()), writer(model), use=ModelUse(spend))


def test_a_card_is_charged_to_the_workspace_that_asked_and_costs_the_next_asker_nothing() -> None:
    kv = MemoryKV()
    spend = spending(kv)
    cards = cards_for(spend, ScriptedModel(draft()))

    assert cards.card(widget_pr(), "en", payer=Payer("C0B0000001", B)).card.source == "llm"
    cards.card(widget_pr(), "en", payer=Payer("C0HOME0001"))  # cached: nobody pays
    assert spend.spent_today(B) > 0 and spend.spent_today(None) == 0


def test_a_workers_job_is_charged_to_the_workspace_that_queued_it() -> None:
    kv = MemoryKV()
    spend = spending(kv)
    cards = cards_for(spend, ScriptedModel(draft()))
    snapshot = widget_pr()
    cards.snapshot(snapshot.listing)  # the worker reads it from the store

    cards.make(CardJob(snapshot.listing.repo, snapshot.listing.number, "en", snapshot.listing.merge_sha, WORKER, B))
    assert spend.report(workspace=B).payers() == [WORKER] and spend.spent_today(None) == 0


def test_a_card_from_metadata_for_a_spent_workspace_is_made_again_for_one_whose_budget_allows() -> None:
    kv = MemoryKV()
    spend = spending(kv, home=1_000_000, workspace=1)
    spend.record(tally(5), repo=None, payer=Payer("C0B0000001", B))  # B's day is spent
    model = ScriptedModel(draft())
    cards = cards_for(spend, model)

    second = cards.card(widget_pr(), "en", payer=Payer("C0B0000001", B))
    assert second.no_model == "budget" and model.calls == []
    home = cards.card(widget_pr(), "en", payer=Payer("C0HOME0001"))
    assert home.card.source == "llm" and len(model.calls) == 1
    assert spend.spent_today(None) > 0 and spend.spent_today(B) == 5


class OneWorker:
    """A card queue (bot/ports/queue.py CardJobs) of one job at a time, as CardQueue dedups by key:
    a job submitted while another for the same card waits is not queued; `run()` is the worker."""

    def __init__(self) -> None:
        self.cards: CardService | None = None
        self.pending: list[CardJob] = []

    def submit(self, job: CardJob) -> bool:
        if any(queued.key == job.key for queued in self.pending):
            assert self.cards is not None
            self.run()  # the worker gets to the earlier job while the second asker waits
            return False
        self.pending.append(job)
        return True

    def run(self) -> None:
        assert self.cards is not None
        while self.pending:
            self.cards.make(self.pending.pop(0))

    def workers_alive(self) -> bool:
        return True


def test_an_asker_waiting_on_another_workspaces_spent_job_makes_the_card_at_once() -> None:
    kv = MemoryKV()
    spend = spending(kv, home=1_000_000, workspace=1)
    spend.record(tally(5), repo=None, payer=Payer("C0B0000001", B))  # B's day is spent
    model = ScriptedModel(draft())
    jobs = OneWorker()
    cards = CardService(
        FakeSource(widget_pr()),
        CardStore(kv),
        writer(model),
        timing=CardTiming(Pacing(model.clock, model.clock.sleep)),
        jobs=jobs,
        use=ModelUse(spend),
    )
    jobs.cards = cards
    snapshot = widget_pr()
    cards.snapshot(snapshot.listing)
    cards.queue([snapshot.listing], "en", Payer("C0B0000001", B))  # B's digest queued it

    home = cards.card(snapshot, "en", payer=Payer("C0HOME0001"))
    assert home.card.source == "llm" and len(model.calls) == 1
    # It did not wait out the queue's wait for a card that would never be the home workspace's.
    assert sum(model.clock.slept) < 1.0
