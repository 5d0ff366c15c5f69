"""The OpenAI adapter's output modes on the wire, and the servers' refusals recognised by their
own words: the real openai client on a mock transport, the bodies as the servers write them."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx2
import openai
import pytest
from devkit.clocks import Clock
from devkit.fakes.llm_servers import LLAMA_CPP_JSON_SCHEMA_500, context_error, openai_refusal

from bot.core.deadline import Budget, Deadline
from bot.core.prompting.drafts import CardDraft
from bot.errors import ContextTooLong, ModelBadOutput, ModelRejected, ModelUnavailable, ModeRefused
from bot.llm.openai_model import LimitField, OpenAIModel, Sampling, limit_field
from bot.models import Message, OutputMode

URL = "http://model.test/v1"
DRAFT = {"headline": "Decode 2.5x faster", "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}
MESSAGES = [Message("system", "You write cards."), Message("user", "The PR.")]

Handler = Callable[[httpx2.Request], httpx2.Response]


def model_answering(handler: Handler, sampling: Sampling | None = None) -> tuple[OpenAIModel, list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []

    def record(request: httpx2.Request) -> httpx2.Response:
        seen.append(json.loads(request.content) if request.content else {"path": request.url.path})
        return handler(request)

    http = httpx2.Client(transport=httpx2.MockTransport(record))
    client = openai.OpenAI(api_key="k", base_url=URL, http_client=http, max_retries=0)
    return OpenAIModel(client, "test-model", sampling), seen


def deadline(retries: int = 2) -> Deadline:
    clock = Clock()
    return Budget(60, retries).start(clock, clock.sleep)


def completion(message: dict[str, Any], finish_reason: str = "stop") -> httpx2.Response:
    choice = {"index": 0, "finish_reason": finish_reason, "logprobs": None, "message": message}
    body = {"id": "c1", "object": "chat.completion", "created": 0, "model": "test-model", "choices": [choice]}
    return httpx2.Response(200, json=body)


def content(text: str) -> httpx2.Response:
    return completion({"role": "assistant", "content": text})


def parse(model: OpenAIModel, mode: OutputMode, retries: int = 2) -> Any:
    return model.parse(MESSAGES, CardDraft, deadline(retries), mode)


# -- each mode on the wire -------------------------------------------------------------------------


def test_json_schema_mode_sends_the_strict_schema() -> None:
    model, seen = model_answering(lambda request: content(json.dumps(DRAFT)))
    assert parse(model, "json_schema").value == CardDraft(**DRAFT)
    response_format = seen[0]["response_format"]
    assert response_format["type"] == "json_schema" and response_format["json_schema"]["strict"] is True
    assert response_format["json_schema"]["schema"]["required"] == list(DRAFT)
    assert "tools" not in seen[0]


def test_tools_mode_forces_a_named_function_whose_parameters_are_the_schema() -> None:
    arguments = json.dumps(DRAFT)
    call = {"id": "call_1", "type": "function", "function": {"name": "CardDraft", "arguments": arguments}}
    # llama-cpp-python's reply: the legacy function_call beside tool_calls, finish_reason tool_calls.
    reply = {"role": "assistant", "content": None, "tool_calls": [call], "function_call": call["function"]}
    model, seen = model_answering(lambda request: completion(reply, "tool_calls"))

    parsed = parse(model, "tools")
    assert parsed.value == CardDraft(**DRAFT) and parsed.raw == arguments
    (tool,) = seen[0]["tools"]
    assert tool["function"]["name"] == "CardDraft" and tool["function"]["parameters"]["additionalProperties"] is False
    assert seen[0]["tool_choice"] == {"type": "function", "function": {"name": "CardDraft"}}
    assert "response_format" not in seen[0]


def test_tools_mode_reads_the_content_when_the_server_answered_without_a_call() -> None:
    model, _ = model_answering(lambda request: content(json.dumps(DRAFT)))
    assert parse(model, "tools").value.headline == "Decode 2.5x faster"


def test_json_object_mode_sends_the_schema_beside_the_type() -> None:
    model, seen = model_answering(lambda request: content(f"```json\n{json.dumps(DRAFT)}\n```"))
    assert parse(model, "json_object").value.verdict == "skim"
    assert seen[0]["response_format"]["type"] == "json_object"
    assert seen[0]["response_format"]["schema"]["properties"]["verdict"]["enum"] == ["skip", "skim", "read"]


def test_text_mode_sends_no_format_and_reads_the_json_out_of_the_answer() -> None:
    answer = f"<think>A card with {{headline}}.</think>\nHere:\n```json\n{json.dumps(DRAFT)}\n```"
    model, seen = model_answering(lambda request: content(answer))
    parsed = parse(model, "text")
    assert parsed.value == CardDraft(**DRAFT) and json.loads(parsed.raw) == DRAFT
    assert "response_format" not in seen[0] and "tools" not in seen[0]


def test_an_answer_with_no_card_in_it_is_bad_output_in_every_mode() -> None:
    for mode in ("json_schema", "json_object", "text"):
        model, _ = model_answering(lambda request: content("I'd rather not."))
        with pytest.raises(ModelBadOutput):
            parse(model, mode)


# -- sampling --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base_url", "field"),
    [
        (None, "max_completion_tokens"),
        ("https://api.openai.com/v1", "max_completion_tokens"),
        ("https://acme.openai.azure.com/openai/v1/", "max_completion_tokens"),
        ("http://127.0.0.1:8080/v1", "max_tokens"),
        ("http://vllm.internal:8000/v1", "max_tokens"),
        ("https://openai.example.com/v1", "max_tokens"),  # a proxy's host that only looks like it
    ],
)
def test_the_answer_cap_is_named_as_the_endpoint_names_it(base_url: str | None, field: str) -> None:
    assert limit_field(base_url) == field


def test_the_configured_cap_temperature_and_seed_are_sent_with_every_request() -> None:
    sampling = Sampling(max_output_tokens=800, limit_field="max_tokens", temperature=0.0, seed=7)
    model, seen = model_answering(lambda request: content(json.dumps(DRAFT)), sampling)
    parse(model, "tools")
    model.complete(MESSAGES, deadline())
    for body in seen:
        assert (body["max_tokens"], body["temperature"], body["seed"]) == (800, 0.0, 7)
        assert "max_completion_tokens" not in body
    plain, bare = model_answering(lambda request: content(json.dumps(DRAFT)))
    parse(plain, "json_schema")
    assert not {"max_tokens", "max_completion_tokens", "temperature", "seed"} & set(bare[0])


def test_without_a_system_role_the_instructions_open_the_first_user_message() -> None:
    sampling = Sampling(system_role=False)
    model, seen = model_answering(lambda request: content(json.dumps(DRAFT)), sampling)
    parse(model, "json_object")
    messages = seen[0]["messages"]
    assert [message["role"] for message in messages] == ["user"]
    system, user = (message.content for message in MESSAGES)
    assert messages[0]["content"] == f"{system}\n\n{user}"


def _schema_sent(body: dict[str, Any]) -> dict[str, Any]:
    if "tools" in body:
        return body["tools"][0]["function"]["parameters"]
    format_ = body["response_format"]
    return format_["json_schema"]["schema"] if format_["type"] == "json_schema" else format_["schema"]


@pytest.mark.parametrize(
    ("mode", "field", "bounded"),
    [
        ("tools", "max_tokens", True),  # a local server: its grammar holds the card to size
        ("json_object", "max_tokens", True),
        ("json_schema", "max_tokens", False),  # strict: the length keywords are refused
        ("tools", "max_completion_tokens", False),  # OpenAI's API, strict function calling
    ],
)
def test_length_bounds_go_only_where_they_are_taken(mode: OutputMode, field: LimitField, bounded: bool) -> None:
    model, seen = model_answering(lambda request: content(json.dumps(DRAFT)), Sampling(limit_field=field))
    parse(model, mode)
    schema = _schema_sent(seen[0])
    headline, why = schema["properties"]["headline"], schema["properties"]["why"]
    if bounded:
        assert (headline["maxLength"], why["maxItems"], why["items"]["maxLength"]) == (120, 3, 280)
    else:
        assert "maxLength" not in json.dumps(schema) and "maxItems" not in json.dumps(schema)


# -- refusals of a mode ----------------------------------------------------------------------------


def test_llama_cpp_python_s_500_for_json_schema_is_a_refusal_asked_once() -> None:
    model, seen = model_answering(lambda request: httpx2.Response(500, json=LLAMA_CPP_JSON_SCHEMA_500))
    with pytest.raises(ModeRefused) as raised:
        parse(model, "json_schema", retries=2)
    assert len(seen) == 1  # a 500, but asking again cannot change it
    assert raised.value.mode == "json_schema" and raised.value.status == 500
    assert "'response_format', 'type'" in raised.value.message
    assert isinstance(raised.value, ModelRejected)


@pytest.mark.parametrize("mode", ["json_schema", "json_object", "tools"])
def test_openai_style_400_naming_the_mode_s_parameter_is_a_refusal(mode: OutputMode) -> None:
    model, seen = model_answering(lambda request: httpx2.Response(400, json=openai_refusal(mode)))
    with pytest.raises(ModeRefused) as raised:
        parse(model, mode)
    assert raised.value.mode == mode and len(seen) == 1


def test_fastapi_s_own_422_naming_response_format_is_a_refusal() -> None:
    detail = {"detail": [{"type": "literal_error", "loc": ["body", "response_format", "type"], "msg": "…"}]}
    model, _ = model_answering(lambda request: httpx2.Response(422, json=detail))
    with pytest.raises(ModeRefused):
        parse(model, "json_schema")


def test_a_500_that_names_no_parameter_is_an_outage_and_retried() -> None:
    body = {"error": {"message": "Injected failure 500", "type": "server_error", "param": None, "code": None}}
    model, seen = model_answering(lambda request: httpx2.Response(500, json=body, headers={"retry-after-ms": "1"}))
    with pytest.raises(ModelUnavailable):
        parse(model, "json_schema", retries=2)
    assert len(seen) == 3


def test_a_refusal_of_another_field_does_not_refuse_this_mode() -> None:
    model, _ = model_answering(lambda request: httpx2.Response(400, json=openai_refusal("tools")))
    with pytest.raises(ModelRejected) as raised:
        parse(model, "json_schema")
    assert not isinstance(raised.value, ModeRefused)


# -- prompts longer than the window ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "window", "prompt"),
    [
        (context_error(8192, 9000, None, "openai"), 8192, 9000),
        (context_error(4096, 5100, 600, "openai"), 4096, 5100),
        (context_error(2048, 2300, None, "llama-cpp"), 2048, 2300),
        (context_error(2048, 2300, 512, "llama-cpp"), 2048, 2300),
        (
            {  # llama.cpp's llama-server (tools/server: exceed_context_size_error)
                "error": {
                    "code": 400,
                    "message": (
                        "request (5000 tokens) exceeds the available context size (4096 tokens), try increasing it"
                    ),
                    "type": "exceed_context_size_error",
                    "n_prompt_tokens": 5000,
                    "n_ctx": 4096,
                }
            },
            4096,
            5000,
        ),
    ],
)
def test_a_prompt_too_long_gives_the_server_s_figures(body: dict[str, Any], window: int, prompt: int | None) -> None:
    model, seen = model_answering(lambda request: httpx2.Response(400, json=body))
    with pytest.raises(ContextTooLong) as raised:
        parse(model, "json_schema")
    assert (raised.value.window, raised.value.prompt_tokens) == (window, prompt)
    assert len(seen) == 1
    with pytest.raises(ContextTooLong):  # plain answers learn it too
        model.complete(MESSAGES, deadline())


# -- the window in the model list ------------------------------------------------------------------


def test_vllm_s_max_model_len_is_the_window_and_others_give_none() -> None:
    listed = {
        "object": "list",
        "data": [
            {"id": "other", "object": "model", "created": 0, "owned_by": "vllm", "max_model_len": 131072},
            {"id": "test-model", "object": "model", "created": 0, "owned_by": "vllm", "max_model_len": 8192},
        ],
    }
    model, seen = model_answering(lambda request: httpx2.Response(200, json=listed))
    assert model.context_window(deadline()) == 8192
    assert seen == [{"path": "/v1/models"}]
    llama_cpp = {
        "object": "list",
        "data": [{"id": "test-model", "object": "model", "owned_by": "me", "permissions": []}],
    }
    bare, _ = model_answering(lambda request: httpx2.Response(200, json=llama_cpp))
    assert bare.context_window(deadline()) is None
