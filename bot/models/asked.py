"""`prdigest ask` (questions/ask.py): one question about one PR, in the terminal, and what answers
it: the model's answer, or the PR's card with the reason there is no answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.models.card import Card
from bot.models.pr import PRListing

# Why the card stands in for an answer. A Slack thread only says "the model is not answering";
# a terminal is where someone sets the model up, so it is told which of these happened.
NoAnswer = Literal[
    "no_model",  # no OPENAI_API_KEY: questions need a model
    "model_timeout",  # no answer within model_timeout
    "model_unavailable",  # not reachable, or busy (429, 5xx)
    "model_refused",  # the endpoint refused the request (a bad key, an unknown model)
    "model_failed",  # an answer that was none: empty, cut off, declined
    "answer_unusable",  # nothing left once sanitised (all mentions, foreign links, prompt echo)
    "answer_not_prose",  # data rather than words: JSON, a card (core/checks/prose.py)
    "budget_spent",  # the daily token budget is spent: the model was not asked
]


@dataclass(frozen=True)
class Asked:
    """A question about one PR and what answers it: the model's answer (sanitised, as in a Slack
    thread), or, when `no_answer` says why there is none, the PR's card."""

    about: PRListing
    question: str
    card: Card
    paths: tuple[str, ...]  # the PR's changed files: those the answer names are its cited files
    answer: str = ""
    no_answer: NoAnswer | None = None

    @property
    def source(self) -> Literal["llm", "card"]:
        return "card" if self.no_answer is not None else "llm"
