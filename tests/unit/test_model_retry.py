"""Retries within one budget (llm/retry.py over core/deadline.py), the real openai client on a mock transport."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import openai
import pytest
from devkit.clocks import Clock

from bot.core.deadline import Budget
from bot.errors import ModelOutOfTime
from bot.llm.retry import call_within

OK = {"object": "list", "data": []}


def client_answering(*responses: httpx2.Response) -> tuple[openai.OpenAI, list[httpx2.Request]]:
    seen: list[httpx2.Request] = []
    queue: Iterator[httpx2.Response] = iter(responses)

    def handle(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return next(queue)

    http = httpx2.Client(transport=httpx2.MockTransport(handle))
    return openai.OpenAI(api_key="k", base_url="http://model.test/v1", http_client=http, max_retries=0), seen


def error(status: int, **headers: str) -> httpx2.Response:
    return httpx2.Response(status, json={"error": {"message": "no", "type": "server_error"}}, headers=headers)


def list_models(client: openai.OpenAI) -> object:
    return client.models.list()


def test_quick_failures_are_retried_within_the_budget() -> None:
    client, seen = client_answering(error(503), error(429, **{"retry-after": "2"}), httpx2.Response(200, json=OK))
    clock = Clock()
    call_within(Budget(60, retries=2).start(clock, clock.sleep), client, list_models)
    assert len(seen) == 3
    assert clock.slept[1] == 2  # the server's Retry-After
    assert 0.375 <= clock.slept[0] <= 0.5  # the SDK's first backoff, less up to a quarter


@pytest.mark.parametrize(
    "response",
    [
        error(400),
        error(401),
        error(503, **{"x-should-retry": "false"}),
        error(429, **{"retry-after": "120"}),  # longer than a retry is worth
        error(429, **{"retry-after": "50"}),  # longer than what is left of a 55 s budget
    ],
)
def test_failures_not_worth_a_retry_are_raised_at_once(response: httpx2.Response) -> None:
    client, seen = client_answering(response, httpx2.Response(200, json=OK))
    clock = Clock()
    with pytest.raises(openai.APIStatusError):
        call_within(Budget(55, retries=2).start(clock, clock.sleep), client, list_models)
    assert len(seen) == 1


def test_retries_stop_at_their_count() -> None:
    client, seen = client_answering(error(500), error(500), error(500))
    clock = Clock()
    with pytest.raises(openai.InternalServerError):
        call_within(Budget(60, retries=1).start(clock, clock.sleep), client, list_models)
    assert len(seen) == 2


def test_a_spent_budget_makes_no_request() -> None:
    client, seen = client_answering(httpx2.Response(200, json=OK))
    clock = Clock()
    deadline = Budget(10).start(clock, clock.sleep)
    clock.now = 9.5  # less than a tenth of the budget left
    with pytest.raises(ModelOutOfTime):
        call_within(deadline, client, list_models)
    assert seen == []


def test_each_attempt_gets_only_what_is_left() -> None:
    timeouts: list[object] = []

    def handle(request: httpx2.Request) -> httpx2.Response:
        timeouts.append(request.extensions["timeout"])
        return error(502) if len(timeouts) == 1 else httpx2.Response(200, json=OK)

    client = openai.OpenAI(
        api_key="k", base_url="http://model.test/v1", http_client=httpx2.Client(transport=httpx2.MockTransport(handle))
    )
    clock = Clock()
    call_within(Budget(30).start(clock, clock.sleep), client, list_models)
    first, second = timeouts
    assert isinstance(first, dict) and isinstance(second, dict)
    assert first["read"] == 30 and first["connect"] == 5
    assert second["read"] == pytest.approx(30 - clock.slept[0])
