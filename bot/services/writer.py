"""ModelCardWriter: a PR's card from the model, and never a figure the PR does not state.

The product's rule (DESIGN.md §1): the PR's context within the token budget, one structured
request, the card checked for figures and identifiers the PR does not state; if any, the model
is asked once more naming them, and what is still unsupported is cut. One time budget covers
both requests (core/deadline.py). Whatever fails is raised as SummarizerError, and the caller
falls back to a heuristic card. The model is a port (services/ports.py): no vendor here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.core.context import build_context
from bot.core.deadline import Budget, Deadline
from bot.core.drafts import CardDraft, card_from_draft, check_card, without_unsupported
from bot.core.faithfulness import Check, SourceText
from bot.core.prompts import PROMPT_VERSION, card_overhead, card_prompt, unsupported_prompt
from bot.core.text import estimate_tokens
from bot.errors import SummarizerError
from bot.models import Card, Coverage, Language, Message, PRSnapshot
from bot.services.ports import ModelClient

log = logging.getLogger(__name__)

# Room left for the model's answer when the budget is counted (cards are short).
OUTPUT_RESERVE = 600
# However small the configured budget, the PR's title, body and some files are sent.
MIN_DATA_TOKENS = 500


@dataclass(frozen=True)
class _Answer:
    card: Card
    raw: str  # the model's JSON as it came, for the follow-up conversation


class ModelCardWriter:
    def __init__(
        self,
        model: ModelClient,
        *,
        token_budget: int,
        budget: Budget | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._model = model
        # The model's name and the prompts' version are part of every card's cache key.
        self.model = model.model
        self.prompt_version = PROMPT_VERSION
        self._token_budget = token_budget
        # One card, both its requests included, waits at most about this long for the model.
        self.budget = budget or Budget()
        self._clock = clock
        self._sleep = sleep

    def data_budget(self, language: Language) -> int:
        """Tokens left for the PR's data once the instructions are counted."""
        return max(self._token_budget - estimate_tokens(card_overhead(language)) - OUTPUT_RESERVE, MIN_DATA_TOKENS)

    def card(self, snapshot: PRSnapshot, language: Language) -> Card:
        context = build_context(snapshot, self.data_budget(language))
        messages = card_prompt(context.text, language).messages()
        deadline = self.budget.start(self._clock, self._sleep)
        first = self._ask(messages, snapshot, language, context.coverage, deadline)
        # What the model saw, and every path of the PR (a file it was not shown may still be named).
        source = SourceText.of(context.text, (change.path for change in snapshot.files))
        check = check_card(first.card, source)
        if check.ok:
            return replace(first.card, checked=check.checked)
        return self._second_answer(messages, first, check, snapshot, language, context.coverage, source, deadline)

    def _second_answer(
        self,
        messages: list[Message],
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
        follow_up = [
            *messages,
            Message("assistant", first.raw),
            Message("user", unsupported_prompt([claim.text for claim in check.unsupported])),
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
        messages: list[Message],
        snapshot: PRSnapshot,
        language: Language,
        coverage: Coverage,
        deadline: Deadline,
    ) -> _Answer:
        try:
            answer = self._model.parse(messages, CardDraft, deadline)
        except SummarizerError as exc:
            # Info, not a warning: the caller falls back and its surface says so once (a digest
            # with the model down says it in one line, not one per PR); --debug shows these.
            log.info("model call for %s failed: %s", snapshot.ref, type(exc).__name__)
            raise
        return _Answer(card_from_draft(answer.value, language, coverage), answer.raw)
