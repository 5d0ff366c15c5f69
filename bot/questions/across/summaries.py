"""The model's short summary above a list of PRs that code built (questions/across/days.py's matches).

Owns what the model is given for it (the listed PRs that have a card, never a PR fetched for it)
and what is kept of its prose: sanitized, every sentence's figures checked against the cards
(questions/answerer.py), and no sentence citing a PR the reply does not show (core/checks/citations.py).
Not the list itself, nor its words (render/across.py): the list is shown whatever is written.
"""

from __future__ import annotations

from dataclasses import replace

from bot.core.checks.citations import Citable, keep_cited
from bot.core.checks.sanitize import repo_url, sanitize_answer
from bot.core.usage import Tally
from bot.errors import SummarizerError
from bot.models import AcrossMatches, DigestItem, Question
from bot.ports import Answerer, AnswerSink
from bot.spending import CLI_PAYER, Spending


def shown_prs(matches: AcrossMatches) -> Citable:
    """The PRs the reply shows: its list, and the PR a revert or follow-up is asked about."""
    refs = [(item.listing.repo, item.listing.number) for item in matches.items]
    if matches.target is not None:
        refs.append((matches.target.repo, matches.target.number))
    return Citable.of(refs)


def carded_items(matches: AcrossMatches) -> tuple[DigestItem, ...]:
    """The listed PRs the model may write from: those with a card."""
    return tuple(
        DigestItem(item.listing, item.card, item.size, item.paths) for item in matches.items if item.card is not None
    )


def write_summary(
    answerer: Answerer, matches: AcrossMatches, question: Question, tally: Tally, sink: AnswerSink | None = None
) -> str:
    """The model's prose about `matches`, as it may stand above their list; "" when there is none
    (no PR with a card, the model failed or spent the budget, nothing usable left)."""
    carded = carded_items(matches)
    if not carded:
        return ""
    paths = {str(item.listing.ref): item.paths for item in carded}
    try:
        written = answerer.answer_digest(carded, paths, question, tally, sink)
    except SummarizerError:  # BudgetSpent too: the list alone, as without a model
        return ""
    # Links may point into the repository asked about, and nowhere else.
    answer = sanitize_answer(written, repo_url(carded[0].listing.url)) if written else None
    return keep_cited(answer, shown_prs(matches)) if answer else ""


def summarized(
    answerer: Answerer | None, matches: AcrossMatches, question: Question, spending: Spending | None = None
) -> AcrossMatches:
    """`prdigest ask OWNER/REPO`: the matches with the model's summary, as a thread gives it
    (paid by the terminal, within the day's budget); a count is counted, never written."""
    if answerer is None or matches.intent == "count" or not carded_items(matches):
        return matches
    if spending is not None and not spending.allows():
        return matches
    tally = spending.tally() if spending is not None else Tally()
    try:
        answer = write_summary(answerer, matches, question, tally)
    finally:
        if spending is not None:
            spending.record(tally, repo=matches.repo, payer=CLI_PAYER)
    return replace(matches, answer=answer)
