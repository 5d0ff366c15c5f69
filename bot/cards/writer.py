"""ModelCardWriter: a PR's card from the model, and never a figure the PR does not state.

The product's rule (DESIGN.md §1): the PR's context within the token budget, one structured
request, the card checked for figures and identifiers the PR does not state; if any, the model
is asked once more naming them, and what is still unsupported is cut. One time budget covers
both requests (core/deadline.py). Whatever fails is raised as SummarizerError, and the caller
falls back to a heuristic card. The model is a port (bot/ports/model.py): no vendor here.

Endpoints differ in how they take a request for structured output (models.OUTPUT_MODES): the
first request starts at the mode remembered for the endpoint (store/modes.py), or the strongest,
and a mode the endpoint refuses is not a failure: the next one is tried within the same budget.
The prompt keeps within the model's context window (configured, remembered, or read from the
endpoint's model list); a prompt the server still finds too long is cut to fit and sent once more.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass, replace

from bot.core.checks.faithfulness import Check, SourceText
from bot.core.deadline import Budget, Deadline
from bot.core.pacing import REAL_TIME, Pacing
from bot.core.prompting.context import PRContext, build_context
from bot.core.prompting.context_window import OUTPUT_RESERVE, fitted, prompt_limit, request_tokens
from bot.core.prompting.drafts import CardDraft, card_from_draft, check_card, without_unsupported
from bot.core.prompting.prompts import (
    PROMPT_VERSION,
    card_overhead,
    card_prompt,
    malformed_prompt,
    unsupported_prompt,
    with_note,
)
from bot.core.strings.text import estimate_tokens
from bot.core.usage import Tally
from bot.errors import ContextTooLong, ModelBadOutput, ModeRefused, SummarizerError
from bot.models import OUTPUT_MODES, Card, Coverage, Language, Message, OutputMode, PRSnapshot
from bot.ops import telemetry
from bot.ports import ModelClient
from bot.store.modes import Learned, ModeMemory
from bot.words import text

log = logging.getLogger(__name__)

# However small the configured budget, the PR's title, body and some files are sent (unless the
# model's context window cannot hold them: then what fits).
MIN_DATA_TOKENS = 500


@dataclass(frozen=True)
class _Answer:
    card: Card
    raw: str  # the model's JSON as it came, for the follow-up conversation
    mode: OutputMode  # how it was asked for: the follow-up asks the same way


@dataclass(frozen=True)
class _Request:
    context: PRContext
    messages: list[Message]
    tokens: int  # the whole prompt's estimate


@dataclass(frozen=True)
class ModelFit:
    """What the config says of the model that shapes a card's requests and a question's
    ([models."NAME"]): the output mode pinned (None: try each, strongest first; a card's only, an
    answer is plain text), its context window (None: remembered or read from the endpoint) and
    its answers' longest (None: OUTPUT_RESERVE)."""

    mode: OutputMode | None = None
    context_window: int | None = None
    max_output_tokens: int | None = None


# No [models."NAME"] table in the config: every mode tried, the window remembered or read.
DEFAULT_FIT = ModelFit()


