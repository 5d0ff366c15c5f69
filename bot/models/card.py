"""What a card says about one PR: its verdict, minutes, reasons and follow-ups, the coverage it
rests on, and the key of everything it depends on (so a change to any part is a new card).

Values only: cards/writer.py and cards/heuristic/cards.py make cards; store/codec.py keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.models.note import Language

Verdict = Literal["skip", "skim", "read"]
CardSource = Literal["llm", "heuristic"]
# PRs whose metadata alone settles the card, when the config lists them (core/heuristic/skipping.py).
SkipClass = Literal["bot-bumps", "lockfile-only", "ci-one-line"]
# Why a heuristic card was made although a model is configured, when it was no failure: the
# daily token budget was spent, or the PR is of a class the config gives no model call.
NoModel = Literal["budget", "bot-bumps", "lockfile-only", "ci-one-line"]

VERDICT_ORDER: dict[Verdict, int] = {"read": 0, "skim": 1, "skip": 2}


@dataclass(frozen=True)
class SkippedFile:
    path: str
    reason: str


@dataclass(frozen=True)
class Coverage:
    """Computed by llm/context.py, never by the model.

    Every file is counted once: files_read + len(skipped) + files_unlisted == files_total.
    """

    files_total: int
    files_read: int
    skipped: tuple[SkippedFile, ...] = ()
    # Files counted in files_read of which only some hunks fitted the budget.
    partial: tuple[str, ...] = ()
    # Files GitHub counted but did not list (it lists at most 3,000 per PR): never seen, so
    # they have no path to name.
    files_unlisted: int = 0
    # False when the files themselves could not be listed (rate limit): the card rests on
    # the title and labels alone.
    files_known: bool = True


@dataclass(frozen=True)
class CardKey:
    """Everything a card depends on: a change to any part is a different card."""

    repo: str
    number: int
    revision: str  # merge commit SHA (or head SHA for an unmerged PR)
    prompt_version: str
    model: str  # "heuristic" for cards made without a model
    language: Language

    def __str__(self) -> str:
        return f"{self.repo}#{self.number}:{self.revision}:{self.prompt_version}:{self.model}:{self.language}"


@dataclass(frozen=True)
class Card:
    headline: str
    verdict: Verdict
    minutes: int
    why: tuple[str, ...]
    caveats: tuple[str, ...]
    watch: tuple[str, ...]
    source: CardSource
    coverage: Coverage
    language: Language = "en"
    # The faithfulness check (llm/faithfulness.py) on the text served: claims (figures and
    # identifiers) checked against the PR's own text, claims cut out or whose point was dropped
    # because the PR does not state them, and whether the text is the model's second answer,
    # written after it was told which claims the PR does not support. 0/0/False: not checked.
    checked: int = 0
    dropped: int = 0
    regenerated: bool = False
    # Set on a heuristic card made without asking the model on purpose (see NoModel).
    no_model: NoModel | None = None
    # The version of core/checks/sanitize.py's rules the text went through (SANITIZE_RULES): a card
    # sanitized under today's rules is served as stored, any other is sanitized again on its
    # way out. 0: never sanitized, or stored before the version was kept.
    sanitized: int = 0
