"""The model's draft of a card, and how a draft becomes a card we can trust (pure).

CardDraft is the schema the model must fill. A draft is clipped to the card's limits
(DESIGN.md §1), checked for figures and identifiers the PR does not state, and, when the model
will not drop them, cut. When to ask and ask again is the card writer's (cards/writer.py).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from bot.core.checks.cutting import without_claims
from bot.core.checks.faithfulness import Check, SourceText, check_card_text, check_field
from bot.core.checks.templates import without_template
from bot.core.heuristic.headlines import headline as title_headline
from bot.core.prompting.prompts import CAVEATS_MAX, HEADLINE_MAX, WATCH_MAX, WHY_MAX
from bot.errors import ModelBadOutput
from bot.models import Card, Coverage, Language

# A point is one sentence (the prompt asks for that); this is the backstop.
POINT_MAX = 280
MINUTES_MAX = 240
# A headline shorter than this once its unsupported figures are cut says too little: the PR's
# title (as the heuristic card heads it: core/heuristic/headlines.py) stands in.
MIN_HEADLINE_CHARS = 12


def _points_schema(limit: int) -> dict[str, Any]:
    return {"maxItems": limit, "items": {"type": "string", "maxLength": POINT_MAX}}


# The lengths in CardDraft's JSON schema hold a local server's grammar to a card's size: a small
# model that repeats itself would otherwise write one string until its token cap cuts the JSON.
# They are not validated: a longer answer is clipped (card_from_draft), and the modes and servers
# that refuse such keywords are sent the schema without them (llm/openai_model.py).
class CardDraft(BaseModel):
    """The schema the model must fill (strict: every field required, nothing else)."""

    model_config = ConfigDict(extra="forbid", defer_build=True)

    headline: str = Field(json_schema_extra={"maxLength": max(HEADLINE_MAX.values())})
    verdict: Literal["skip", "skim", "read"]
    minutes: int
    why: list[str] = Field(json_schema_extra=_points_schema(WHY_MAX))
    caveats: list[str] = Field(json_schema_extra=_points_schema(CAVEATS_MAX))
    watch: list[str] = Field(json_schema_extra=_points_schema(WATCH_MAX))


def clip(text: str, limit: int) -> str:
    """Collapse whitespace and cut at a word boundary, marking the cut."""
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def _points(items: list[str], limit: int) -> tuple[str, ...]:
    cleaned = [clip(without_template(item), POINT_MAX) for item in items]
    return tuple(item for item in cleaned if item)[:limit]


def card_from_draft(draft: CardDraft, language: Language, coverage: Coverage, title: str = "") -> Card:
    # A local server's template tokens go before the check reads claims: `<|im_end|>` is no identifier.
    headline = clip(without_template(draft.headline), HEADLINE_MAX[language])
    if headline and not any(char.isalpha() for char in headline):
        # "1" or "-": a small model's headline that names nothing; the title says more.
        headline = title_headline(title) or headline
    if not headline:
        raise ModelBadOutput("the model returned an empty headline")
    return Card(
        headline=headline,
        verdict=draft.verdict,
        minutes=1 if draft.verdict == "skip" else min(max(draft.minutes, 1), MINUTES_MAX),
        why=_points(draft.why, WHY_MAX),
        caveats=_points(draft.caveats, CAVEATS_MAX),
        watch=_points(draft.watch, WATCH_MAX),
        source="llm",
        coverage=coverage,
        language=language,
    )


def check_card(card: Card, source: SourceText) -> Check:
    return check_card_text(card.headline, (*card.why, *card.caveats, *card.watch), source)


def without_unsupported(card: Card, check: Check, title: str, source: SourceText, *, untitled: str) -> Card:
    """The card with its unsupported claims cut from the headline and its unsupported points dropped.
    `untitled` is the placeholder, in the card's language, for a headline with nothing left: the
    caller words it, as core holds no sentences."""
    headline = without_claims(card.headline, check.headline.unsupported)
    # A cut that leaves a stub, or that could not remove a claim as written, gives way to the title.
    if len(headline) < MIN_HEADLINE_CHARS or not check_field(headline, source).ok:
        headline = title_headline(title) or headline or untitled
    kept = {field.text for field in check.points if field.ok}
    return replace(
        card,
        headline=headline,
        why=tuple(point for point in card.why if point in kept),
        caveats=tuple(point for point in card.caveats if point in kept),
        watch=tuple(point for point in card.watch if point in kept),
        checked=check.checked,
        dropped=len(check.unsupported),
    )
