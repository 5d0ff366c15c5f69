"""Summarizer: one structured-output Chat Completions call per PR, validated into a Card.

With llm/answerer.py (questions), the modules that speak to the model endpoint. One card gets
one time budget (model_timeout) for all its requests, quick failures retried within it
(llm/deadline.py); whatever still fails is raised as SummarizerError and the caller falls back
to a heuristic card. Model output is never trusted as it comes: it is parsed against the
schema, clipped to the card's limits, then checked for figures and identifiers the PR does not
state: asked for once more, then cut out (DESIGN.md §1).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, replace
from typing import Literal

import openai
from openai.types.chat import ChatCompletionMessageParam
from pydantic import BaseModel, ConfigDict, ValidationError

from bot.core import heuristic
from bot.core.context import build_context
from bot.core.cutting import without_claims
from bot.core.faithfulness import Check, SourceText, check_card_text, check_field
from bot.core.prompts import (
    CAVEATS_MAX,
    HEADLINE_MAX,
    PROMPT_VERSION,
    WATCH_MAX,
    WHY_MAX,
    card_overhead,
    card_prompt,
    unsupported_prompt,
)
from bot.core.text import estimate_tokens
from bot.errors import SummarizerError
from bot.llm.deadline import DEFAULT_RETRIES, DEFAULT_TIMEOUT, Budget, Deadline
from bot.models import Card, Coverage, Language, PRSnapshot

log = logging.getLogger(__name__)

OPENAI_URL = "https://api.openai.com/v1"
POINT_MAX = 280
MINUTES_MAX = 240
# Room left for the model's answer when the budget is counted (cards are short).
OUTPUT_RESERVE = 600
# A headline shorter than this once its unsupported figures are cut says too little: the PR's
# title (as the heuristic card words it) stands in.
MIN_HEADLINE_CHARS = 12
UNTITLED = "(untitled)"


class CardDraft(BaseModel):
    """The schema the model must fill (strict: every field required, nothing else)."""

    model_config = ConfigDict(extra="forbid")

    headline: str
    verdict: Literal["skip", "skim", "read"]
    minutes: int
    why: list[str]
    caveats: list[str]
    watch: list[str]


def build_openai(
    api_key: str, base_url: str | None, *, timeout: float = DEFAULT_TIMEOUT, max_retries: int = 0
) -> openai.OpenAI:
    # Always pass the URL: left to itself the SDK reads OPENAI_BASE_URL, and an empty one (an
    # unfilled line in a compose .env file) breaks every call. No SDK retries by default: they
    # would give each attempt the whole timeout again; cards and answers retry within one
    # budget instead (llm/deadline.py), and `timeout` is that budget (Budget.of reads it).
    return openai.OpenAI(api_key=api_key, base_url=base_url or OPENAI_URL, timeout=timeout, max_retries=max_retries)


def clip(text: str, limit: int) -> str:
    """Collapse whitespace and cut at a word boundary, marking the cut."""
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def _points(items: list[str], limit: int) -> tuple[str, ...]:
    cleaned = [clip(item, POINT_MAX) for item in items]
    return tuple(item for item in cleaned if item)[:limit]


def card_from_draft(draft: CardDraft, language: Language, coverage: Coverage) -> Card:
    headline = clip(draft.headline, HEADLINE_MAX[language])
    if not headline:
        raise SummarizerError("the model returned an empty headline")
    return Card(
        headline=headline,
        verdict=draft.verdict,
        minutes=1 if draft.verdict == "skip" else min(max(draft.minutes, 1), MINUTES_MAX),
        why=_points(draft.why, WHY_MAX),
        caveats=_points(draft.caveats, CAVEATS_MAX),
        watch=_points(draft.watch, WATCH_MAX),
        source="llm",
        coverage=coverage,
        language=language,
    )


@dataclass(frozen=True)
class _Answer:
    card: Card
    raw: str  # the model's JSON as it came, for the follow-up conversation


def _points_of(card: Card) -> tuple[str, ...]:
    return (*card.why, *card.caveats, *card.watch)


def check_card(card: Card, source: SourceText) -> Check:
    return check_card_text(card.headline, _points_of(card), source)


def without_unsupported(card: Card, check: Check, title: str, source: SourceText) -> Card:
    """The card with its unsupported claims cut from the headline and its unsupported points dropped."""
    headline = without_claims(card.headline, check.headline.unsupported)
    # A cut that leaves a stub, or that could not remove a claim as written, gives way to the title.
    if len(headline) < MIN_HEADLINE_CHARS or not check_field(headline, source).ok:
        headline = heuristic.headline(title) or headline or UNTITLED
    kept = {field.text for field in check.points if field.ok}
    return replace(
        card,
        headline=headline,
        why=tuple(point for point in card.why if point in kept),
        caveats=tuple(point for point in card.caveats if point in kept),
        watch=tuple(point for point in card.watch if point in kept),
        checked=check.checked,
        dropped=len(check.unsupported),
    )


class Summarizer:
    def __init__(
        self,
        client: openai.OpenAI,
        model: str,
        *,
        token_budget: int,
        timeout: float = DEFAULT_TIMEOUT,
        retries: int = DEFAULT_RETRIES,
    ) -> None:
        self.client = client
        self.model = model
        self.prompt_version = PROMPT_VERSION
        self._token_budget = token_budget
        # One card, both its requests included, waits at most about this long for the model.
        self.budget = Budget(timeout, retries)

    def data_budget(self, language: Language) -> int:
        """Tokens left for the PR's data once the instructions are counted."""
        return max(self._token_budget - estimate_tokens(card_overhead(language)) - OUTPUT_RESERVE, 500)

    def card(self, snapshot: PRSnapshot, language: Language) -> Card:
        budget = self.data_budget(language)
        context = build_context(snapshot, budget)
        prompt = card_prompt(context.text, language)
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user},
        ]
        deadline = self.budget.start()
        first = self._ask(messages, snapshot, language, context.coverage, deadline)
        # What the model saw, and every path of the PR (a file it was not shown may still be named).
        source = SourceText.of(context.text, (change.path for change in snapshot.files))
        check = check_card(first.card, source)
        if check.ok:
            return replace(first.card, checked=check.checked)
        return self._second_answer(messages, first, check, snapshot, language, context.coverage, source, deadline)

    def _second_answer(
        self,
        messages: list[ChatCompletionMessageParam],
        first: _Answer,
        check: Check,
        snapshot: PRSnapshot,
        language: Language,
        coverage: Coverage,
        source: SourceText,
        deadline: Deadline,
    ) -> Card:
        """Ask once more, naming the unsupported claims; what is still unsupported is then cut.

        Within what is left of the card's budget: a card never waits longer for being checked.
        """
        log.info("card of %s: %d unsupported claims, asking again", snapshot.ref, len(check.unsupported))
        follow_up: list[ChatCompletionMessageParam] = [
            *messages,
            {"role": "assistant", "content": first.raw},
            {"role": "user", "content": unsupported_prompt([claim.text for claim in check.unsupported])},
        ]
        try:
            second = self._ask(follow_up, snapshot, language, coverage, deadline)
        except SummarizerError:
            # The first answer is still a card once its unsupported claims are cut.
            return without_unsupported(first.card, check, snapshot.listing.title, source)
        recheck = check_card(second.card, source)
        if recheck.ok:
            return replace(second.card, checked=recheck.checked, regenerated=True)
        card = without_unsupported(second.card, recheck, snapshot.listing.title, source)
        return replace(card, regenerated=True)

    def _ask(
        self,
        messages: list[ChatCompletionMessageParam],
        snapshot: PRSnapshot,
        language: Language,
        coverage: Coverage,
        deadline: Deadline,
    ) -> _Answer:
        try:
            completion = deadline.call(
                self.client,
                lambda client: client.chat.completions.parse(
                    model=self.model, messages=messages, response_format=CardDraft
                ),
            )
        except (openai.OpenAIError, ValidationError, SummarizerError) as exc:
            # Info, not a warning: the caller falls back and its surface says so once (a digest
            # with the model down says it in one line, not one per PR); --debug shows these.
            log.info("model call for %s failed: %s", snapshot.ref, type(exc).__name__)
            raise SummarizerError(f"the model could not summarize {snapshot.ref}") from exc
        message = completion.choices[0].message if completion.choices else None
        if message is None or message.parsed is None:
            raise SummarizerError(f"the model declined to summarize {snapshot.ref}")
        raw = message.content or message.parsed.model_dump_json()
        return _Answer(card_from_draft(message.parsed, language, coverage), raw)
