"""OpenAIModel: the ModelClient port (bot/ports/model.py) over the openai package's Chat
Completions, for OpenAI and every server that speaks its API (vLLM, Ollama, llama.cpp,
llama-cpp-python, LiteLLM, Azure).

Speaks the SDK and nothing else: each output mode on the wire (a strict json_schema, a forced
function call, json_object with the schema, plain text), requests within the caller's Deadline
(llm/retry.py), the SDK's errors raised as ours (llm/errors.py, llm/refusals.py). Which mode to
try and what to make of the answer is the services' (cards/writer.py, questions/answerer.py).
A stop (`cancel()`, Ctrl-C) cuts the requests in flight (llm/connections.py); a request cut so, or
asked for after it, raises Stopped, never a model error.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeVar
from urllib.parse import urlsplit

import openai
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionFunctionToolParam,
    ChatCompletionMessageFunctionToolCall,
    ChatCompletionMessageParam,
    ChatCompletionNamedToolChoiceParam,
)
from openai.types.chat.completion_create_params import ResponseFormat
from pydantic import ValidationError

from bot.core.deadline import DEFAULT_TIMEOUT, Deadline
from bot.core.strings.text import estimate_tokens
from bot.core.usage import Tally, Usage
from bot.errors import ModelBadOutput, ModelFiltered, ModelTimeout, Stopped
from bot.llm.connections import Connections, Transport
from bot.llm.errors import mapped_errors
from bot.llm.extract import json_object_text
from bot.llm.refusals import mode_refusal
from bot.llm.retry import call_within
from bot.models import Message, OutputMode
from bot.ops import telemetry
from bot.ports import Parsed, Schema
from bot.settings import DEFAULT_OPENAI_URL

log = logging.getLogger(__name__)

# The function a card is asked for through in "tools" mode; its parameters are the schema.
TOOL_DESCRIPTION = "Record the answer, its fields as the instructions describe them."
# The model list is a small page: a server that cannot give it in this long has no window to tell.
LIST_SECONDS = 10.0
# OpenAI's own API, and Azure's deployments of its models: max_tokens is deprecated there and
# refused by the reasoning models (o-series), which take max_completion_tokens.
OPENAI_HOSTS = ("api.openai.com",)
OPENAI_HOST_SUFFIXES = (".openai.azure.com",)

LimitField = Literal["max_completion_tokens", "max_tokens"]
T = TypeVar("T")


class _ClosingHttpClient(openai.DefaultHttpxClient):
    """The SDK's default HTTP client, closed when collected as the SDK closes its own
    (SyncHttpxClientWrapper): a client nobody closed must not leave its sockets open."""

    def __del__(self) -> None:
        if not self.is_closed:
            with contextlib.suppress(Exception):
                self.close()


def build_openai(
    api_key: str,
    base_url: str | None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    max_retries: int = 0,
    connections: Connections | None = None,
) -> openai.OpenAI:
    # Always pass the URL: left to itself the SDK reads OPENAI_BASE_URL, and an empty one (an
    # unfilled line in a compose .env file) breaks every call. No SDK retries by default: they
    # would give each attempt the whole timeout again; cards and answers retry within one
    # budget instead (llm/retry.py), and `timeout` bounds any call made without one.
    # With `connections`, over connections a stop can cut (llm/connections.py).
    http_client = _ClosingHttpClient(transport=Transport(connections)) if connections is not None else None
    return openai.OpenAI(
        api_key=api_key,
        base_url=base_url or DEFAULT_OPENAI_URL,
        timeout=timeout,
        max_retries=max_retries,
        http_client=http_client,
    )


def limit_field(base_url: str | None) -> LimitField:
    """The request field that caps the answer's tokens at `base_url`.

    OpenAI's API wants max_completion_tokens; every other server knows max_tokens (vLLM takes
    both, llama-cpp-python and Ollama only max_tokens, and llama-cpp-python silently drops fields
    it does not know, so the other name would leave the answer uncapped).
    """
    host = (urlsplit(base_url or DEFAULT_OPENAI_URL).hostname or "").lower()
    openai_own = host in OPENAI_HOSTS or host.endswith(OPENAI_HOST_SUFFIXES)
    return "max_completion_tokens" if openai_own else "max_tokens"


@dataclass(frozen=True)
class Sampling:
    """What every request carries besides the messages (config: [models."NAME"])."""

    max_output_tokens: int | None = None
    limit_field: LimitField = "max_tokens"
    temperature: float | None = None
    seed: int | None = None
    # False for chat templates that drop the system message (llama-cpp-python's "gemma", Gemma's
    # own): the instructions then open the first user message, as Gemma's template does itself.
    system_role: bool = True


class OpenAIModel:
    def __init__(
        self,
        client: openai.OpenAI,
        model: str,
        sampling: Sampling | None = None,
        connections: Connections | None = None,
    ) -> None:
        self._client = client
        self.model = model
        self._sampling = sampling or Sampling()
        self._connections = connections  # the client's own, when build_openai was given them

    def cancel(self) -> None:
        """Cut every request in flight and refuse new ones (a stopped run: Ctrl-C in a terminal).

        The deadlines of the requests cut must be stopped first, so that they end as Stopped
        instead of being retried or taken for the model's failure."""
        if self._connections is not None:
            self._connections.cancel()

    def parse(
        self,
        messages: Sequence[Message],
        schema: type[Schema],
        deadline: Deadline,
        mode: OutputMode = "json_schema",
        tally: Tally | None = None,
    ) -> Parsed[Schema]:
        wire = _wire(messages, system_role=self._sampling.system_role)
        # The strict schema (every field required, no others), as the SDK's own .parse sends it.
        tool = openai.pydantic_function_tool(schema, description=TOOL_DESCRIPTION)
        with _stop_wins(deadline), mapped_errors(mode):
            completion = call_within(
                deadline,
                self._client,
                lambda client: _timed("card", lambda: self._create(client, wire, mode, tool)),
                final=lambda exc: mode_refusal(exc, mode) is not None,
            )
            # Counted before the answer is read: an answer cut off or not a card was paid for too.
            self._count(completion, tally)
            text = _answer_text(completion, mode)
        raw = json_object_text(text)
        try:
            return Parsed(schema.model_validate_json(raw), raw)
        except ValidationError as exc:
            # --debug shows what the model wrote, its ends at least: why a small model's card fails
            # (a string cut off, prose around the object).
            log.debug("%s answer of %d characters not a card: %r … %r", mode, len(raw), raw[:300], raw[-200:])
            first = exc.errors()[0] if exc.errors() else None
            where = ".".join(str(part) for part in first["loc"]) if first else ""
            why = f" ({where}: {first['msg']})" if first else ""
            raise ModelBadOutput(f"the model's answer does not match the schema{why}") from exc

    def _create(
        self,
        client: openai.OpenAI,
        wire: list[ChatCompletionMessageParam],
        mode: OutputMode,
        tool: ChatCompletionFunctionToolParam | None = None,
    ) -> ChatCompletion:
        """One Chat Completions request; `tool` carries the schema for every mode but text."""
        response_format: ResponseFormat | openai.Omit = openai.omit
        tools: list[ChatCompletionFunctionToolParam] | openai.Omit = openai.omit
        tool_choice: ChatCompletionNamedToolChoiceParam | openai.Omit = openai.omit
        extra_body: dict[str, object] | None = None
        if tool is not None:
            name, schema = tool["function"]["name"], tool["function"].get("parameters", {})
            if mode == "json_schema" or self._sampling.limit_field == "max_completion_tokens":
                # Strict structured output (OpenAI's, and json_schema anywhere) refuses length keywords.
                schema = _without_lengths(schema)
                tool = {**tool, "function": {**tool["function"], "parameters": schema}}
            if mode == "json_schema":
                response_format = {
                    "type": "json_schema",
                    "json_schema": {"name": name, "schema": schema, "strict": True},
                }
            elif mode == "tools":
                tools = [tool]
                # Named, not "required": llama-cpp-python holds the arguments to the schema only
                # for a named tool_choice (llama_chat_format.py, chat_formatter_to_chat_completion_handler).
                tool_choice = {"type": "function", "function": {"name": name}}
            elif mode == "json_object":
                # The schema beside the type is how llama-cpp-python and llama.cpp hold JSON mode to
                # it (a grammar made from the schema); OpenAI-style servers ignore it. The SDK's type
                # has no such key, hence the body's extra.
                extra_body = {"response_format": {"type": "json_object", "schema": schema}}
        sampling = self._sampling
        limit = sampling.max_output_tokens
        return client.chat.completions.create(
            model=self.model,
            messages=wire,
            response_format=response_format,
            tools=tools,
            tool_choice=tool_choice,
            extra_body=extra_body,
            max_tokens=_given(limit if sampling.limit_field == "max_tokens" else None),
            max_completion_tokens=_given(limit if sampling.limit_field == "max_completion_tokens" else None),
            temperature=_given(sampling.temperature),
            seed=_given(sampling.seed),
        )

    def _count(self, completion: ChatCompletion, tally: Tally | None) -> None:
        """The response's `usage` (OpenAI's, vLLM's and llama-cpp-python's alike) into `tally`.

        A failed attempt (a status error, a refused mode, a timeout) has no usage: none is spent.
        A server that reports none leaves the tally as it was.
        """
        usage = completion.usage
        if tally is not None and usage is not None:
            tally.add(self.model, Usage(usage.prompt_tokens or 0, usage.completion_tokens or 0))

    def complete(self, messages: Sequence[Message], deadline: Deadline, tally: Tally | None = None) -> str:
        wire = _wire(messages, system_role=self._sampling.system_role)
        with _stop_wins(deadline), mapped_errors():
            completion = call_within(
                deadline, self._client, lambda client: _timed("answer", lambda: self._create(client, wire, "text"))
            )
        self._count(completion, tally)
        content = completion.choices[0].message.content if completion.choices else None
        return content or ""

    def complete_streaming(
        self,
        messages: Sequence[Message],
        deadline: Deadline,
        tally: Tally | None,
        on_piece: Callable[[str], bool],
    ) -> str:
        """`complete` with the answer streamed (`stream=True`): each delta's content goes to
        `on_piece` as it arrives. When `on_piece` returns False the stream is closed, which closes
        the connection, and a server stops generating when its client goes (vLLM, OpenAI).

        Only opening the stream is retried (call_within): once text has been shown, asking again
        would show it twice. Usage comes in a last chunk with empty `choices` when
        `stream_options.include_usage` is taken (OpenAI, vLLM, llama.cpp); a server that ignores
        it reports none, and none is counted, as with `complete`. A stream closed before its end
        (stopped, or out of time) never gets that chunk: its tokens are estimated, so stopping
        answers is no way around the daily budget.

        The deadline covers the whole answer, not each read: a model that writes slowly enough
        never times a read out (llama.cpp on two cores wrote one answer for 13 minutes). Past it,
        the stream is closed and what was written stands; with nothing written, ModelTimeout.
        """
        wire = _wire(messages, system_role=self._sampling.system_role)
        written: list[str] = []
        counted = closed = False
        with _stop_wins(deadline), mapped_errors():
            stream = call_within(
                deadline, self._client, lambda client: _timed("answer", lambda: self._create_stream(client, wire))
            )
            with stream:
                for chunk in stream:
                    if chunk.usage is not None and tally is not None:
                        tally.add(self.model, Usage(chunk.usage.prompt_tokens or 0, chunk.usage.completion_tokens or 0))
                        counted = True
                    piece = chunk.choices[0].delta.content if chunk.choices else None
                    if piece:
                        written.append(piece)
                        if not on_piece(piece):
                            closed = True
                            break  # leaving `with stream` closes the response: the model call stops
                    if deadline.left() <= 0:
                        if not written:
                            raise ModelTimeout(f"no words within the model's {deadline.budget.seconds:g} s")
                        log.warning("answer cut at the model's %g s: it was still writing", deadline.budget.seconds)
                        closed = True
                        break
        if closed and not counted and tally is not None:
            prompt = sum(estimate_tokens(str(message.get("content") or "")) for message in wire)
            tally.add(self.model, Usage(prompt, estimate_tokens("".join(written))))
        return "".join(written)

    def _create_stream(
        self, client: openai.OpenAI, wire: list[ChatCompletionMessageParam]
    ) -> openai.Stream[ChatCompletionChunk]:
        sampling = self._sampling
        limit = sampling.max_output_tokens
        return client.chat.completions.create(
            model=self.model,
            messages=wire,
            stream=True,
            stream_options={"include_usage": True},
            max_tokens=_given(limit if sampling.limit_field == "max_tokens" else None),
            max_completion_tokens=_given(limit if sampling.limit_field == "max_completion_tokens" else None),
            temperature=_given(sampling.temperature),
            seed=_given(sampling.seed),
        )

    def context_window(self, deadline: Deadline) -> int | None:
        """`max_model_len` of this model in the endpoint's model list (vLLM gives it); else None.

        llama-cpp-python's list names its models only; llama.cpp's gives meta.n_ctx_train, the
        window the model was trained with, not the server's (-c, 4096 by default), so it is not read.
        """
        left = deadline.for_attempt()
        with _stop_wins(deadline), mapped_errors():
            page = self._client.with_options(timeout=min(left, LIST_SECONDS), max_retries=0).models.list()
        for entry in page.data:
            if entry.id == self.model:
                value = (entry.model_extra or {}).get("max_model_len")
                return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
        return None

    def ping(self) -> None:
        """One request that needs a valid key and nothing else (`prdigest doctor`); no retries."""
        with mapped_errors():
            self._client.models.list()

    def close(self) -> None:
        self._client.close()


