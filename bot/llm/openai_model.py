"""OpenAIModel: the ModelClient port (services/ports.py) over the openai package's Chat
Completions, for OpenAI and every server that speaks its API (vLLM, Ollama, LiteLLM, Azure).

Speaks the SDK and nothing else: requests within the caller's Deadline (llm/retry.py), the
SDK's errors raised as ours (llm/errors.py). What to ask and what to make of the answer is the
services' (services/writer.py, services/answers.py).
"""

from __future__ import annotations

from collections.abc import Sequence

import openai
from openai.types.chat import ChatCompletionMessageParam

from bot.core.deadline import DEFAULT_TIMEOUT, Deadline
from bot.errors import ModelBadOutput, ModelFiltered
from bot.llm.errors import mapped_errors
from bot.llm.retry import call_within
from bot.models import Message
from bot.services.ports import Parsed, Schema
from bot.settings import DEFAULT_OPENAI_URL


def build_openai(
    api_key: str, base_url: str | None, *, timeout: float = DEFAULT_TIMEOUT, max_retries: int = 0
) -> openai.OpenAI:
    # Always pass the URL: left to itself the SDK reads OPENAI_BASE_URL, and an empty one (an
    # unfilled line in a compose .env file) breaks every call. No SDK retries by default: they
    # would give each attempt the whole timeout again; cards and answers retry within one
    # budget instead (llm/retry.py), and `timeout` bounds any call made without one.
    return openai.OpenAI(
        api_key=api_key, base_url=base_url or DEFAULT_OPENAI_URL, timeout=timeout, max_retries=max_retries
    )


class OpenAIModel:
    def __init__(self, client: openai.OpenAI, model: str) -> None:
        self._client = client
        self.model = model

    def parse(self, messages: Sequence[Message], schema: type[Schema], deadline: Deadline) -> Parsed[Schema]:
        wire = _wire(messages)
        with mapped_errors():
            completion = call_within(
                deadline,
                self._client,
                lambda client: client.chat.completions.parse(model=self.model, messages=wire, response_format=schema),
            )
        message = completion.choices[0].message if completion.choices else None
        if message is not None and message.parsed is not None:
            return Parsed(message.parsed, message.content or message.parsed.model_dump_json())
        if message is not None and message.refusal:
            raise ModelFiltered("the model declined to answer")
        raise ModelBadOutput("the model gave no structured answer")

    def complete(self, messages: Sequence[Message], deadline: Deadline) -> str:
        wire = _wire(messages)
        with mapped_errors():
            completion = call_within(
                deadline, self._client, lambda client: client.chat.completions.create(model=self.model, messages=wire)
            )
        content = completion.choices[0].message.content if completion.choices else None
        return content or ""

    def ping(self) -> None:
        """One request that needs a valid key and nothing else (`prdigest doctor`); no retries."""
        with mapped_errors():
            self._client.models.list()

    def close(self) -> None:
        self._client.close()


def _wire(messages: Sequence[Message]) -> list[ChatCompletionMessageParam]:
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
