"""The model-side ports: what services need of a chat model (ModelClient, StreamingModel, and
`Parsed`, `Schema` for structured answers), and what CardService and QAService need of the model
services (CardWriter, Answerer; cards/writer.py, questions/answerer.py), so those two can be
tested with fakes that return fixed cards and answers. AnswerSink is where an answer is shown
while it is written. Protocols and values only: no vendor, no service, no settings here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from bot.core.deadline import Deadline
from bot.core.usage import Tally
from bot.models import Card, DigestItem, Language, Message, OutputMode, PRSnapshot, Question

Schema = TypeVar("Schema", bound=BaseModel)


@dataclass(frozen=True)
class Parsed(Generic[Schema]):
    """A structured answer: the value, and the JSON as the model wrote it (for a follow-up turn)."""

    value: Schema
    raw: str


class ModelClient(Protocol):
    """A chat model (llm.openai_model.OpenAIModel; devkit.scripted.ScriptedModel in tests).

    Every call keeps within `deadline`: it raises ModelOutOfTime without asking when too little
    time is left (Deadline.for_attempt), and retries quick failures only while time remains.
    Failures are raised as SummarizerError subclasses (bot/errors.py), never as a library's.
    Every response that reports its `usage` adds it to `tally` (when given), a response that is
    then found unusable too: those tokens were spent.
    """

    model: str  # the model's name, part of every card's cache key

    def parse(
        self,
        messages: Sequence[Message],
        schema: type[Schema],
        deadline: Deadline,
        mode: OutputMode = "json_schema",
        tally: Tally | None = None,
    ) -> Parsed[Schema]:
        """An answer that fills `schema`, asked for in `mode`; ModelBadOutput when it does not.

        ModeRefused when the endpoint does not take `mode` (asked once: a refusal is not retried),
        ContextTooLong when the prompt does not fit the model's window.
        """
        ...

    def complete(self, messages: Sequence[Message], deadline: Deadline, tally: Tally | None = None) -> str:
        """A plain-text answer, "" when the model said nothing."""
        ...

    def context_window(self, deadline: Deadline) -> int | None:
        """The model's context window in tokens when the endpoint's model list gives it, else None."""
        ...


class CardWriter(Protocol):
    """What writes a PR's card (cards.writer.ModelCardWriter)."""

    model: str
    prompt_version: str

    def card(self, snapshot: PRSnapshot, language: Language, tally: Tally | None = None) -> Card: ...


@runtime_checkable
class StreamingModel(Protocol):
    """A ModelClient that can also hand its answer over as it is written (OpenAIModel)."""

    def complete_streaming(
        self,
        messages: Sequence[Message],
        deadline: Deadline,
        tally: Tally | None,
        on_piece: Callable[[str], bool],
    ) -> str:
        """`complete`, with each piece of the text given to `on_piece` as it arrives; when
        `on_piece` returns False the request is closed (the model stops) and what came so far is
        returned. Usage is counted as `complete` counts it, where the server reports it."""
        ...


class AnswerSink(Protocol):
    """Where a model's answer is shown while it is written (questions/stream.py AnswerStream).
    Only checked sentences reach it (core/checks/sentence_release.py)."""

    def sentence(self, text: str) -> None:
        """Show `text` after what is shown already."""
        ...

    @property
    def stopped(self) -> bool:
        """The person stopped the answer: nothing more is asked of the model nor shown."""
        ...


class Answerer(Protocol):
    """What answers questions (questions.answerer.ModelAnswerer; fakes in tests).

    Streaming is optional: when a `sink` is given, an answerer that can show its answer while
    the model writes it gives the checked sentences to the sink (AnswerSink) as they come; one
    that cannot ignores the sink and only returns the answer, as it does without one.
    """

    def answer_pr(
        self,
        snapshot: PRSnapshot,
        card: Card,
        question: Question,
        tally: Tally | None = None,
        sink: AnswerSink | None = None,
    ) -> str: ...

    def answer_digest(
        self,
        items: tuple[DigestItem, ...],
        paths: dict[str, tuple[str, ...]],
        question: Question,
        tally: Tally | None = None,
        sink: AnswerSink | None = None,
    ) -> str: ...
