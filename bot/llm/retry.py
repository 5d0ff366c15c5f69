"""One model request within a Deadline (core/deadline.py), quick failures retried.

- each attempt may take what is left of the budget, no more (the SDK's own retries are off);
- only failures that come back quickly are tried again (connection refused, 408, 409, 429,
  5xx: what the SDK retries), after the SDK's own backoff and only while an answer could still
  arrive in time;
- a timeout is never retried: it has spent the budget, and a server that said nothing for that
  long will not answer the next attempt sooner.
- an answer that refuses the request's shape is never retried, whatever its status
  (llama-cpp-python refuses response_format json_schema with a 500): the caller's `final`.
- a run that was stopped starts no attempt and ends its pause at once; an attempt that failed
  because the stop closed its connection is Stopped, not a failure of the model.

(httpx's read timeout bounds each wait for bytes, not the whole answer: a server that trickles
an answer a byte at a time could stretch one attempt; model servers do not.) openai's errors
propagate as they are; llm/errors.py translates them.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

import httpx2
import openai

from bot.core.deadline import Deadline

T = TypeVar("T")

# A host that has not taken the connection in 5 s is down; the rest of the budget is for the answer.
CONNECT_SECONDS = 5.0
RETRY_STATUSES = frozenset({408, 409, 429})  # and every 5xx, as the SDK does
# The SDK's backoff: 0.5 s doubling to 8 s, up to a quarter less at random so clients spread out.
BACKOFF_FIRST = 0.5
BACKOFF_MAX = 8.0
RETRY_AFTER_MAX = 60.0


def _never(exc: openai.APIStatusError) -> bool:
    return False


def call_within(
    deadline: Deadline,
    client: openai.OpenAI,
    request: Callable[[openai.OpenAI], T],
    final: Callable[[openai.APIStatusError], bool] = _never,
) -> T:
    """`request(client)`, each attempt bounded by what is left; openai errors propagate.

    `final` marks answers that asking again cannot change, whatever their status (a server that
    refuses a request field says so with a 500 as well: llm/refusals.py).
    """
    attempt = 0
    while True:
        left = deadline.for_attempt()
        timeout = httpx2.Timeout(left, connect=min(CONNECT_SECONDS, left))
        try:
            return request(client.with_options(timeout=timeout, max_retries=0))
        except openai.APITimeoutError:
            deadline.check()
            raise
        except (openai.APIConnectionError, openai.APIStatusError) as exc:
            deadline.check()  # the stop closed this request (llm/connections.py): Stopped
            if isinstance(exc, openai.APIStatusError) and final(exc):
                raise
            pause = _pause(exc, attempt)
            if attempt >= deadline.budget.retries or pause is None or not deadline.allows_pause(pause):
                raise
            deadline.pause(pause)
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
