"""The model client a stop can cut: the real openai client against the fake on loopback, a card's
request waiting on a slow model, cut from another thread as Ctrl-C cuts it (Process.stop)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import pytest
from devkit.fakes.llm import FakeOpenAI

from bot.core.deadline import Budget
from bot.core.prompting.drafts import CardDraft
from bot.errors import Stopped
from bot.llm.lazy import Endpoint, ModelOnFirstUse
from bot.models import Message
from tests.integration.slack_harness import wait_for

SLOW_SECONDS = 60.0
# A cut request ends at once (measured: milliseconds); the bound only spares a loaded machine.
CUT_BOUND_SECONDS = 5.0
MESSAGES = [Message("user", "Title: Faster widgets")]


@pytest.fixture
def slow() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(latency=SLOW_SECONDS) as fake:
        yield fake


def cut_while_asked(
    fake: FakeOpenAI, model: ModelOnFirstUse, stopping: threading.Event, cut: Callable[[], None]
) -> tuple[Exception | None, float]:
    """Ask for a card, `cut()` from another thread once the fake holds the request: what the ask
    raised (None: it was answered), and the seconds from the cut to its end."""
    cut_at: list[float] = []

    def cutter() -> None:
        wait_for(lambda: fake.calls >= 1, timeout=30)
        cut_at.append(time.monotonic())
        cut()

    thread = threading.Thread(target=cutter)
    thread.start()
    raised: Exception | None = None
    try:
        model.parse(MESSAGES, CardDraft, Budget(120.0, 2, stopping).start())
    except Exception as exc:
        raised = exc
    ended = time.monotonic()
    thread.join()
    return raised, ended - cut_at[0]


def endpoint(fake: FakeOpenAI) -> ModelOnFirstUse:
    return ModelOnFirstUse.of(Endpoint("test", f"{fake.url}/v1", "fake-model", SLOW_SECONDS * 2))


def test_a_request_in_flight_is_cut_by_a_stop_at_once_and_none_starts_after(slow: FakeOpenAI) -> None:
    stopping = threading.Event()
    model = endpoint(slow)

    def stop() -> None:  # as Process.stop does it
        stopping.set()
        model.cancel()

    try:
        raised, took = cut_while_asked(slow, model, stopping, stop)
        assert isinstance(raised, Stopped), raised
        assert took < CUT_BOUND_SECONDS
        assert slow.calls == 1  # the cut request is not retried
        with pytest.raises(Stopped):
            model.parse(MESSAGES, CardDraft, Budget(120.0, 2, stopping).start())
        assert slow.calls == 1
    finally:
        model.close()
