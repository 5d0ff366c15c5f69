"""A daily budget under a burst, with a real Redis (and the SQLite file): requests racing from many
replicas hold their tokens in one step with the check, so what is admitted passes the budget by
one request's hold at most; and end to end, questions asked at once through the real openai
client against the fake server spend no further than that."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.redis_server import RedisServer

from bot.core.prompting.context_window import OUTPUT_RESERVE, request_tokens
from bot.core.prompting.drafts import CardDraft
from bot.models import Audience, CardReply, Message, PRAnswer, Reply
from bot.questions.qa import QAService
from bot.spending.budgets import Account
from bot.store.backends.memory import MemoryKV
from bot.store.backends.redis_store import RedisKV
from bot.store.backends.sqlite_kv import SqliteKV
from bot.store.kv import KV
from bot.store.threads import ThreadStore
from bot.store.tokens import RESERVED, TokenStore, tokens_key
from tests.integration.conftest import NOW, REPO, ServicesFactory, day, home_of, settings_for

BUDGET, HOLD = 3000, 700
REPLICAS, RACERS = 6, 48
TEAM = "T0BURST001"
CHANNEL = "C0BURST001"
ANSWER = "The change moves the slow part of the step out of the loop."
CARD = {"headline": "Step runs faster", "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}


def race(replicas: list[KV]) -> int:
    """RACERS threads, spread over the replicas' stores, each asking at once to hold HOLD of
    today's BUDGET; how many were granted."""
    start = threading.Barrier(RACERS)
    granted: list[int | None] = []
    lock = threading.Lock()

    def reserve(store: TokenStore) -> None:
        start.wait()
        found = store.reserve(NOW.date(), HOLD, BUDGET, TEAM)
        with lock:
            granted.append(found)

    stores = [TokenStore(kv) for kv in replicas]
    threads = [threading.Thread(target=reserve, args=(stores[n % len(stores)],)) for n in range(RACERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(granted) == RACERS and None in granted and 0 not in granted
    return sum(found == HOLD for found in granted)


def test_holds_racing_from_many_redis_clients_pass_the_budget_by_one_hold_at_most(redis_url: str) -> None:
    replicas: list[KV] = [RedisKV.from_url(redis_url) for _ in range(REPLICAS)]
    try:
        admitted = race(replicas)
        held = int(replicas[0].hgetall(tokens_key(NOW.date(), TEAM))[RESERVED])
    finally:
        for kv in replicas:
            assert isinstance(kv, RedisKV)
            kv.close()
    # 0, 700, …, 2,800 are below 3,000: five holds, 3,500 tokens, one hold past the budget.
    assert held == admitted * HOLD <= BUDGET + HOLD and admitted == 5


def test_holds_racing_from_processes_sharing_one_sqlite_file_pass_the_budget_by_one_hold_at_most(
    tmp_path: Path,
) -> None:
    files = [SqliteKV.open(tmp_path / "cache.sqlite3") for _ in range(REPLICAS)]  # a connection each
    try:
        admitted = race(list(files))
        held = int(files[0].hgetall(tokens_key(NOW.date(), TEAM))[RESERVED])
    finally:
        for kv in files:
            kv.close()
    assert held == admitted * HOLD and admitted == 5


def test_in_memory_holds_racing_pass_the_budget_by_one_hold_at_most() -> None:
    kv = MemoryKV()
    assert race([kv]) == 5


def test_a_hold_redis_cannot_take_lets_the_request_go_and_holds_nothing(own_redis: RedisServer) -> None:
    kv = RedisKV.from_url(own_redis.url)
    own_redis.stop()
    try:
        # The open view: a budget Redis cannot read allows the call, as the spent counter does.
        assert TokenStore(kv).reserve(NOW.date(), HOLD, BUDGET) == 0 and kv.degraded
    finally:
        kv.close()


def populate(github: FakeGitHub, count: int) -> None:
    for number in range(1, count + 1):
        github.add_pr(
            REPO,
            number,
            title=f"Speed up step {number}",
            merged_at=day(number),
            files=[{"path": f"src/step_{number}.py", "additions": 30 + number, "deletions": 4}],
        )


def respond(request: dict[str, Any]) -> Any:
    return CARD if "response_format" in request or "tools" in request else ANSWER


def one_hold(model: FakeOpenAI) -> int:
    """The most any request the server received held: its prompt's estimate, the card's schema
    where it carried one, and the answer's room (no max_output_tokens is configured)."""
    schema = json.dumps(CardDraft.model_json_schema())
    holds = []
    for body in model.chat_requests():
        messages = [Message(message["role"], str(message.get("content") or "")) for message in body["messages"]]
        structured = "response_format" in body or "tools" in body
        holds.append(request_tokens(messages, OUTPUT_RESERVE, schema if structured else ""))
    return max(holds)


@pytest.mark.parametrize("workspace", [None, TEAM])
def test_questions_asked_at_once_spend_no_more_than_the_budget_and_one_requests_hold(
    workspace: str | None,
    github: FakeGitHub,
    model: FakeOpenAI,
    redis_url: str,
    make_services: ServicesFactory,
    tmp_path: Path,
) -> None:
    asking = 16
    populate(github, asking)
    model.responder = respond
    model.latency = 0.3  # the requests a burst admits are under way together
    config = tmp_path / "prdigest.toml"
    config.write_text(
        f"[defaults]\ndaily_token_budget = {BUDGET}\n\n[slack]\nworkspace_daily_token_budget = {BUDGET}\n",
        encoding="utf-8",
    )
    built = make_services(settings_for(github, model, redis_url, PRDIGEST_CONFIG=str(config)))
    qa: QAService = (
        home_of(built).qa
        if workspace is None
        else QAService(built.cards, ThreadStore(built.kv), built.answerer, Account(built.spending, workspace))
    )
    audience = Audience(CHANNEL, frozenset({REPO.lower()}), "en", thread_ts=None, default_repo=None)
    # The first question is asked alone, so that one answer is given before the burst (in a
    # burst, the cards' holds may take the whole budget before any answer asks, which is right,
    # and would leave no answer to check); the other 15 are asked at once.
    start = threading.Barrier(asking - 1)
    replies: list[Reply] = []
    lock = threading.Lock()

    def asker(number: int) -> Callable[[], None]:
        def ask() -> None:
            if number > 1:
                start.wait()
            reply = qa.answer(f"what does {REPO}#{number} change?", audience)  # its card, then the answer
            with lock:
                replies.append(reply)

        return ask

    asker(1)()
    threads = [threading.Thread(target=asker(number)) for number in range(2, asking + 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)

    spent = TokenStore(built.kv).spent(NOW.date(), workspace)
    assert len(replies) == asking
    assert BUDGET <= spent <= BUDGET + one_hold(model)
    assert any(isinstance(reply, PRAnswer) for reply in replies)
    assert any(isinstance(reply, CardReply) and reply.budget_spent for reply in replies)
    assert int(built.kv.hgetall(tokens_key(NOW.date(), workspace)).get(RESERVED, b"0")) == 0
