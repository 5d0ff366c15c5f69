"""A daily budget's reservations: each model request holds what it may spend before it is sent,
so that a burst passes the budget by one request's hold at most; a request that finds the rest
of the budget held waits for it; the work's real tokens replace its hold when it is recorded
(failed or not, on the day it was held)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta

import pytest
from devkit.doubles import FakeSource
from devkit.scripted import scripted_usage

from bot.cards.service import CardService
from bot.core.deadline import Deadline
from bot.core.pacing import Pacing
from bot.core.prompting.context_window import OUTPUT_RESERVE, request_tokens
from bot.core.usage import Tally, Usage
from bot.errors import BudgetSpent
from bot.models import Audience, CardReply, Message, OutputMode, PRAnswer, Reply
from bot.ports import Parsed, Schema
from bot.questions.answerer import ModelAnswerer
from bot.questions.ask import ask_about_pr
from bot.questions.qa import QAService
from bot.spending.budgets import HOLD_WAIT_SECONDS, Account, BudgetTally, Payer, Spending
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CardStore
from bot.store.threads import ThreadStore
from bot.store.tokens import RESERVED, TokenStore, tokens_key
from tests.unit.builders import make_snapshot

NOW = datetime(2026, 8, 5, 12, tzinfo=UTC)
TODAY = NOW.date()
TEAM = "T0BURST001"
SNAPSHOT = make_snapshot([("vllm/config.py", 40, 2), ("tests/test_config.py", 20, 0)])
REPO = SNAPSHOT.listing.repo
ANSWER = "It reads `vllm/config.py` once."


class Waits:
    """A clock that moves only when slept on, and the sleeps asked of it."""

    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds

    def pacing(self) -> Pacing:
        return Pacing(clock=lambda: self.now, sleep=self.sleep)


def spending(
    kv: MemoryKV, budget: int, *, now: Callable[[], datetime] = lambda: NOW, waits: Waits | None = None
) -> Spending:
    return Spending(
        TokenStore(kv),
        budget=budget,
        workspace_budget=budget,
        now=now,
        prices={},
        pacing=(waits or Waits()).pacing(),
    )


def held(kv: MemoryKV, day: date = TODAY, workspace: str | None = None) -> int:
    return int(kv.hgetall(tokens_key(day, workspace)).get(RESERVED, b"0"))


def test_a_request_holds_its_tokens_first_and_the_work_settles_to_what_it_spent() -> None:
    kv = MemoryKV()
    spend = spending(kv, 1000)
    tally = spend.tally()
    tally.reserve(300)
    assert held(kv) == 300 and spend.spent_today() == 0  # held, not spent: no report counts it
    tally.add("m", Usage(100, 50))
    spend.record(tally, repo="a/b", payer=Payer("C1"))
    assert held(kv) == 0 and spend.spent_today() == 150
    assert spend.report().total().today.usage == Usage(100, 50)


def test_a_request_finding_the_rest_of_the_budget_held_waits_and_is_refused_only_once_it_is_spent() -> None:
    kv, waits = MemoryKV(), Waits()
    spend = spending(kv, 1000, waits=waits)
    first, second = spend.tally(), spend.tally()
    first.reserve(600)
    second.reserve(600)  # 600 held is below 1,000: it goes, and passes the budget by its own hold
    assert spend.allows()  # nothing is spent yet: the next request waits for those under way

    with pytest.raises(BudgetSpent):
        spend.tally().reserve(1)  # nobody gives anything back: it waits, then is refused
    assert HOLD_WAIT_SECONDS <= sum(waits.slept) < HOLD_WAIT_SECONDS + 2 and len(waits.slept) < 40

    first.add("m", Usage(80, 20))
    spend.record(first, repo=None, payer=Payer("C1"))  # 100 spent, 600 still held
    third = spend.tally()
    third.reserve(600)
    assert held(kv) == 1200 and spend.spent_today() == 100

    second.add("m", Usage(900, 0))
    spend.record(second, repo=None, payer=Payer("C1"))  # 1,000 spent: the budget is
    waits.slept.clear()
    with pytest.raises(BudgetSpent):
        spend.tally().reserve(1)
    assert waits.slept == []  # spent, not held: refused at once
    assert not spend.allows()


def test_a_request_that_got_no_answer_holds_nothing_more_and_a_second_only_what_the_first_left() -> None:
    kv = MemoryKV()
    spend = spending(kv, 10_000)
    tally = spend.tally()
    tally.reserve(500)
    tally.reserve(500)  # the first was refused (a mode the endpoint does not take): no usage
    assert held(kv) == 500
    tally.add("m", Usage(300, 100))
    tally.reserve(500)  # the second request: 400 spent and 500 more
    assert held(kv) == 900


def test_a_failed_works_hold_is_given_back_whole() -> None:
    kv = MemoryKV()
    spend = spending(kv, 1000)
    tally = spend.tally()
    tally.reserve(700)
    spend.record(tally, repo="a/b", payer=Payer("C1"))  # the request failed: nothing spent
    assert held(kv) == 0 and spend.spent_today() == 0 and spend.allows()


def test_a_hold_is_given_back_on_its_own_day_and_the_tokens_count_on_the_day_they_are_recorded() -> None:
    kv = MemoryKV()
    clock = [datetime(2026, 8, 5, 23, 59, 59, tzinfo=UTC)]
    spend = spending(kv, 1000, now=lambda: clock[0])
    tally = spend.tally(TEAM)
    tally.reserve(400)
    clock[0] += timedelta(seconds=2)
    tally.add("m", Usage(90, 10))
    spend.record(tally, repo="a/b", payer=Payer("C1", TEAM))
    assert held(kv, date(2026, 8, 5), TEAM) == 0 and held(kv, date(2026, 8, 6), TEAM) == 0
    assert spend.spent_today(TEAM) == 100


def test_without_a_budget_nothing_is_held() -> None:
    kv = MemoryKV()
    spend = spending(kv, 0)
    tally = spend.tally()
    assert not isinstance(tally, BudgetTally)
    tally.reserve(10**9)
    assert kv.hgetall(tokens_key(NOW.date())) == {}


class HeldModel:
    """A ModelClient whose answers take a moment (a real one, or until `go`), so the requests a
    burst admits are under way together; it reports usage as the fake OpenAI server counts it."""

    model = "held-model"

    def __init__(self, seconds: float = 0.05) -> None:
        self.go = threading.Event()
        self.seconds = seconds
        self.asked: list[Sequence[Message]] = []
        self.most_at_once = 0
        self._under_way = 0
        self._lock = threading.Lock()

    def complete(self, messages: Sequence[Message], deadline: Deadline, tally: Tally | None = None) -> str:
        with self._lock:
            self.asked.append(messages)
            self._under_way += 1
            self.most_at_once = max(self.most_at_once, self._under_way)
        self.go.wait(self.seconds)
        with self._lock:
            self._under_way -= 1
        if tally is not None:
            tally.add(self.model, scripted_usage(messages, ANSWER))
        return ANSWER

    def parse(
        self,
        messages: Sequence[Message],
        schema: type[Schema],
        deadline: Deadline,
        mode: OutputMode = "json_schema",
        tally: Tally | None = None,
    ) -> Parsed[Schema]:
        raise AssertionError("no card is asked of the model here")

    def context_window(self, deadline: Deadline) -> int | None:
        return None


def answering(spend: Spending, model: HeldModel, workspace: str | None) -> tuple[QAService, CardService]:
    cards = CardService(FakeSource(SNAPSHOT), CardStore(MemoryKV()), None)
    cards.card(SNAPSHOT, "en", payer=Payer("C0BURST001", workspace))  # made without the model
    answerer = ModelAnswerer(model, token_budget=12_000)
    return QAService(cards, ThreadStore(MemoryKV()), answerer, Account(spend, workspace)), cards


def test_an_answer_refused_for_the_budget_gets_the_card_and_says_so_not_that_the_model_failed() -> None:
    kv = MemoryKV()
    spend = spending(kv, 100)
    spend.tally().reserve(100)  # another request under way holds the whole budget, and keeps it
    model = HeldModel()
    qa, cards = answering(spend, model, None)
    audience = Audience("C0BURST001", frozenset({REPO.lower()}), "en", thread_ts=None, default_repo=None)

    reply = qa.answer(f"{SNAPSHOT.ref} what changed?", audience)
    assert isinstance(reply, CardReply) and reply.budget_spent and not reply.model_failed
    asked = ask_about_pr(cards, ModelAnswerer(model, token_budget=12_000), SNAPSHOT, "why?", "en", spend)
    assert asked.no_answer == "budget_spent" and model.asked == []


@pytest.mark.parametrize("workspace", [None, TEAM])
def test_twenty_questions_at_once_pass_the_budget_by_one_requests_hold_at_most(workspace: str | None) -> None:
    budget, asking = 3000, 20
    kv = MemoryKV()
    # The real clock: the questions wait for each other's answers as they would in a process.
    spend = Spending(TokenStore(kv), budget=budget, workspace_budget=budget, now=lambda: NOW, prices={})
    model = HeldModel(seconds=0.05)
    qa, _ = answering(spend, model, workspace)
    audience = Audience("C0BURST001", frozenset({REPO.lower()}), "en", thread_ts=None, default_repo=None)
    replies: list[Reply] = []
    lock = threading.Lock()
    start = threading.Barrier(asking)

    def ask() -> None:
        start.wait()
        reply = qa.answer(f"{SNAPSHOT.ref} what changed?", audience)
        with lock:
            replies.append(reply)

    threads = [threading.Thread(target=ask) for _ in range(asking)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)

    one_hold = max(request_tokens(messages, OUTPUT_RESERVE) for messages in model.asked)
    spent = spend.spent_today(workspace)
    assert budget <= spent <= budget + one_hold  # answered until the budget was spent, and no further
    assert 1 < model.most_at_once < asking
    answered = [reply for reply in replies if isinstance(reply, PRAnswer)]
    refused = [reply for reply in replies if isinstance(reply, CardReply) and reply.budget_spent]
    assert len(answered) == len(model.asked) and len(refused) == asking - len(answered) > 0
    assert held(kv, workspace=workspace) == 0
