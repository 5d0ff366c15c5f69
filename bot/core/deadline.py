"""One time budget for everything a card (or an answer) asks of the model, retries included.

The SDK retries a call that timed out with the whole timeout again: a server that accepts the
connection and never answers held `prdigest card` silent for (retries + 1) × timeout (3 × 90 s).
Here one budget, `[defaults] model_timeout`, covers a card's requests, its second request for
unsupported claims included, so a card waits for the model at most about that long however the
model fails. This module keeps the time; how an attempt is bounded and which failures are
retried is the model adapter's (llm/retry.py). The clock and the sleep are injected.

A budget may also end early: a run stopped (Ctrl-C in a terminal) sets its `stopping` event, and
no attempt starts after that (Stopped), nor does a pause between attempts go on.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from bot.errors import ModelOutOfTime, Stopped

# Same as core/config.DEFAULT_MODEL_TIMEOUT, for budgets made without settings (bench, tests).
DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 2
# An attempt is not started with less than this share of the budget left: the answer would not
# come in time, and the server would be asked for work nobody waits for.
MIN_ATTEMPT_SHARE = 0.1
# A pause between attempts (up to 8 s of backoff) looks at `stopping` this often: a stopped run's
# threads end within it.
STOP_CHECK_SECONDS = 0.05


@dataclass(frozen=True)
class Budget:
    """How long a card or an answer may wait for the model, and how often a quick failure is retried."""

    seconds: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES
    # Set when the process's run is stopped (wiring/process.py): every deadline started from this
    # budget ends then. None: only time ends it.
    stopping: threading.Event | None = None
    # Requests at the model at once, shared by everything that holds this budget (the cards of a
    # process: `[defaults] concurrency`). None: no limit.
    slots: threading.BoundedSemaphore | None = None

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        """Held while asking the model: waits for a free slot (Stopped if the run stops meanwhile).
        Waiting is not the model's time, so a deadline is started once the slot is held."""
        slots = self.slots
        if slots is None:
            yield
            return
        while not slots.acquire(timeout=STOP_CHECK_SECONDS):
            if self.stopping is not None and self.stopping.is_set():
                raise Stopped
        try:
            yield
        finally:
            slots.release()

    def start(
        self, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep
    ) -> Deadline:
        return Deadline(self, clock() + self.seconds, clock, sleep)


@dataclass(frozen=True)
class Deadline:
    """A started budget: when it ends, and the clock and sleep that measure it."""

    budget: Budget
    at: float
    clock: Callable[[], float]
    sleep: Callable[[float], None]

    @property
    def least(self) -> float:
        """Seconds an attempt needs to be worth starting."""
        return self.budget.seconds * MIN_ATTEMPT_SHARE

    def left(self) -> float:
        return self.at - self.clock()

    @property
    def stopped(self) -> bool:
        """Whether the run this deadline belongs to was stopped."""
        stopping = self.budget.stopping
        return stopping is not None and stopping.is_set()

    def check(self) -> None:
        """Stopped when the run was stopped; else nothing."""
        if self.stopped:
            raise Stopped

    def for_attempt(self) -> float:
        """Seconds the next attempt may take; ModelOutOfTime when too little is left to start one,
        Stopped when the run was stopped.

        Every ModelClient calls this before each request it makes.
        """
        self.check()
        left = self.left()
        if left < self.least:
            raise ModelOutOfTime(f"no time left of the model's {self.budget.seconds:g} s")
        return left

    def allows_pause(self, seconds: float) -> bool:
        """Whether an attempt could still be made after waiting `seconds`."""
        return self.left() - seconds >= self.least

    def pause(self, seconds: float) -> None:
        """Wait `seconds` between attempts; Stopped as soon as the run is stopped."""
        if self.budget.stopping is None:
            self.sleep(seconds)
            return
        left = seconds
        while left > 0:
            self.check()
            step = min(left, STOP_CHECK_SECONDS)
            self.sleep(step)
            left -= step
        self.check()
