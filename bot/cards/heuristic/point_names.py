"""Which sentence a shown reason of a card made without a model is, read back from its words, and
whether a shown card's reasons contradict its verdict (core/heuristic/reasons.py's rule).

A stored card keeps its points as text only, so `prdigest eval` reads them back against the
language's sentences (bot/words `heuristic.NAME`) to count the cards that argue against themselves.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache

from bot.core.heuristic.reasons import READING, SKIPPING, contradicts
from bot.core.strings.patterns import lazy
from bot.models import Card, Language
from bot.words import CATALOGUES

_PLACEHOLDER = lazy(r"\{[a-z_]+\}")


def point_name(text: str, language: Language) -> str | None:
    """The name of the sentence a shown reason is, among those that lean a way; None for any other."""
    return next((name for name, pattern in _patterns(language).items() if pattern.fullmatch(text)), None)


def card_contradicts(card: Card) -> bool:
    """Whether a card made without a model gives reasons against its verdict. A model's reasons
    are its own prose, which these sentences cannot read: False."""
    if card.source != "heuristic":
        return False
    return contradicts(card.verdict, (point_name(text, card.language) for text in card.why))


@cache
def _patterns(language: Language) -> Mapping[str, re.Pattern[str]]:
    """Each leaning sentence of `language` as a pattern: its words as written, any value between."""
    words = CATALOGUES[language]
    patterns = {}
    for name in sorted(READING | SKIPPING):
        parts = _PLACEHOLDER.split(words[f"heuristic.{name}"])
        patterns[name] = re.compile(".+".join(re.escape(part) for part in parts), re.DOTALL)
    return patterns
