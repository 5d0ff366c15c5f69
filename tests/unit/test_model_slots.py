"""A process's cards share `[defaults] concurrency` requests at the model (Budget.slot): at most
that many at once, a card's wait for a slot is not its model time, a stopped run stops waiting,
and a card's own checking is done with its slot given back. A cold digest readies the model
beside its GitHub reads; a warm one does not."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest
from devkit.doubles import FakeSource

from bot.cards.service import CardService
from bot.cards.writer import ModelCardWriter
from bot.core.deadline import Budget, Deadline
from bot.core.prompting.drafts import CardDraft
from bot.core.usage import Tally
from bot.digests.build import DigestService
from bot.errors import Stopped
from bot.models import Message, OutputMode, Window
from bot.ports import Parsed, Schema
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CardStore
from tests.unit.builders import make_snapshot

WINDOW = Window(datetime(2026, 8, 4, tzinfo=UTC), datetime(2026, 8, 5, tzinfo=UTC))


class SlowModel:
    """A model taking `seconds` per card on the real clock, counting the requests at once."""

    model = "slow"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.lock = threading.Lock()
        self.now = self.peak = 0
        self.seconds_left: list[float] = []

    def parse(
        self,
        messages: Sequence[Message],
        schema: type[Schema],
        deadline: Deadline,
        mode: OutputMode = "json_schema",
        tally: Tally | None = None,
    ) -> Parsed[Schema]:
        with self.lock:
            self.now += 1
            self.peak = max(self.peak, self.now)
            self.seconds_left.append(deadline.left())
        time.sleep(self.seconds)
        with self.lock:
            self.now -= 1
        draft = CardDraft(headline="A change", verdict="skim", minutes=3, why=[], caveats=[], watch=[])
        return Parsed(schema.model_validate(draft.model_dump()), draft.model_dump_json())  # type: ignore[arg-type]

    def complete(self, messages: Sequence[Message], deadline: Deadline, tally: Tally | None = None) -> str:
        raise AssertionError("a card is parsed")

    def context_window(self, deadline: Deadline) -> int | None:
        return 32_000


def writer(
    model: SlowModel, slots: int, seconds: float = 60.0, stopping: threading.Event | None = None
) -> ModelCardWriter:
    budget = Budget(seconds, retries=0, stopping=stopping, slots=threading.BoundedSemaphore(slots))
    return ModelCardWriter(model, token_budget=8000, budget=budget)  # type: ignore[arg-type]


def cards_at_once(write: ModelCardWriter, count: int) -> None:
    threads = [
        threading.Thread(target=write.card, args=(make_snapshot([("a.py", 3, 1)], number=n), "en"))
        for n in range(1, count + 1)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def test_no_more_cards_than_slots_are_at_the_model_at_once() -> None:
    model = SlowModel(0.05)
    cards_at_once(writer(model, slots=2), 8)
    assert model.peak == 2 and len(model.seconds_left) == 8


def test_waiting_for_a_slot_is_not_the_cards_model_time() -> None:
    # Four cards through one slot, 0.2 s each: the last waits 0.6 s, twice its whole budget.
    model = SlowModel(0.2)
    cards_at_once(writer(model, slots=1, seconds=0.3), 4)
    assert len(model.seconds_left) == 4 and min(model.seconds_left) > 0.25


def test_a_stopped_run_stops_waiting_for_a_slot() -> None:
    stopping = threading.Event()
    budget = Budget(60, stopping=stopping, slots=threading.BoundedSemaphore(1))
    with budget.slot():
        stopping.set()
        with pytest.raises(Stopped), budget.slot():
            pass


class CountingWarm:
    def __init__(self) -> None:
        self.calls = 0
        self.done = threading.Event()

    def __call__(self) -> None:
        self.calls += 1
        self.done.set()


def test_a_cold_digest_readies_the_model_and_a_warm_one_does_not() -> None:
    snapshots = [
        make_snapshot([("a.py", 3, 1)], number=n, merged_at=datetime(2026, 8, 4, 12, tzinfo=UTC)) for n in (1, 2)
    ]
    source = FakeSource(*snapshots, window=WINDOW, lookups=False)
    model = SlowModel(0.0)
    cards = CardService(source, CardStore(MemoryKV()), writer(model, slots=4))
    warm = CountingWarm()
    digests = DigestService(source, cards, warm=warm)

    assert digests.build(("acme/widgets",), WINDOW).shown == 2
    assert warm.done.wait(5) and warm.calls == 1
    assert digests.build(("acme/widgets",), WINDOW).shown == 2  # every snapshot and card stored
    assert warm.calls == 1