class ModelCardWriter:
    def __init__(
        self,
        model: ModelClient,
        *,
        token_budget: int,
        budget: Budget | None = None,
        pacing: Pacing = REAL_TIME,
        memory: ModeMemory | None = None,
        fit: ModelFit = ModelFit(),
    ) -> None:
        self._model = model
        # The model's name and the prompts' version are part of every card's cache key.
        self.model = model.model
        self.prompt_version = PROMPT_VERSION
        self._token_budget = token_budget
        # One card, both its requests included, waits at most about this long for the model.
        self.budget = budget or Budget()
        self._clock = pacing.clock
        self._sleep = pacing.sleep
        self._memory = memory
        self._pinned = fit.mode  # the config's [models."NAME"] mode: that one only, never another
        self._window = fit.context_window
        self._room = fit.max_output_tokens or OUTPUT_RESERVE
        # What a request carries besides its messages, counted in what it may spend.
        self._schema = json.dumps(CardDraft.model_json_schema())
        # The endpoint's model list is read once per process, and only while no window is known.
        self._listed_lock = threading.Lock()
        self._listed: tuple[int | None] | None = None

    def data_budget(self, language: Language, window: int | None = None) -> int:
        """Tokens left for the PR's data once the instructions are counted (and the answer's room)."""
        return self._data_budget(prompt_limit(self._token_budget - OUTPUT_RESERVE, window, self._room), language)

    def _data_budget(self, limit: int, language: Language) -> int:
        data = limit - estimate_tokens(card_overhead(language))
        # A window that cannot hold MIN_DATA_TOKENS besides the instructions gets what fits.
        floor = MIN_DATA_TOKENS if limit >= self._token_budget - OUTPUT_RESERVE else 0
        return max(data, floor)

    def card(self, snapshot: PRSnapshot, language: Language, tally: Tally | None = None) -> Card:
        """The card; every response's tokens (probes, retries, the second request) go to `tally`."""
        with self.budget.slot():
            deadline = self.budget.start(self._clock, self._sleep)
            first, request = self._first_answer(snapshot, language, deadline, tally)
        # The check is most of a card's own CPU: done with the slot given back, so the next card's
        # request goes out meanwhile and the model's slots stay busy (the digest's bound).
        # What the model saw, every path of the PR (a file it was not shown may still be named), and
        # the file count in the card's language ("24 个文件" is as true as "24 files").
        paths = (change.path for change in snapshot.files)
        source = SourceText.of(request.context.text, paths, file_facts(snapshot.files_total, language))
        check = check_card(first.card, source)
        if check.ok:
            card = replace(first.card, checked=check.checked)
        else:
            with self.budget.slot():
                card = self._second_answer(request, first, check, snapshot, language, source, deadline, tally)
        # The mode the endpoint took; a second answer is asked for the same way.
        telemetry.count("cards_total", source="llm", mode=first.mode)
        return card

    # -- the first answer: modes and windows ---------------------------------------------------

    def _first_answer(
        self, snapshot: PRSnapshot, language: Language, deadline: Deadline, tally: Tally | None
    ) -> tuple[_Answer, _Request]:
        learned = self._memory.recall() if self._memory is not None else None
        window = self._window or (learned.window if learned else None) or self._listed_window(deadline)
        modes = self._modes(learned)
        limit = prompt_limit(self._token_budget - OUTPUT_RESERVE, window, self._room)
        request = self._request(snapshot, language, limit)
        messages = request.messages
        fitted_once = asked_again = False
        while True:
            mode = modes[0]
            try:
                answer = self._ask(messages, snapshot, language, request.context.coverage, deadline, mode, tally)
            except ModelBadOutput:
                # Broken or incomplete JSON is common from a small local model, and a second try
                # told so usually gives a card; a second failure is the card's.
                if asked_again:
                    raise
                log.info("card of %s: the answer was not a card, asking once more", snapshot.ref)
                asked_again = True
                messages = with_note(request.messages, malformed_prompt())
                continue
            except ModeRefused:
                if len(modes) == 1:
                    log.info("model call for %s failed: the endpoint takes none of the modes tried", snapshot.ref)
                    raise
                log.info("card of %s: the endpoint does not take %s, trying %s", snapshot.ref, mode, modes[1])
                modes = modes[1:]
                continue
            except ContextTooLong as exc:
                window = exc.window or window
                smaller = fitted(sent=request.tokens, window=window, room=self._room, counted=exc.prompt_tokens)
                if fitted_once or smaller >= request.tokens:
                    log.info("model call for %s failed: the prompt does not fit the model's window", snapshot.ref)
                    raise
                # Once: the context builder records what no longer fits, so the coverage stays true.
                log.info("card of %s: the prompt did not fit the model's window, cutting it", snapshot.ref)
                fitted_once = True
                request = self._request(snapshot, language, smaller)
                messages = request.messages
                continue
            self._learn(learned, Learned(mode, window))
            return answer, request

    def _modes(self, learned: Learned | None) -> tuple[OutputMode, ...]:
        """The modes to try, in order: the pinned one alone, or from the remembered one down."""
        if self._pinned is not None:
            return (self._pinned,)
        start = learned.mode if learned is not None else OUTPUT_MODES[0]
        return OUTPUT_MODES[OUTPUT_MODES.index(start) :]

    def _learn(self, learned: Learned | None, now: Learned) -> None:
        # Only news is written: the day of the key's TTL runs from the discovery, after which the
        # stronger modes are probed again (rewriting on every card would keep them untried).
        if self._memory is not None and now != learned:
            self._memory.remember(now)

    def _listed_window(self, deadline: Deadline) -> int | None:
        with self._listed_lock:
            if self._listed is None:
                try:
                    self._listed = (self._model.context_window(deadline),)
                except SummarizerError:
                    self._listed = (None,)  # a list that cannot be read says nothing; cards go on
            return self._listed[0]

    def _request(self, snapshot: PRSnapshot, language: Language, limit: int) -> _Request:
        context = build_context(snapshot, self._data_budget(limit, language))
        messages = card_prompt(context.text, language).messages()
        return _Request(context, messages, estimate_tokens(card_overhead(language)) + context.tokens)

    # -- the second answer: unsupported claims ---------------------------------------------------

    def _second_answer(
        self,
        request: _Request,
        first: _Answer,
        check: Check,
        snapshot: PRSnapshot,
        language: Language,
        source: SourceText,
        deadline: Deadline,
        tally: Tally | None,
    ) -> Card:
        """Ask once more, naming the unsupported claims; what is still unsupported is then cut.

        Within what is left of the card's budget, and in the mode the first answer came in: a
        card never waits longer for being checked.
        """
        log.info("card of %s: %d unsupported claims, asking again", snapshot.ref, len(check.unsupported))
        follow_up = [
            *request.messages,
            Message("assistant", first.raw),
            Message("user", unsupported_prompt([claim.text for claim in check.unsupported])),
        ]
        title, untitled = snapshot.listing.title, text(language, "card.untitled")
        try:
            second = self._ask(follow_up, snapshot, language, request.context.coverage, deadline, first.mode, tally)
        except SummarizerError:
            # The first answer is still a card once its unsupported claims are cut.
            return without_unsupported(first.card, check, title, source, untitled=untitled)
        recheck = check_card(second.card, source)
        if recheck.ok:
            return replace(second.card, checked=recheck.checked, regenerated=True)
        card = without_unsupported(second.card, recheck, title, source, untitled=untitled)
        return replace(card, regenerated=True)

    def _ask(
        self,
        messages: list[Message],
        snapshot: PRSnapshot,
        language: Language,
        coverage: Coverage,
        deadline: Deadline,
        mode: OutputMode,
        tally: Tally | None,
    ) -> _Answer:
        if tally is not None:
            # Held against the asker's daily budget before it is sent (BudgetSpent: not sent).
            tally.reserve(request_tokens(messages, self._room, self._schema))
        try:
            answer = self._model.parse(messages, CardDraft, deadline, mode, tally)
        except (ModeRefused, ContextTooLong):
            raise  # not failures yet: the caller asks another way
        except SummarizerError as exc:
            # Info, not a warning: the caller falls back and its surface says so once (a digest
            # with the model down says it in one line, not one per PR); --debug shows these.
            log.info("model call for %s failed: %s: %s", snapshot.ref, type(exc).__name__, exc)
            raise
        return _Answer(card_from_draft(answer.value, language, coverage, snapshot.listing.title), answer.raw, mode)


def file_facts(files_total: int, language: Language) -> tuple[str, ...]:
    """What GitHub's file list states of a PR, as a card in `language` says it ("24 files", "24 个文件"),
    for SourceText.of: a count of the PR's files is a fact of the PR whichever language states it."""
    return (text(language, "fact.files", n=files_total),) if files_total else ()
