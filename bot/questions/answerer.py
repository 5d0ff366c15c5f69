"""ModelAnswerer: questions about one PR, or about a whole digest, answered by the model from the
same fenced context the card was written from, plus the card and the thread's earlier turns.

Returns plain text; the Slack renderer escapes it and turns cited paths into diff links.
Failures are raised as SummarizerError for the caller to word. The model is a port.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from bot.cards import DEFAULT_FIT, ModelFit, file_facts
from bot.core.checks.citations import Citable, cited, cites_only
from bot.core.checks.faithfulness import SourceText
from bot.core.checks.prompt_echoes import echoes_prompt
from bot.core.checks.prose import is_data
from bot.core.checks.sanitize import ANSWER_MAX_CHARS, repo_url, sanitize_answer
from bot.core.checks.sentence_release import SentenceReleaser, checked_sentence
from bot.core.deadline import Budget, Deadline
from bot.core.pacing import REAL_TIME, Pacing
from bot.core.prompting.context import build_context
from bot.core.prompting.context_window import OUTPUT_RESERVE, prompt_limit, request_tokens
from bot.core.prompting.conversation import answer_messages, card_text, digest_text
from bot.core.prompting.prompts import answer_overhead
from bot.core.strings.text import estimate_tokens
from bot.core.usage import Tally
from bot.errors import ModelBadOutput, SummarizerError
from bot.models import Card, DigestItem, Language, Message, PRSnapshot, Question
from bot.ports import AnswerSink, ModelClient, StreamingModel
from bot.store.modes import ModeMemory

log = logging.getLogger(__name__)

# What is read of one reply: a small model can run on to its token cap. The answer itself is
# capped once sanitized (core/sanitize.ANSWER_MAX_CHARS), so template tokens a cap here would
# split are still whole when they are removed.
RAW_ANSWER_MAX_CHARS = 4 * ANSWER_MAX_CHARS
# Room kept for the conversation and the answer when the budget is counted.
CONVERSATION_RESERVE = 2500
# However small the configured budget, this much material is sent (the card, some context).
MIN_DATA_TOKENS = 500
MIN_CONTEXT_TOKENS = 300
# estimate_tokens counts about three characters a token: a digest's text is cut by the same rule.
CHARS_PER_TOKEN = 3


class ModelAnswerer:
    """An Answerer (bot/ports/model.py) over the model port; it streams into a `sink` when given one."""

    def __init__(
        self,
        model: ModelClient,
        *,
        token_budget: int,
        budget: Budget | None = None,
        pacing: Pacing = REAL_TIME,
        memory: ModeMemory | None = None,
        fit: ModelFit = DEFAULT_FIT,
    ) -> None:
        self._model = model
        self.model = model.model
        self._token_budget = token_budget
        # The model's window: configured, or as the card writer learned it (store/modes.py).
        # An answer is plain text, so the fit's output mode is the card writer's alone.
        self._memory = memory
        self._window = fit.context_window
        self._room = fit.max_output_tokens or OUTPUT_RESERVE
        # An answer waits for the model as long as a card may (model_timeout), quick failures
        # retried within it.
        self.budget = budget or Budget()
        self._clock = pacing.clock
        self._sleep = pacing.sleep

    def data_budget(self, language: Language) -> int:
        """Tokens left for the material once the instructions and the conversation are counted."""
        learned = self._memory.recall() if self._window is None and self._memory is not None else None
        limit = prompt_limit(self._token_budget, self._window or (learned.window if learned else None), self._room)
        return max(limit - estimate_tokens(answer_overhead(language)) - CONVERSATION_RESERVE, MIN_DATA_TOKENS)

    def answer_pr(
        self,
        snapshot: PRSnapshot,
        card: Card,
        question: Question,
        tally: Tally | None = None,
        sink: AnswerSink | None = None,
    ) -> str:
        card_part = card_text(card)
        budget = max(self.data_budget(question.language) - estimate_tokens(card_part), MIN_CONTEXT_TOKENS)
        context = build_context(snapshot, budget)
        data = f"{card_part}\n\n{context.text}"
        paths = tuple(change.path for change in snapshot.files)
        source = SourceText.of(data, paths, file_facts(snapshot.files_total, question.language))
        # The PR itself, and the PRs its own text (or the question) names: "it reverts #50879".
        repo = snapshot.listing.repo
        named = [(found or repo, number) for found, number in cited(f"{data}\n{question.text}")]
        citable = Citable.of([(repo, snapshot.listing.number), *named])
        checked = Checked(source, (repo_url(snapshot.listing.url),), citable)
        return self._ask(data, question, str(snapshot.ref), tally, checked, sink)

    def answer_digest(
        self,
        items: tuple[DigestItem, ...],
        paths: dict[str, tuple[str, ...]],
        question: Question,
        tally: Tally | None = None,
        sink: AnswerSink | None = None,
    ) -> str:
        data = digest_text(items, paths)[: self.data_budget(question.language) * CHARS_PER_TOKEN]
        # Links may point into any repository of the digest, and nowhere else (as QAService's).
        repos = tuple(sorted({repo_url(item.listing.url) for item in items})) or ("",)
        # It cites only the PRs it was shown: each is in the reply's list, or in the digest above it.
        citable = Citable.of((item.listing.repo, item.listing.number) for item in items)
        return self._ask(data, question, "the digest", tally, Checked(SourceText.of(data), repos, citable), sink)

    def _ask(
        self,
        data: str,
        question: Question,
        about: str,
        tally: Tally | None,
        checked: Checked,
        sink: AnswerSink | None = None,
    ) -> str:
        messages = answer_messages(data, question)
        if tally is not None:
            # Held against the asker's daily budget before it is sent (BudgetSpent: not sent).
            tally.reserve(request_tokens(messages, self._room))
        try:
            deadline = self.budget.start(self._clock, self._sleep)
            if sink is not None:
                content = self._streamed(messages, deadline, tally, sink, checked)
            else:
                # Shown whole (a terminal, /pr): the same sentence checks as a streamed answer's.
                content = self._checked(self._model.complete(messages, deadline, tally), checked)
        except SummarizerError as exc:
            log.warning("model call for a question about %s failed: %s", about, type(exc).__name__)
            raise
        if not content.strip():
            raise ModelBadOutput(f"the model gave an empty answer about {about}")
        return content.strip()[:RAW_ANSWER_MAX_CHARS]

    def _checked(self, written: str, checked: Checked) -> str:
        """The answer's sentences as a streamed answer would show them: each sanitized, and none
        stating a figure the PR's text does not (core/checks/sentence_release.py)."""
        releaser = checked.releaser()
        releaser.feed(written)
        releaser.finish()
        return checked.kept(releaser, written)

    def _streamed(
        self, messages: list[Message], deadline: Deadline, tally: Tally | None, sink: AnswerSink, checked: Checked
    ) -> str:
        """The answer shown sentence by sentence as the model writes it; returns what was shown.

        Every sentence is sanitized and its figures checked before it reaches the sink
        (core/checks/sentence_release.py), so what is returned is already what QAService's sanitizing keeps.
        A model that cannot stream answers whole, and its answer goes through the same checks.
        """
        releaser = checked.releaser()

        def on_piece(piece: str) -> bool:
            if sink.stopped:
                return False
            for sentence in releaser.feed(piece):
                sink.sentence(sentence)
            return not sink.stopped and not releaser.poisoned  # a recital: nothing more is wanted

        if isinstance(self._model, StreamingModel):
            written = self._model.complete_streaming(messages, deadline, tally, on_piece)
        else:
            written = self._model.complete(messages, deadline, tally)
            on_piece(written)
        if not sink.stopped:
            for sentence in releaser.finish():
                sink.sentence(sentence)
        return checked.kept(releaser, written)