# Schema keywords that bound a grammar's output (CardDraft's), and that strict modes refuse.
LENGTH_KEYWORDS = frozenset({"maxLength", "maxItems"})


def _without_lengths(schema: Any) -> Any:
    """The JSON schema without LENGTH_KEYWORDS, at any depth."""
    if isinstance(schema, dict):
        return {key: _without_lengths(value) for key, value in schema.items() if key not in LENGTH_KEYWORDS}
    if isinstance(schema, list):
        return [_without_lengths(value) for value in schema]
    return schema


@contextlib.contextmanager
def _stop_wins(deadline: Deadline) -> Iterator[None]:
    """A request that fails once its run is stopped failed because of the stop (its connection
    was cut: llm/connections.py), however it failed: Stopped, never a model error."""
    try:
        yield
    except Exception as exc:
        if deadline.stopped and not isinstance(exc, Stopped):
            raise Stopped from exc
        raise


def _timed(kind: str, request: Callable[[], T]) -> T:
    """One request to the endpoint (each retry and each mode tried is one), counted and timed
    whatever its outcome: `parse` asks for cards, `complete` for answers."""
    start = time.monotonic()
    try:
        return request()
    finally:
        telemetry.count("model_calls_total", kind=kind)
        telemetry.observe("model_latency_seconds", time.monotonic() - start, kind=kind)


