"""Model calls within one time budget, retries included.

The SDK retries a call that timed out with the whole timeout again: a server that accepts the
connection and never answers held `prdigest card` silent for (retries + 1) × timeout (3 × 90 s).
Here one budget, `[defaults] model_timeout`, covers everything one card (or one answer) asks
of the model, its second request for unsupported claims included:

- each attempt may take what is left of the budget, no more;
- only failures that come back quickly are tried again (connection refused, 408, 409, 429,
  5xx: what the SDK retries), after the SDK's own backoff and only while an answer could still
  arrive in time;
- a timeout is never retried: it has spent the budget, and a server that said nothing for that
  long will not answer the next attempt sooner.

So a card waits for the model at most about model_timeout, however the model fails. (httpx's
read timeout bounds each wait for bytes, not the whole answer: a server that trickles an
answer a byte at a time could stretch one attempt; model servers do not.)
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import httpx2
import openai

from bot.errors import SummarizerError

T = TypeVar("T")

# Same as settings.DEFAULT_MODEL_TIMEOUT, for clients built without settings (bench, tests).
DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRIES = 2
# A host that has not taken the connection in 5 s is down; the rest of the budget is for the answer.
CONNECT_SECONDS = 5.0
RETRY_STATUSES = frozenset({408, 409, 429})  # and every 5xx, as the SDK does
# An attempt is not started with less than this share of the budget left: the answer would not
# come in time, and the server would be asked for work nobody waits for.
MIN_ATTEMPT_SHARE = 0.1
# The SDK's backoff: 0.5 s doubling to 8 s, up to a quarter less at random so clients spread out.
BACKOFF_FIRST = 0.5
BACKOFF_MAX = 8.0
RETRY_AFTER_MAX = 60.0


class ModelOutOfTime(SummarizerError):
    """The budget was spent before another request could be made."""


@dataclass(frozen=True)
class Budget:
    """How long a card or an answer may wait for the model, and how often a quick failure is retried."""

    seconds: float = DEFAULT_TIMEOUT
    retries: int = DEFAULT_RETRIES

    @classmethod
    def of(cls, client: openai.OpenAI, retries: int = DEFAULT_RETRIES) -> Budget:
        """The budget a client was built with (build_openai gives it model_timeout)."""
        timeout = client.timeout
        return cls(float(timeout) if isinstance(timeout, int | float) else DEFAULT_TIMEOUT, retries)

    def start(
        self, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep
    ) -> Deadline:
        return Deadline(self, clock() + self.seconds, clock, sleep)


@dataclass(frozen=True)
class Deadline:
    budget: Budget
    at: float
    clock: Callable[[], float]
    sleep: Callable[[float], None]

    def left(self) -> float:
        return self.at - self.clock()

    def call(self, client: openai.OpenAI, request: Callable[[openai.OpenAI], T]) -> T:
        """`request(client)`, each attempt bounded by what is left; openai errors propagate."""
        least = self.budget.seconds * MIN_ATTEMPT_SHARE
        attempt = 0
        while True:
            left = self.left()
            if left < least:
                raise ModelOutOfTime(f"no time left of the model's {self.budget.seconds:g} s")
            timeout = httpx2.Timeout(left, connect=min(CONNECT_SECONDS, left))
            try:
                return request(client.with_options(timeout=timeout, max_retries=0))
            except openai.APITimeoutError:
                raise
            except (openai.APIConnectionError, openai.APIStatusError) as exc:
                pause = _pause(exc, attempt)
                if attempt >= self.budget.retries or pause is None or self.left() - pause < least:
                    raise
                self.sleep(pause)
            attempt += 1


def _pause(exc: openai.APIConnectionError | openai.APIStatusError, attempt: int) -> float | None:
    """Seconds to wait before trying again, or None when this failure is not worth another try."""
    backoff = min(BACKOFF_FIRST * 2.0**attempt, BACKOFF_MAX) * (1 - 0.25 * random.random())
    if not isinstance(exc, openai.APIStatusError):
        return backoff  # the connection failed: refused, reset, no route
    headers = exc.response.headers
    should = headers.get("x-should-retry")
    if should == "false" or (should != "true" and exc.status_code not in RETRY_STATUSES and exc.status_code < 500):
        return None
    wait = _retry_after(headers.get("retry-after-ms"), 0.001) or _retry_after(headers.get("retry-after"), 1.0)
    if wait is not None:
        return wait if wait <= RETRY_AFTER_MAX else None
    return backoff


def _retry_after(value: str | None, unit: float) -> float | None:
    """A Retry-After in seconds (or milliseconds); an HTTP date or nonsense counts as absent."""
    try:
        seconds = float(value) * unit if value else None
    except ValueError:
        return None
    return seconds if seconds is not None and 0 < seconds < float("inf") else None
