"""`prdigest ask`: one question about one PR, answered as a Slack thread answers it.

The steps of QAService._about_pr (questions/qa.py): the PR's card, then the answerer's answer
from the card and the PR (the same grounding prompt, "the PR does not say" included), sanitised
by the same rule before anyone reads it; with nothing left, the card stands in. Unlike a thread,
the result says why there is no answer (Asked.no_answer): a terminal is where the model is set up.
No thread, so no earlier turns and nothing remembered; the CLI may name any repository.
"""

from __future__ import annotations

from dataclasses import replace

from bot.cards import CardService
from bot.core.checks.prose import is_data
from bot.core.checks.sanitize import repo_url, sanitize_answer, sanitize_sentence
from bot.core.usage import Tally
from bot.errors import BudgetSpent, ModelRejected, ModelTimeout, ModelUnavailable, SummarizerError
from bot.models import Asked, Language, NoAnswer, PRSnapshot, Question
from bot.ports import Answerer
from bot.spending import CLI_PAYER, Spending


def ask_about_pr(
    cards: CardService,
    answerer: Answerer | None,
    snapshot: PRSnapshot,
    question: str,
    language: Language,
    spending: Spending | None = None,
) -> Asked:
    """The answer to `question` about the PR of `snapshot`, or its card and why it has no answer."""
    card = cards.card(snapshot, language, payer=CLI_PAYER).card
    asked = Asked(snapshot.listing, question, card, tuple(change.path for change in snapshot.files))
    if answerer is None:
        return replace(asked, no_answer="no_model")
    if spending is not None and not spending.allows():
        return replace(asked, no_answer="budget_spent")
    tally = spending.tally() if spending is not None else Tally()
    try:
        answer = answerer.answer_pr(snapshot, card, Question(question, (), language), tally)
    except BudgetSpent:
        return replace(asked, no_answer="budget_spent")
    except SummarizerError as exc:
        return replace(asked, no_answer=_no_answer(exc))
    finally:
        if spending is not None:
            spending.record(tally, repo=snapshot.listing.repo, payer=CLI_PAYER)
    # As in a thread: mentions, foreign links and chat-template tokens go; nothing usable left, or
    # data rather than words (JSON, a card) → the card.
    cleaned = sanitize_answer(answer, repo_url(snapshot.listing.url))
    if cleaned is None:
        return replace(asked, no_answer="answer_not_prose" if _is_data(answer) else "answer_unusable")
    return replace(asked, answer=cleaned)


def _is_data(answer: str) -> bool:
    """Whether the answer is data once its template tokens are gone (they may wrap the JSON)."""
    cleaned = sanitize_sentence(answer, "")
    return cleaned is not None and is_data(cleaned)


def _no_answer(error: SummarizerError) -> NoAnswer:
    if isinstance(error, ModelTimeout):
        return "model_timeout"
    if isinstance(error, ModelUnavailable):
        return "model_unavailable"
    if isinstance(error, ModelRejected):
        return "model_refused"
    return "model_failed"
