"""Conversations as values: a turn of a thread with the bot (kept so follow-ups have their
context), a question asked in one, a message of a request to the model, and the ways a
structured answer is asked.

No model client here: llm/ speaks these to the endpoint, core/ and the features compose them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.models.note import Language

# How a structured answer is asked of the model, strongest first: a strict JSON schema, a function
# call whose parameters are the schema, JSON mode, plain text. Servers differ in what they take
# (cards/writer.py tries them in this order; llm/openai_model.py speaks each).
OutputMode = Literal["json_schema", "tools", "json_object", "text"]
OUTPUT_MODES: tuple[OutputMode, ...] = ("json_schema", "tools", "json_object", "text")


@dataclass(frozen=True)
class Turn:
    """One message of a conversation with the bot, kept so follow-ups have their context."""

    role: Literal["user", "bot"]
    text: str
    pr: str | None = None  # "owner/repo#N" the turn was about


@dataclass(frozen=True)
class Question:
    """A question asked in a conversation, as the answerer (bot/ports/model.py Answerer) takes it:
    its text, the thread's earlier turns it follows up (those the asker may see), and the language
    it is answered in."""

    text: str
    history: tuple[Turn, ...]
    language: Language


@dataclass(frozen=True)
class Message:
    """One message of a request to the model, in the roles every chat model takes."""

    role: Literal["system", "user", "assistant"]
    content: str