def _not_an_answer(text: str) -> bool:
    """Whether an answer so far is no answer at all: our prompts recited, or data."""
    return echoes_prompt(text) or is_data(text)


@dataclass(frozen=True)
class Checked:
    """What an answer's sentences are checked against, shown streamed or whole."""

    source: SourceText  # the PR's (or the digest's) text the answer was written from
    repos: tuple[str, ...]  # repository URLs its links may point into
    citable: Citable | None = None  # the PRs it may cite (core/checks/citations.py); None: any

    def releaser(self) -> SentenceReleaser:
        # A recital of our prompts, or data (JSON, a card: core/checks/prose.py), is no answer.
        return SentenceReleaser(self._sentence, ANSWER_MAX_CHARS, whole=lambda text: not _not_an_answer(text))

    def _sentence(self, sentence: str) -> str | None:
        """The sentence as it may be shown: sanitized, no figure the material lacks, and no PR
        cited that the reply does not show (the whole sentence goes: it is about that PR)."""
        checked = checked_sentence(sentence, self.source, self.repos)
        if checked is None or (self.citable is not None and not cites_only(checked, self.citable)):
            return None
        return checked

    def kept(self, releaser: SentenceReleaser, written: str) -> str:
        """What the answer is once `releaser` has read all of `written`."""
        if releaser.poisoned:
            # A recital of our prompts, found only once its sentences came together: the whole
            # text goes to QAService's sanitizing, as it would have unstreamed, and the reply it
            # gives replaces what was streamed (questions/stream.py `finish`).
            return written
        if not releaser.text.strip() and sanitize_answer(written, *self.repos) is None:
            # Nothing kept, and nothing usable written (template tokens, say): the raw text, so
            # QAService finds it unusable as it always did.
            return written
        return releaser.text  # empty when every sentence stated a figure the PR does not: no answer
