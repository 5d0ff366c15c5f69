"""Follow-ups answered as Slack mrkdwn: a card's line about the earlier card's follow-up its PR
answers (pure).

Like links across days, it depends on the day's digest, so it is added to a card's blocks when
a digest is rendered, never kept in the shared cached card. The point is the earlier card's
model text: escaped and clipped like the card's own points; the link is GitHub's URL.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC

from bot import words
from bot.core.followups import Answered
from bot.models import Language, PRListing
from bot.render.mrkdwn import clip, escape, link
from bot.render.slack.links import day_text

# One answered point, clipped: the line points at the earlier card, it does not repeat it.
MAX_POINT_CHARS = 200
EMOJI = ":eyes:"


def card_followup_lines(listing: PRListing, answered: Sequence[Answered], language: Language) -> str | None:
    """Which earlier cards' follow-ups a card's PR answers, one line each; None if none."""
    lines = []
    for item in answered:
        if item.number != listing.number or item.repo.lower() != listing.repo.lower():
            continue
        earlier = item.earlier
        label = f"#{earlier.number}"
        said = words.text(
            language,
            "watch.answers",
            pr=link(earlier.url, label) if earlier.url else label,
            day=day_text(earlier.merged_at.astimezone(UTC).date().isoformat(), language),
            point=clip(escape(item.point), MAX_POINT_CHARS),
        )
        lines.append(f"{EMOJI} {said}")
    return "\n".join(lines) if lines else None
