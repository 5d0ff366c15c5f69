"""The OpenAI adapter: the real openai client on a mock transport (no sockets), every failure the
SDK raises turned into ours by llm/errors.py, the server's code and message kept."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2
import openai
import pytest
from devkit.clocks import Clock
from pydantic import BaseModel, ValidationError

from bot.core.deadline import Budget, Deadline
from bot.core.prompting.drafts import CardDraft
from bot.errors import (
    ModelBadOutput,
    ModelFiltered,
    ModelOutOfTime,
    ModelRejected,
    ModelTimeout,
    ModelTruncated,
    ModelUnavailable,
    SummarizerError,
)
from bot.llm.errors import SERVER_MESSAGE_MAX, model_error
from bot.llm.openai_model import OpenAIModel
from bot.models import Message

URL = "http://model.test/v1"
DRAFT = {"headline": "Decode 2.5x faster", "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}
MESSAGES = [Message("system", "You write cards."), Message("user", "The PR."), Message("assistant", "{}")]

Handler = Callable[[httpx2.Request], httpx2.Response]


def model_answering(handler: Handler) -> tuple[OpenAIModel, list[httpx2.Request]]:
    seen: list[httpx2.Request] = []

    def record(request: httpx2.Request) -> httpx2.Response:
        seen.append(request)
        return handler(request)

    http = httpx2.Client(transport=httpx2.MockTransport(record))
    client = openai.OpenAI(api_key="k", base_url=URL, http_client=http, max_retries=0)
    return OpenAIModel(client, "test-model"), seen


def deadline(retries: int = 0) -> Deadline:
    clock = Clock()
    return Budget(60, retries).start(clock, clock.sleep)


def completion(content: str | None, finish_reason: str = "stop", refusal: str | None = None) -> httpx2.Response:
    message = {"role": "assistant", "content": content, "refusal": refusal}
    choice = {"index": 0, "finish_reason": finish_reason, "logprobs": None, "message": message}
    body = {"id": "c1", "object": "chat.completion", "created": 0, "model": "test-model", "choices": [choice]}
    return httpx2.Response(200, json=body)


def error(status: int, code: str | None = None, message: str = "Refused.") -> httpx2.Response:
    body = {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}}
    return httpx2.Response(status, json=body)


def parse(model: OpenAIModel, retries: int = 0) -> Any:
    return model.parse(MESSAGES, CardDraft, deadline(retries))


# -- what crosses the wire -------------------------------------------------------------------------


def test_a_structured_request_sends_the_messages_and_the_schema_and_returns_the_raw_json() -> None:
    raw = json.dumps(DRAFT)
    model, seen = model_answering(lambda request: completion(raw))
    parsed = parse(model)

    assert parsed.value == CardDraft(**DRAFT) and parsed.raw == raw
    (request,) = seen
    body = json.loads(request.content)
    assert request.url.path == "/v1/chat/completions" and body["model"] == "test-model"
    assert body["messages"] == [{"role": m.role, "content": m.content} for m in MESSAGES]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True


def test_a_plain_request_returns_the_text_or_nothing() -> None:
    model, seen = model_answering(lambda request: completion("It adds tests."))
    assert model.complete(MESSAGES, deadline()) == "It adds tests."
    assert "response_format" not in json.loads(seen[0].content)
    silent, _ = model_answering(lambda request: completion(None))
    assert silent.complete(MESSAGES, deadline()) == ""


def test_quick_failures_are_retried_within_the_deadline() -> None:
    answers = iter([error(503), error(429), completion(json.dumps(DRAFT))])
    model, seen = model_answering(lambda request: next(answers))
    assert parse(model, retries=2).value.headline == "Decode 2.5x faster"
    assert len(seen) == 3


def test_a_spent_deadline_makes_no_request() -> None:
    model, seen = model_answering(lambda request: completion("{}"))
    clock = Clock()
    spent = Budget(10).start(clock, clock.sleep)
    clock.now = 9.5
    with pytest.raises(ModelOutOfTime):
        model.complete(MESSAGES, spent)
    assert seen == []


# -- every failure, as ours ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "code"),
    [(400, "invalid_request_error"), (401, "invalid_api_key"), (403, None), (404, "model_not_found"), (422, None)],
)
def test_a_refused_request_keeps_the_server_s_status_code_and_message(status: int, code: str | None) -> None:
    model, _ = model_answering(lambda request: error(status, code, "response_format is not supported"))
    with pytest.raises(ModelRejected) as raised:
        parse(model, retries=2)
    assert (raised.value.status, raised.value.code) == (status, code)
    assert raised.value.message == "response_format is not supported"
    # Our text names the status; the server's words stay out of anything a person may be shown.
    assert str(raised.value) == f"the model endpoint refused the request ({status})"
    assert isinstance(raised.value.__cause__, openai.APIStatusError)


def test_a_refusal_that_is_not_json_keeps_its_text_cut_short() -> None:
    model, _ = model_answering(lambda request: httpx2.Response(400, text="<html>" + "x" * 5000))
    with pytest.raises(ModelRejected) as raised:
        parse(model)
    assert raised.value.code is None
    assert raised.value.message.startswith("<html>") and len(raised.value.message) == SERVER_MESSAGE_MAX


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503])
def test_not_now_from_the_server_is_unavailable_with_its_status(status: int) -> None:
    model, seen = model_answering(lambda request: error(status))
    with pytest.raises(ModelUnavailable) as raised:
        parse(model)
    assert raised.value.status == status and len(seen) == 1


def test_a_refused_connection_is_unavailable_without_a_status() -> None:
    def refuse(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ConnectError("Connection refused", request=request)

    model, _ = model_answering(refuse)
    with pytest.raises(ModelUnavailable) as raised:
        model.complete(MESSAGES, deadline())
    assert raised.value.status is None
    assert isinstance(raised.value.__cause__, openai.APIConnectionError)


def test_a_timeout_is_a_model_timeout() -> None:
    def hang(request: httpx2.Request) -> httpx2.Response:
        raise httpx2.ReadTimeout("timed out", request=request)

    model, seen = model_answering(hang)
    with pytest.raises(ModelTimeout) as raised:
        parse(model, retries=2)
    assert isinstance(raised.value.__cause__, openai.APITimeoutError)
    assert len(seen) == 1  # a timeout has spent the budget: never retried


def test_json_that_does_not_fit_the_schema_is_bad_output() -> None:
    model, _ = model_answering(lambda request: completion("not json {"))
    with pytest.raises(ModelBadOutput) as raised:
        parse(model)
    assert isinstance(raised.value.__cause__, ValidationError)


def test_an_answer_cut_at_the_length_limit_is_truncated() -> None:
    model, _ = model_answering(lambda request: completion('{"headline": "Deco', finish_reason="length"))
    with pytest.raises(ModelTruncated) as raised:
        parse(model)
    assert isinstance(raised.value.__cause__, openai.LengthFinishReasonError)


def test_a_filtered_answer_is_filtered() -> None:
    model, _ = model_answering(lambda request: completion(None, finish_reason="content_filter"))
    with pytest.raises(ModelFiltered) as raised:
        parse(model)
    assert isinstance(raised.value.__cause__, openai.ContentFilterFinishReasonError)


def test_a_refusal_is_filtered_and_no_answer_is_bad_output() -> None:
    refused, _ = model_answering(lambda request: completion(None, refusal="I can't help with that."))
    with pytest.raises(ModelFiltered):
        parse(refused)
    empty, _ = model_answering(
        lambda request: httpx2.Response(
            200, json={"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": []}
        )
    )
    with pytest.raises(ModelBadOutput):
        parse(empty)


def test_ping_lists_the_models_and_maps_a_refused_key() -> None:
    model, seen = model_answering(lambda request: httpx2.Response(200, json={"object": "list", "data": []}))
    model.ping()
    assert seen[0].url.path == "/v1/models"
    refused, _ = model_answering(lambda request: error(401, "invalid_api_key"))
    with pytest.raises(ModelRejected) as raised:
        refused.ping()
    assert raised.value.status == 401


# -- the mapping itself, for errors the transport cannot provoke ------------------------------------

REQUEST = httpx2.Request("POST", f"{URL}/chat/completions")


class _Schema(BaseModel):
    number: int


def _validation_error() -> ValidationError:
    try:
        _Schema.model_validate({"number": "many"})
    except ValidationError as exc:
        return exc
    raise AssertionError("the schema accepted a non-number")


@pytest.mark.parametrize(
    ("exc", "ours"),
    [
        (openai.APIResponseValidationError(httpx2.Response(200, request=REQUEST), body=None), ModelBadOutput),
        (_validation_error(), ModelBadOutput),
        (openai.APIConnectionError(request=REQUEST), ModelUnavailable),
        (openai.APIError("stream broke", REQUEST, body=None), ModelUnavailable),
        (openai.OpenAIError("something else"), SummarizerError),
    ],
)
def test_every_openai_error_becomes_one_of_ours(exc: openai.OpenAIError | ValidationError, ours: type) -> None:
    mapped = model_error(exc)
    assert type(mapped) is ours
    assert "stream broke" not in str(mapped) and "something else" not in str(mapped)
