"""ScriptedModel: a ModelClient (bot/ports/model.py) in the test's own process, no HTTP.

It answers from a queue the test fills — a parsed draft, a raw string (JSON for `parse`, text
for `complete`), or an exception to raise — and records every call's messages, so a unit test
asserts on what the model was asked. Each reply may take simulated time on a Clock
(devkit/clocks.py) that the service under test shares; like the real adapter it asks nothing
once its Deadline is spent.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ValidationError

from bot.core.deadline import Deadline
from bot.core.usage import Tally, Usage
from bot.errors import ModelBadOutput
from bot.llm.extract import json_object_text
from bot.models import Message, OutputMode
from bot.ports import Parsed, Schema
from devkit.clocks import Clock

Reply = BaseModel | str | Exception


@dataclass(frozen=True)
class Call:
    """One request the model received."""

    kind: Literal["parse", "complete"]
    messages: tuple[Message, ...]
    schema: type[BaseModel] | None
    seconds_left: float  # of the caller's budget, when the request was made
    mode: OutputMode | None = None  # how a structured answer was asked for (parse only)

    @property
    def last(self) -> str:
        """The last message's text: the question, or the follow-up that names unsupported claims."""
        return self.messages[-1].content if self.messages else ""


@dataclass(frozen=True)
class _Scripted:
    reply: Reply
    takes: float


def scripted_usage(messages: Sequence[Message], reply: BaseModel | str) -> Usage:
    """What a scripted answer "spent": 4 characters a token, as the fake OpenAI server counts."""
    answer = reply if isinstance(reply, str) else reply.model_dump_json()
    return Usage(sum(len(message.content) for message in messages) // 4, max(1, len(answer) // 4))


class ScriptedModel:
    def __init__(
        self, *replies: Reply, model: str = "scripted-model", clock: Clock | None = None, window: int | None = None
    ) -> None:
        self.model = model
        self.clock = clock or Clock()
        self.calls: list[Call] = []
        self.window = window  # what context_window answers, as an endpoint's model list would
        self.window_asked = 0
        self._queue: deque[_Scripted] = deque()
        self.then(*replies)

    def then(self, *replies: Reply, takes: float = 0.0) -> ScriptedModel:
        """Queue replies, each taking `takes` simulated seconds before it comes (or is raised)."""
        self._queue.extend(_Scripted(reply, takes) for reply in replies)
        return self

    @property
    def pending(self) -> int:
        """Replies queued and not yet asked for."""
        return len(self._queue)

    def parse(
        self,
        messages: Sequence[Message],
        schema: type[Schema],
        deadline: Deadline,
        mode: OutputMode = "json_schema",
        tally: Tally | None = None,
    ) -> Parsed[Schema]:
        reply = self._next("parse", messages, schema, deadline, mode, tally)
        if isinstance(reply, str):
            try:
                raw = json_object_text(reply)  # as the adapter reads an answer
                return Parsed(schema.model_validate_json(raw), raw)
            except ValidationError as exc:
                raise ModelBadOutput("the scripted answer does not match the schema") from exc
        if not isinstance(reply, schema):
            raise TypeError(f"a {type(reply).__name__} was scripted where a {schema.__name__} was asked for")
        return Parsed(reply, reply.model_dump_json())

    def complete(self, messages: Sequence[Message], deadline: Deadline, tally: Tally | None = None) -> str:
        reply = self._next("complete", messages, None, deadline, None, tally)
        return reply if isinstance(reply, str) else reply.model_dump_json()

    def context_window(self, deadline: Deadline) -> int | None:
        self.window_asked += 1
        return self.window

    def _next(
        self,
        kind: Literal["parse", "complete"],
        messages: Sequence[Message],
        schema: type[BaseModel] | None,
        deadline: Deadline,
        mode: OutputMode | None = None,
        tally: Tally | None = None,
    ) -> BaseModel | str:
        left = deadline.for_attempt()  # ModelOutOfTime, as the adapter raises it: no request made
        self.calls.append(Call(kind, tuple(messages), schema, left, mode))
        if not self._queue:
            raise AssertionError(f"ScriptedModel: call {len(self.calls)} ({kind}) has no reply queued")
        scripted = self._queue.popleft()
        self.clock.now += scripted.takes
        if isinstance(scripted.reply, Exception):
            raise scripted.reply  # an error response: nothing spent
        if tally is not None:
            tally.add(self.model, scripted_usage(messages, scripted.reply))
        return scripted.reply
