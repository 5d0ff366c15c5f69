"""A channel's weekly roll-up as one Slack message (pure): the week's counts, its must-reads (read
verdicts first, in the order the channel's feedback ranked them), how many PRs each area had,
the week's reverts, and the follow-ups of earlier cards the week answered.

One message, no thread of cards: a channel that chose a week wants the week at a glance. Every
line is clipped so the message keeps Block Kit's limits (render/slack/blocks.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from bot import words
from bot.core.followups import Answered
from bot.models import Digest, DigestItem, Language
from bot.ports.slack import Message
from bot.render.labels import counts_line, quiet_line
from bot.render.mrkdwn import clip, escape, link
from bot.render.slack.blocks import (
    MAX_FALLBACK_LINE_CHARS,
    MAX_HEADER_CHARS,
    MAX_TEXT_CHARS,
    as_message,
    context_block,
    header_block,
    section_block,
)

# Must-reads listed by name; the rest are counted ("… and 7 more").
MUST_READS_SHOWN = 10
AREAS_SHOWN = 8
REVERTS_SHOWN = 10
ANSWERED_SHOWN = 10


def week_title(digest: Digest) -> str:
    first = digest.window.start.date().isoformat()
    last = (digest.window.end - timedelta(seconds=1)).date().isoformat()
    repos = ", ".join(digest.repos)
    said = words.text(digest.language, "weekly.title", repos=repos, first=first, last=last)
    return clip(said, MAX_HEADER_CHARS)


def _line(item: DigestItem) -> str:
    listing = item.listing
    return f"• {link(listing.url, f'#{listing.number}')} {clip(escape(item.card.headline), MAX_FALLBACK_LINE_CHARS)}"


def _listed(heading: str, lines: Sequence[str], shown: int, language: Language) -> str:
    out = [f"*{escape(heading)}*", *lines[:shown]]
    if len(lines) > shown:
        out.append(escape(words.text(language, "weekly.more", n=len(lines) - shown)))
    return clip("\n".join(out), MAX_TEXT_CHARS)


def weekly_message(digest: Digest, areas: Sequence[tuple[str, int]], answered: Sequence[Answered]) -> Message:
    """The roll-up of `digest` (the week's PRs, ranked), `areas` (area, PRs) most first, and the
    follow-ups `answered` by the week's PRs."""
    language = digest.language
    title = week_title(digest)
    if not digest.items:
        line = escape(quiet_line(digest))
        return as_message(f"{title}: {line}", [header_block(title), section_block(line)])
    blocks = [header_block(title), section_block(escape(counts_line(digest)))]
    reads = [_line(item) for item in digest.items if item.card.verdict == "read"]
    if reads:
        blocks.append(
            section_block(_listed(words.text(language, "weekly.must_reads"), reads, MUST_READS_SHOWN, language))
        )
    if areas:
        shown = " · ".join(f"{escape(area)} {count}" for area, count in areas[:AREAS_SHOWN])
        blocks.append(context_block(clip(f"{escape(words.text(language, 'weekly.areas'))} {shown}", MAX_TEXT_CHARS)))
    reverts = [_line(item) for item in digest.items if item.listing.title.lower().startswith("revert")]
    if reverts:
        blocks.append(section_block(_listed(words.text(language, "weekly.reverts"), reverts, REVERTS_SHOWN, language)))
    if answered:
        lines = [
            f"• #{item.number} → #{item.earlier.number}: {clip(escape(item.point), MAX_FALLBACK_LINE_CHARS)}"
            for item in answered
        ]
        blocks.append(section_block(_listed(words.text(language, "weekly.answered"), lines, ANSWERED_SHOWN, language)))
    blocks.append(context_block(escape(words.text(language, "weekly.thread"))))
    return as_message(f"{title}: {counts_line(digest)}", blocks)
