"""Which way each reason of a card made without a model argues, and when a card's reasons
contradict its verdict: the one definition, for the heuristic that must never make such a card
(cards/heuristic/cards.py, core/heuristic/signals.py) and for `prdigest eval`, which counts them
(cards/heuristic/point_names.py reads a shown card's reasons back to their names).

A reason is a "why" point, named as its sentence is in bot/words (`heuristic.NAME`). It argues for
reading (kernel code, what users call, a setting's default, source spread across the engine, the
description's root cause, result or design), for skipping (only docs, tests, CI, build files,
data or wording; a bump, a revert, one line), or neither (where the change is, its tests). A card
contradicts its verdict when it says skip and gives a reason to read, or says read and every
reason it gives argues for skipping. A skim sits between the two: no reason contradicts it.
Pure.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from bot.models import Verdict

Leaning = Literal["read", "skip"]

READING = frozenset(
    {
        *("new_kernel", "kind_kernel", "kind_api", "kind_default", "areas"),
        *("point_cause", "point_result", "point_decision"),
    }
)
SKIPPING = frozenset(
    {
        *("only_ci", "only_docs", "only_tests", "only_tests_ci", "only_build", "only_wording", "docs_and_wording"),
        *("kind_bump", "kind_revert", "kind_one_line", "kind_data"),
    }
)
# The reasons that argue against each verdict (a skim has none).
_OPPOSITE: dict[Verdict, Leaning] = {"skip": "read", "read": "skip"}


@dataclass(frozen=True)
class Point:
    """A reason as the card shows it, and the name of its sentence."""

    name: str
    text: str


def leaning(name: str | None) -> Leaning | None:
    if name in READING:
        return "read"
    if name in SKIPPING:
        return "skip"
    return None


def against(verdict: Verdict, name: str | None) -> bool:
    """Whether a reason argues the other way from `verdict`: for reading on a skip, for skipping
    on a read."""
    opposite = _OPPOSITE.get(verdict)
    return opposite is not None and leaning(name) == opposite


def contradicts(verdict: Verdict, names: Iterable[str | None]) -> bool:
    """Whether reasons named so (None: a reason of no known sentence) contradict `verdict`."""
    leanings = [leaning(name) for name in names]
    if verdict == "skip":
        return "read" in leanings
    if verdict == "read":
        return bool(leanings) and all(found == "skip" for found in leanings)
    return False
