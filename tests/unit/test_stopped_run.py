"""A stopped run (Ctrl-C in a terminal: Process.stop sets its `stopping` event): no model call or
GitHub request starts after it, a card cut short is not stored (not even from metadata), and a
digest says how many cards it had made. Services over in-process fakes and a MemoryKV."""

from __future__ import annotations

import signal
import threading
from datetime import UTC, datetime

import pytest
from devkit.doubles import FakeSource

from bot.cards.service import CardService, CardTiming
from bot.core.deadline import Budget
from bot.core.usage import Tally
from bot.digests.build import DigestService
from bot.errors import ModelUnavailable, Stopped
from bot.models import Card, Coverage, Language, PRSnapshot, Window
from bot.ops.stopping import TerminalStop
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CardStore
from tests.unit.builders import make_snapshot

REPO = "acme/widgets"
WINDOW = Window(datetime(2026, 8, 4, tzinfo=UTC), datetime(2026, 8, 5, tzinfo=UTC))
SHA = "a" * 40


def pr(number: int) -> PRSnapshot:
    return make_snapshot([("widgets/core.py", 10, 0)], number=number, title=f"Widget change {number}", merge_sha=SHA)


class StoppingWriter:
    """A CardWriter that writes `before` cards, then stops the run during the next one: that
    call fails as a request the stop cut does (its connection shut down), and no other follows."""

    model = "stopping"
    prompt_version = "test"

    def __init__(self, stopping: threading.Event, before: int) -> None:
        self.stopping = stopping
        self.before = before
        self.calls: list[int] = []
        self._lock = threading.Lock()

    def card(self, snapshot: PRSnapshot, language: Language, tally: Tally | None = None) -> Card:
        with self._lock:
            self.calls.append(snapshot.listing.number)
            stop = len(self.calls) > self.before
        if stop:
            self.stopping.set()
            raise ModelUnavailable("the model endpoint could not be reached")
        return Card(
            headline=snapshot.listing.title,
            verdict="skim",
            minutes=5,
            why=(),
            caveats=(),
            watch=(),
            source="llm",
            coverage=Coverage(files_total=1, files_read=1),
            language=language,
        )


def stored(cards: CardService, kv: MemoryKV, numbers: range) -> list[int]:
    """The PRs of `numbers` whose English card is in the store."""
    return [number for number in numbers if CardStore(kv).get_card(cards.key(pr(number), "en")) is not None]


def card_service(source: FakeSource, kv: MemoryKV, writer: StoppingWriter, stopping: threading.Event) -> CardService:
    return CardService(source, CardStore(kv), writer, timing=CardTiming(stopping=stopping))


def test_a_card_cut_short_by_the_stop_is_stopped_and_not_stored_from_metadata() -> None:
    stopping = threading.Event()
    kv = MemoryKV()
    writer = StoppingWriter(stopping, before=0)
    cards = card_service(FakeSource(pr(1)), kv, writer, stopping)

    with pytest.raises(Stopped):
        cards.card(pr(1), "en")
    assert (
        stored(cards, kv, range(1, 2)) == []
    )  # a fallback card would stand in for ten minutes: the next run asks again


def test_after_the_stop_no_github_request_or_card_starts() -> None:
    stopping = threading.Event()
    source = FakeSource(pr(1), pr(2))
    writer = StoppingWriter(stopping, before=10)
    cards = card_service(source, MemoryKV(), writer, stopping)
    stopping.set()

    with pytest.raises(Stopped):
        cards.snapshot_by_ref(pr(1).ref)
    with pytest.raises(Stopped):
        cards.merged(REPO, WINDOW)
    with pytest.raises(Stopped):
        cards.card(pr(2), "en")
    assert (source.looked_up, source.fetched, writer.calls) == ([], [], [])


def test_a_stopped_digest_says_how_many_cards_it_made_and_starts_no_other() -> None:
    stopping = threading.Event()
    kv = MemoryKV()
    source = FakeSource(*(pr(number) for number in range(1, 11)), window=WINDOW, lookups=False)
    writer = StoppingWriter(stopping, before=3)
    # One card at a time, so that which cards were made before the stop is known.
    cards = card_service(source, kv, writer, stopping)
    digests = DigestService(source, cards, concurrency=1, stopping=stopping)

    with pytest.raises(Stopped) as stopped:
        digests.build((REPO,), WINDOW)

    assert (stopped.value.done, stopped.value.total) == (3, 10)
    assert len(writer.calls) == 4  # three cards, and the one the stop cut
    assert stored(cards, kv, range(1, 11)) == sorted(writer.calls[:3])  # each stored as it was made


def test_a_stopped_budget_starts_no_attempt_and_ends_its_pause() -> None:
    stopping = threading.Event()
    slept: list[float] = []
    deadline = Budget(60.0, 2, stopping).start(lambda: 0.0, slept.append)
    assert deadline.for_attempt() == 60.0
    stopping.set()

    with pytest.raises(Stopped):
        deadline.for_attempt()
    with pytest.raises(Stopped):
        deadline.pause(8.0)
    assert slept == []


def test_a_terminal_stop_gives_the_signals_back_when_its_command_is_over() -> None:
    before = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
    with TerminalStop(lambda: None):
        assert signal.getsignal(signal.SIGINT) is not before[0]
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before
    assert signal.set_wakeup_fd(-1) == -1  # nor is a wakeup fd left behind


def test_an_ignored_ctrl_c_stays_ignored() -> None:
    # A script's background job starts with SIGINT ignored: the terminal's Ctrl-C is not for it.
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with TerminalStop(lambda: None):
            assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) != signal.SIG_DFL  # SIGTERM still stops it
    finally:
        signal.signal(signal.SIGINT, before)
