"""A person's daily watch DM, and the answers of `/pr watch`, as Block Kit (pure).

One message a day: a line saying what it is, then each matching PR's card (the same blocks as in
a digest's thread) under the watch it matched. What does not fit Slack's limits for one message
is listed by link at the end, as "and N more".
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slack_sdk.models.blocks import ContextBlock, DividerBlock, MarkdownTextObject, SectionBlock

from bot import words
from bot.core.watches import Watch, WatchMatch
from bot.models import Language
from bot.ports.slack import Message
from bot.render.mrkdwn import ELLIPSIS, clip, escape, link
from bot.render.slack.blocks import MAX_BLOCKS, MAX_MESSAGE_CHARS, MAX_TEXT_CHARS, card_blocks, message_chars

# The "and N more" section at the end, when not every card fits: its blocks and characters are
# kept free while cards are packed.
_TAIL_BLOCKS = 1
_TAIL_CHARS = MAX_TEXT_CHARS
_FALLBACK_LINES = 20


def _section(text: str) -> dict[str, Any]:
    return SectionBlock(text=MarkdownTextObject(text=clip(text, MAX_TEXT_CHARS) or ELLIPSIS, verbatim=True)).to_dict()


def _context(text: str) -> dict[str, Any]:
    return ContextBlock(
        elements=[MarkdownTextObject(text=clip(text, MAX_TEXT_CHARS) or ELLIPSIS, verbatim=True)]
    ).to_dict()


def _matched(watches: Sequence[Watch], language: Language) -> str:
    shown = ", ".join(f"`{escape(watch.shown)}`" for watch in watches)
    return words.text(language, "watch.matched", watches=shown)


def watch_dm_message(items: Sequence[WatchMatch], day: str, language: Language) -> Message:
    """The DM for `day` (YYYY-MM-DD, the person's local day) with every item that fits."""
    intro = escape(words.text(language, "watch.dm_intro", n=len(items), day=day))
    blocks: list[dict[str, Any]] = [_section(intro)]
    chars = message_chars(blocks)
    shown = 0
    for item in items:
        more = [dict(DividerBlock().to_dict()), _context(_matched(item.watches, language))]
        more += card_blocks(item.listing, item.card)
        size = message_chars(more)
        last = shown == len(items) - 1
        room_blocks = MAX_BLOCKS - (0 if last else _TAIL_BLOCKS)
        room_chars = MAX_MESSAGE_CHARS - (0 if last else _TAIL_CHARS)
        if len(blocks) + len(more) > room_blocks or chars + size > room_chars:
            break
        blocks += more
        chars += size
        shown += 1
    rest = items[shown:]
    if rest:
        blocks.append(_section(_more(rest, language)))
    lines = [intro, *(f"{item.listing.repo}#{item.listing.number} {escape(item.card.headline)}" for item in items)]
    text = clip("\n".join(lines[:_FALLBACK_LINES]), 3000)
    return Message(text=text or ELLIPSIS, blocks=tuple(blocks))


def _more(rest: Sequence[WatchMatch], language: Language) -> str:
    head = escape(words.text(language, "watch.dm_more", n=len(rest)))
    room = MAX_TEXT_CHARS - len(head) - 1
    links: list[str] = []
    for item in rest:
        entry = link(item.listing.url, f"{item.listing.repo}#{item.listing.number}")
        if len(entry) + 2 > room:
            break
        links.append(entry)
        room -= len(entry) + 2
    return f"{head}\n{', '.join(links)}" if links else head


def watch_list_text(watches: Sequence[Watch], command: str, language: Language) -> str:
    """`/pr watch list`: each watch as it is typed, or how to add one."""
    if not watches:
        return escape(words.text(language, "watch.none", cmd=command))
    lines = [escape(words.text(language, "watch.list_title", n=len(watches)))]
    lines += [f"• `{escape(watch.shown)}`" for watch in watches]
    lines.append(escape(words.text(language, "watch.list_hint", cmd=command)))
    return "\n".join(lines)
