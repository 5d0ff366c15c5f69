"""How `prdigest eval` scores cards and answers against labels (pure functions of values).

A card agrees with its label when the verdicts are equal, or "within one step" when they are
neighbours on skip < skim < read. A key figure is carried when the headline states the same
numbers (core/checks/claims.py reads both, so "16.98GiB" carries "16.98 GiB"), a word such as a scope
tag when the headline holds it. An invented figure is a claim of the card the PR's text does not
support (the faithfulness check's own reading) or a forbidden string: none may reach a card. A card
made without a model whose reasons argue against its verdict is counted as core/heuristic/reasons.py defines
it; a model's card is not (its reasons are its own prose). Whether they do is read from the card's
words by whoever makes the run (eval/runs.py, through cards/heuristic/point_names.py): here it is a
value. A labelled PR GitHub would not give is `Unread`: counted and reported, not scored.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from bot.core.checks.claims import extract_claims, fold
from bot.core.checks.faithfulness import SourceText, check_card_text
from bot.models import VERDICT_ORDER, Card, Verdict

# How an answer says the PR is silent, in the words the answer prompt asks for (core/prompting/prompts.py
# _NOT_SAID) and the ways a model paraphrases them.
NOT_STATED_WORDS = (
    "does not say",
    "doesn't say",
    "does not state",
    "doesn't state",
    "not stated",
    "does not mention",
    "doesn't mention",
    "没有说明",
    "未说明",
    "没有提到",
    "未提及",
    "没有给出",
    "未给出",
)


@dataclass(frozen=True)
class CardRun:
    """One labelled PR's card for one model, and what was measured of it."""

    where: str
    ref: str
    expected: Verdict
    figures: tuple[str, ...]
    card: Card
    seconds: float
    failed: str | None  # why the model gave no card ("timeout", "refused", …): it came from metadata
    invented: tuple[str, ...]  # unsupported claims and forbidden strings found in the card
    contradicted: bool  # its reasons argue against its verdict (core/heuristic/reasons.py)

    @property
    def carried(self) -> tuple[str, ...]:
        return tuple(figure for figure in self.figures if carries(self.card.headline, figure))


@dataclass(frozen=True)
class Unread:
    """A labelled PR or a question's PR that could not be read (not found, GitHub refused it):
    where it is labelled, the PR, and why, as GitHub's error says it."""

    where: str
    ref: str
    reason: str


@dataclass(frozen=True)
class CardScore:
    cards: int
    exact: int
    within_one: int
    figures: int
    carried: int
    invented: int
    reasoned: int  # cards made without a model: their reasons are read for contradictions
    contradicted: int  # of those, cards whose reasons argue against their verdict
    cut: int  # claims the faithfulness check cut from the model's answers
    files_read: int
    files_total: int
    seconds_median: float
    seconds_max: float
    failures: int
    failure_kinds: dict[str, int]


@dataclass(frozen=True)
class AnswerRun:
    where: str
    question: str
    must_say: tuple[str, ...]
    not_stated: bool
    text: str  # the answer; without one, the card or list that stood in
    source: str  # "llm", "card" or "list"
    ungrounded: tuple[str, ...]  # figures the answer states that the PR does not
    seconds: float
    failed: str | None = None  # why the model gave no answer ("timeout", "refused", …): the card stood in

    @property
    def missing(self) -> tuple[str, ...]:
        if self.not_stated:
            return () if says_not_stated(self.text) else ("the PR does not say",)
        return tuple(item for item in self.must_say if not carries(self.text, item))

    @property
    def right(self) -> bool:
        return not self.missing


@dataclass(frozen=True)
class AnswerScore:
    questions: int
    right: int
    not_stated: int  # questions whose honest answer is "the PR does not say"
    not_stated_right: int
    ungrounded: int
    from_model: int
    seconds_median: float
    seconds_max: float
    failures: int
    failure_kinds: dict[str, int]


def steps_apart(left: Verdict, right: Verdict) -> int:
    return abs(VERDICT_ORDER[left] - VERDICT_ORDER[right])


def figure_values(text: str) -> frozenset[str]:
    """The numbers a text states as figures or ranges ("GLM-5.2" is a name, not a figure)."""
    claims = (claim for claim in extract_claims(text) if claim.kind in ("figure", "range"))
    return frozenset(figure.value for claim in claims for figure in claim.figures)


def _squashed(text: str) -> str:
    return "".join(fold(text).split())


def carries(text: str, item: str) -> bool:
    """Whether `text` states `item`: a figure by its numbers, anything else as written (case and
    spaces aside), a PR as "#N"."""
    if _squashed(item) in _squashed(text):
        return True
    values = figure_values(item)
    return bool(values) and values <= figure_values(text)


def says_not_stated(text: str) -> bool:
    folded = fold(text)
    return any(words in folded for words in NOT_STATED_WORDS)


def card_text(card: Card) -> tuple[str, ...]:
    return (card.headline, *card.why, *card.caveats, *card.watch)


def invented(card: Card, source: SourceText, forbidden: Sequence[str]) -> tuple[str, ...]:
    """The card's claims the PR does not support, then the forbidden strings it holds."""
    check = check_card_text(card.headline, (*card.why, *card.caveats, *card.watch), source)
    whole = _squashed("\n".join(card_text(card)))
    found = [claim.text for claim in check.unsupported]
    found += [item for item in forbidden if _squashed(item) in whole]
    return tuple(found)


def ungrounded(answer: str, source: SourceText) -> tuple[str, ...]:
    """Figures an answer states that the PR's text does not (counted apart from right answers)."""
    check = check_card_text(answer, (), source)
    return tuple(claim.text for claim in check.unsupported if claim.kind in ("figure", "range", "count"))


def score_cards(runs: Sequence[CardRun]) -> CardScore:
    seconds = [run.seconds for run in runs] or [0.0]
    return CardScore(
        cards=len(runs),
        exact=sum(run.card.verdict == run.expected for run in runs),
        within_one=sum(steps_apart(run.card.verdict, run.expected) <= 1 for run in runs),
        figures=sum(len(run.figures) for run in runs),
        carried=sum(len(run.carried) for run in runs),
        invented=sum(len(run.invented) for run in runs),
        reasoned=sum(run.card.source == "heuristic" for run in runs),
        contradicted=sum(run.contradicted for run in runs),
        cut=sum(run.card.dropped for run in runs),
        files_read=sum(run.card.coverage.files_read for run in runs),
        files_total=sum(run.card.coverage.files_total for run in runs),
        seconds_median=statistics.median(seconds),
        seconds_max=max(seconds),
        failures=sum(run.failed is not None for run in runs),
        failure_kinds=dict(Counter(run.failed for run in runs if run.failed is not None)),
    )


def score_answers(runs: Sequence[AnswerRun]) -> AnswerScore:
    seconds = [run.seconds for run in runs] or [0.0]
    return AnswerScore(
        questions=len(runs),
        right=sum(run.right for run in runs),
        not_stated=sum(run.not_stated for run in runs),
        not_stated_right=sum(run.not_stated and run.right for run in runs),
        ungrounded=sum(len(run.ungrounded) for run in runs),
        from_model=sum(run.source == "llm" for run in runs),
        seconds_median=statistics.median(seconds),
        seconds_max=max(seconds),
        failures=sum(run.failed is not None for run in runs),
        failure_kinds=dict(Counter(run.failed for run in runs if run.failed is not None)),
    )
