"""What services need from the outside, as protocols. Adapters implement them; services
import nothing else from the outside world (no github, openai, redis or slack here)."""

from __future__ import annotations

from typing import Protocol

from bot.models import Card, DigestItem, Language, PRListing, PRRef, PRSnapshot, Turn, Window


class Source(Protocol):
    def list_merged(self, repo: str, window: Window) -> list[PRListing]: ...

    def get_listing(self, ref: PRRef) -> PRListing: ...

    def fetch(self, listing: PRListing) -> PRSnapshot: ...

    def is_private(self, repo: str) -> bool: ...


class CardWriter(Protocol):
    """A model that writes cards (llm.summarizer.Summarizer)."""

    model: str
    prompt_version: str

    def card(self, snapshot: PRSnapshot, language: Language) -> Card: ...


class Answerer(Protocol):
    """A model that answers questions (llm.answerer.Answerer)."""

    def answer_pr(
        self, snapshot: PRSnapshot, card: Card, question: str, history: list[Turn], language: Language
    ) -> str: ...

    def answer_digest(
        self,
        items: tuple[DigestItem, ...],
        paths: dict[str, tuple[str, ...]],
        question: str,
        history: list[Turn],
        language: Language,
    ) -> str: ...