def _given(value: T | None) -> T | openai.Omit:
    """A request field to send, or left out (None in the config: the server's default)."""
    return openai.omit if value is None else value


def _answer_text(completion: ChatCompletion, mode: OutputMode) -> str:
    """What the model wrote: the function call's arguments in tools mode, else the content."""
    choice = completion.choices[0] if completion.choices else None
    if choice is None:
        raise ModelBadOutput("the model gave no answer")
    if choice.finish_reason == "length":
        raise openai.LengthFinishReasonError(completion=completion)
    if choice.finish_reason == "content_filter":
        raise openai.ContentFilterFinishReasonError(completion=completion)
    message = choice.message
    if message.refusal:
        raise ModelFiltered("the model declined to answer")
    if mode == "tools":
        for call in message.tool_calls or ():
            if isinstance(call, ChatCompletionMessageFunctionToolCall):
                return call.function.arguments
    return message.content or ""


def _wire(messages: Sequence[Message], *, system_role: bool = True) -> list[ChatCompletionMessageParam]:
    if not system_role:
        messages = _folded(messages)
    wire: list[ChatCompletionMessageParam] = []
    for message in messages:
        match message.role:
            case "system":
                wire.append({"role": "system", "content": message.content})
            case "user":
                wire.append({"role": "user", "content": message.content})
            case "assistant":
                wire.append({"role": "assistant", "content": message.content})
    return wire


def _folded(messages: Sequence[Message]) -> list[Message]:
    """The system messages put at the start of the first user message, for a template without them."""
    system = "\n\n".join(message.content for message in messages if message.role == "system")
    rest = [message for message in messages if message.role != "system"]
    if not system:
        return rest
    for index, message in enumerate(rest):
        if message.role == "user":
            rest[index] = Message("user", f"{system}\n\n{message.content}")
            return rest
    return [Message("user", system), *rest]
