"""`prdigest eval`'s runs: the labelled PRs' cards (and the questions' answers) for one model, made
exactly as a digest makes them (CardService: the same prompt, checks and cutting, cached per
model by the card key), timed and checked, for eval_scores.py to score.

No vendor here: a model is an `EvalModel` of card service, answerer and tally, built by the
surface (bot/cli/eval.py). The tally sees every response's tokens through `CountedModel`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from bot.cards import CardService, card_contradicts, file_facts
from bot.core.checks.faithfulness import SourceText
from bot.core.deadline import Deadline
from bot.core.eval_scores import AnswerRun, CardRun, card_text, invented, ungrounded
from bot.core.prompting.context import build_context
from bot.core.strings.text import count_cjk
from bot.core.usage import Tally
from bot.errors import ContextTooLong, ModelBadOutput, ModelRejected, ModelTimeout, ModelUnavailable, SummarizerError
from bot.eval.labels import Asking, Labelled
from bot.models import Language, Message, NoAnswer, OutputMode, PRRef, PRSnapshot
from bot.ports import Answerer, ModelClient
from bot.ports.model import Parsed, Schema
from bot.questions import ask_about_pr

# What a PR states is read from a context no budget cuts (its stored patches hold every hunk a
# card's or an answer's context can show: core/prompting/patch_cut.py).
WHOLE_CONTEXT_TOKENS = 10_000_000
# A question across days is answered by the rules of questions/across/days.py: the text of the PRs it
# lists, or None when it cannot be answered.
Across = Callable[[str, str, Language], str | None]


class CountedModel:
    """A ModelClient that adds every response's tokens to its own tally too (the card service's
    tally is recorded as spending, and an eval spends nothing of a channel's budget)."""

    def __init__(self, inner: ModelClient) -> None:
        self._inner = inner
        self.model = inner.model
        self.tally = Tally()
        # The last failure of the card this thread is making, for the report's failure kinds.
        self._failed = threading.local()

    def last_failure(self) -> str | None:
        """What the last request of this thread's card failed with ("timeout", "refused", …),
        and forget it: the next card starts clean."""
        kind: str | None = getattr(self._failed, "kind", None)
        self._failed.kind = None
        return kind

    def _note(self, error: SummarizerError) -> None:
        self._failed.kind = failure_kind(error)

    def _both(self, tally: Tally | None, mine: Tally) -> None:
        for model, usage in mine.by_model().items():
            self.tally.add(model, usage)
            if tally is not None:
                tally.add(model, usage)

    def parse(
        self,
        messages: Sequence[Message],
        schema: type[Schema],
        deadline: Deadline,
        mode: OutputMode = "json_schema",
        tally: Tally | None = None,
    ) -> Parsed[Schema]:
        mine = Tally()
        try:
            return self._inner.parse(messages, schema, deadline, mode, mine)
        except SummarizerError as error:
            self._note(error)
            raise
        finally:
            self._both(tally, mine)

    def complete(self, messages: Sequence[Message], deadline: Deadline, tally: Tally | None = None) -> str:
        mine = Tally()
        try:
            return self._inner.complete(messages, deadline, mine)
        finally:
            self._both(tally, mine)

    def context_window(self, deadline: Deadline) -> int | None:
        return self._inner.context_window(deadline)


def failure_kind(error: SummarizerError) -> str:
    """A model failure as the report counts it."""
    if isinstance(error, ModelTimeout):
        return "timeout"
    if isinstance(error, ContextTooLong):
        return "too long"
    if isinstance(error, ModelRejected):  # ModeRefused among them: no output mode taken
        return "refused"
    if isinstance(error, ModelBadOutput):
        return "not a card"
    if isinstance(error, ModelUnavailable):
        return "unavailable"
    return "failed"


# Why an answer is missing, in the words the card failures use. No model is no failure: the
# heuristic row answers every question with the card, as it should.
ANSWER_FAILURES: dict[NoAnswer, str] = {
    "model_timeout": "timeout",
    "model_unavailable": "unavailable",
    "model_refused": "refused",
    "model_failed": "not an answer",
    "answer_unusable": "unusable",
    "answer_not_prose": "not prose",
    "budget_spent": "budget",
}


@dataclass(frozen=True)
class EvalModel:
    """One row of the table: None is no model (the heuristic). `failure` tells what the last
    request of the current thread's card failed with (CountedModel.last_failure)."""

    name: str | None
    cards: CardService
    answerer: Answerer | None = None
    tally: Tally = field(default_factory=Tally)
    failure: Callable[[], str | None] = lambda: None


def source_of(snapshot: PRSnapshot, language: Language) -> SourceText:
    """Everything the PR states: its whole context as stored (no budget cuts it here; a patch
    cut for storing says how many hunks it shows), every path, and the file count, as the
    faithfulness check of a card reads it."""
    context = build_context(snapshot, WHOLE_CONTEXT_TOKENS)
    paths = (change.path for change in snapshot.files)
    return SourceText.of(context.text, paths, file_facts(snapshot.files_total, language))


def card_runs(
    model: EvalModel,
    labels: Sequence[Labelled],
    snapshots: dict[PRRef, PRSnapshot],
    language: Language,
    concurrency: int,
    clock: Callable[[], float] = time.monotonic,
) -> list[CardRun]:
    """Every labelled PR's card for `model`, `concurrency` at once, in the labels' order."""

    def run(label: Labelled) -> CardRun:
        snapshot = snapshots[label.ref]
        model.failure()  # a failure left by this thread's previous card is not this card's
        start = clock()
        result = model.cards.card(snapshot, language)
        seconds = clock() - start
        found = invented(result.card, source_of(snapshot, language), label.forbidden)
        failed = (model.failure() or "failed") if result.degraded else None
        contradicted = card_contradicts(result.card)
        return CardRun(
            label.where, str(label.ref), label.verdict, label.figures, result.card, seconds, failed, found, contradicted
        )

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="eval") as pool:
        return list(pool.map(run, labels))


def language_of(question: str) -> Language:
    """A question in Chinese is answered in Chinese, as a zh-CN channel would be."""
    return "zh-CN" if count_cjk(question) >= 2 else "en"


def answer_runs(
    model: EvalModel,
    questions: Sequence[Asking],
    snapshots: dict[PRRef, PRSnapshot],
    across: Across,
    concurrency: int,
    clock: Callable[[], float] = time.monotonic,
) -> list[AnswerRun]:
    def run(asking: Asking) -> AnswerRun:
        language = language_of(asking.question)
        start = clock()
        if asking.ref is None:
            listed = across(asking.repo, asking.question, language)
            seconds = clock() - start
            return AnswerRun(
                asking.where, asking.question, asking.must_say, asking.not_stated, listed or "", "list", (), seconds
            )
        snapshot = snapshots[asking.ref]
        asked = ask_about_pr(model.cards, model.answerer, snapshot, asking.question, language)
        seconds = clock() - start
        text = asked.answer if asked.no_answer is None else "\n".join(card_text(asked.card))
        loose = ungrounded(text, source_of(snapshot, language)) if asked.no_answer is None else ()
        failed = ANSWER_FAILURES.get(asked.no_answer) if asked.no_answer is not None else None
        return AnswerRun(
            asking.where,
            asking.question,
            asking.must_say,
            asking.not_stated,
            text,
            asked.source,
            loose,
            seconds,
            failed,
        )

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="eval") as pool:
        return list(pool.map(run, questions))
