"""A PR's card as a compact unfurl under a pasted link (pure): the verdict and its minutes, the
headline (with its figure, as the card states it), and a context line with the PR, its coverage
and, for a card made without the model, saying so. Points, caveats and buttons stay in the card
itself (/pr, the digest): an unfurl sits under someone else's message.

Untrusted text (the headline, the title) is escaped here; the link is GitHub's own URL.
"""

from __future__ import annotations

from typing import Any

from slack_sdk.models.blocks import ContextBlock, MarkdownTextObject, SectionBlock

from bot import words
from bot.models import Card, PRListing
from bot.render.labels import coverage_line, verdict_label
from bot.render.mrkdwn import clip, escape, link
from bot.render.slack.blocks import MAX_HEADLINE_CHARS, MAX_TEXT_CHARS, title_text

_VERDICT_EMOJI = {"read": ":books:", "skim": ":eyes:", "skip": ":fast_forward:"}


def unfurl_blocks(listing: PRListing, card: Card) -> dict[str, Any]:
    """What chat.unfurl takes for one URL: {"blocks": [...]}."""
    pr = link(listing.url, f"{listing.repo}#{listing.number}")
    headline = clip(escape(card.headline), MAX_HEADLINE_CHARS)
    lines = [f"{_VERDICT_EMOJI[card.verdict]} *{escape(verdict_label(card))}* · {pr} · {headline}"]
    title = title_text(listing)
    if card.source == "llm" and title and listing.title != card.headline:
        lines.append(clip(title, MAX_TEXT_CHARS // 4))
    language = card.language
    context = [words.text(language, "card.coverage", coverage=coverage_line(card.coverage, language))]
    if card.source == "heuristic":
        context.append(words.text(language, "card.heuristic"))
    # verbatim: a title's bare domain or #channel-name is not made a link under someone's message.
    section = SectionBlock(text=MarkdownTextObject(text=clip("\n".join(lines), MAX_TEXT_CHARS), verbatim=True))
    footer = ContextBlock(
        elements=[MarkdownTextObject(text=clip(escape(" · ".join(context)), MAX_TEXT_CHARS), verbatim=True)]
    )
    return {"blocks": [section.to_dict(), footer.to_dict()]}
