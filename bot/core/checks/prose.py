"""Whether a model's answer to a question is prose a person can read, or data (pure).

Owns one rule: an answer that is a JSON value (an object or an array, bare or in a code fence) or
a card (our card's fields, as JSON or as the material's `Card headline:` lines) is no answer.
A small model asked in the card writer's mode, or one that recites the card it was shown, writes
exactly that. Must not change the text: core/checks/sanitize.py finds such an answer unusable, and
core/checks/sentence_release.py withholds it while it streams.
"""

from __future__ import annotations

import re

from bot.core.strings.patterns import lazy

# An opening code fence, with or without its language: ```json, ``` .
_FENCE = lazy(r"\A\s*```[\w-]*[ \t]*\n?")
# How a JSON object or array starts: `{"…`, `{}`, `[{`, `[[`, `["…`, `[]`. Prose never opens so;
# "[Bugfix] …" or "[1] …" do not match.
_JSON_START = lazy(r"\A\s*(?:\{\s*[\"}]|\[\s*[\[{\"\]])")
# A card's two required fields (core/prompting/drafts.py), as JSON keys or as our material labels them
# (core/prompting/conversation.py `card_text`).
_CARD_FIELDS = (
    lazy(r"\"headline\"\s*:|^\s*card headline\s*:", re.MULTILINE | re.IGNORECASE),
    lazy(r"\"verdict\"\s*:|^\s*card verdict\s*:", re.MULTILINE | re.IGNORECASE),
)


def is_data(text: str) -> bool:
    """Whether `text` is a JSON value or a card rather than an answer in words."""
    opened = _FENCE.sub("", text, count=1)
    if _JSON_START.search(opened):
        return True
    return all(field.search(text) for field in _CARD_FIELDS)
