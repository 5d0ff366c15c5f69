"""Replies to questions across days (services/across.py): the matching PRs as links with their
card's headline and verdict, in the channel's language (pure).

Headlines are cards' (sanitized when they were served); titles are sanitized and escaped here,
as everywhere (render/blocks.py `title_text`); links are built only from GitHub's own URLs.
"""

from __future__ import annotations

from bot.models import AcrossItem, AcrossMatches, AcrossRefused, Language, PRListing, Span
from bot.render.blocks import Message, text_message, title_text
from bot.render.labels import verdict_label
from bot.render.mrkdwn import clip, escape, link
from bot.words import text

# A headline is at most 120 characters (DESIGN.md §1); a title may be longer: one line each.
MAX_LINE_CHARS = 160


def span_text(span: Span, language: Language) -> str:
    """ "this week", "since 2026-11-30", "最近 3 天": the span as the reply's sentences name it."""
    match span.kind:
        case "days":
            return text(language, "reply.across_span_days", n=span.days)
        case "since":
            return text(language, "reply.across_span_since", day=span.start.isoformat())
        case _:
            return text(language, f"reply.across_span_{span.kind}")


def _item_line(item: AcrossItem, language: Language) -> str:
    pr = link(item.listing.url, f"#{item.listing.number}")
    if item.card is None:
        no_card = escape(text(language, "reply.across_no_card"))
        return f"• {pr} {clip(title_text(item.listing), MAX_LINE_CHARS)} _({no_card})_"
    headline = clip(escape(item.card.headline), MAX_LINE_CHARS)
    return f"• {pr} {headline} — {escape(verdict_label(item.card))}"


def _target_link(target: PRListing | None) -> str:
    return link(target.url, f"#{target.number}") if target is not None else ""


def across_message(reply: AcrossMatches, language: Language) -> Message:
    span = span_text(reply.span, language)
    repo = escape(reply.repo)
    topic = escape(", ".join(f"“{term}”" for term in reply.topic))
    count = len(reply.items) + reply.more
    if reply.relation is not None:
        found = "revert" if reply.relation == "revert" else "follow_up"
        name = f"reply.across_{found}_{'found' if count else 'none'}"
        header = text(language, name, repo=repo, span=span, link=_target_link(reply.target))
    elif not reply.merged:
        header = text(language, "reply.across_none_merged", repo=repo, span=span)
    elif not count:
        header = text(language, "reply.across_none", merged=reply.merged, repo=repo, span=span, topic=topic)
    elif reply.topic:
        header = text(
            language, "reply.across_found", count=count, merged=reply.merged, repo=repo, span=span, topic=topic
        )
    else:
        header = text(language, "reply.across_all", count=count, repo=repo, span=span)
    lines = [header, *(_item_line(item, language) for item in reply.items)]
    if reply.more:
        lines.append(text(language, "reply.across_more", n=reply.more))
    if reply.title_only:
        lines.append(text(language, "reply.across_title_only", n=reply.title_only))
    return text_message("\n".join(lines))


def across_refused_message(reply: AcrossRefused, language: Language) -> Message:
    repo = escape(reply.repo)
    match reply.reason:
        case "too_long":
            return text_message(text(language, "reply.across_too_long", max=reply.days))
        case "future":
            return text_message(text(language, "reply.across_future"))
        case "unavailable":
            return text_message(text(language, "reply.across_unavailable", repo=repo))
        case "no_repo":
            return text_message(text(language, "reply.across_no_repo"))
        case "not_allowed":
            return text_message(text(language, "reply.not_allowed", repo=repo))
