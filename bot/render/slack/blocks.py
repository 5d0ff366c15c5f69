"""Slack messages as Block Kit: the digest's lead, its cards, one card, help, answers (pure).

Owns Slack's size limits: every Message here is valid as posted. Blocks are built through
slack_sdk's models (which check per-block limits) plus our guards for what the SDK does not
check. Untrusted text goes through render/mrkdwn.py; nothing here calls Slack.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ContextActionsBlock,
    ContextBlock,
    DividerBlock,
    FeedbackButtonObject,
    FeedbackButtonsElement,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from bot import words
from bot.core.checks.sanitize import repo_url, sanitize_text
from bot.core.followups import Answered
from bot.core.links import CrossLink
from bot.core.strings.patterns import lazy
from bot.models import Card, Digest, DigestItem, Language, PRListing, PRRef
from bot.ports.slack import Message
from bot.render.labels import counts_line, coverage_line, quiet_line, verdict_label, window_text
from bot.render.mrkdwn import ELLIPSIS, clip, escape, link
from bot.render.slack.followups import card_followup_lines
from bot.render.slack.links import card_link_lines, lead_revert_lines

# "msg_blocks_too_many" above 50 blocks (Block Kit blocks reference); slack_sdk does not check it.
MAX_BLOCKS = 50
# A text object in a section or context holds 3,000 characters (slack_sdk SectionBlock.text_max_length).
MAX_TEXT_CHARS = 3000
# Header text is plain_text of at most 150 characters (slack_sdk HeaderBlock.text_max_length).
MAX_HEADER_CHARS = 150
# Slack documents 12,000 characters per message (markdown block reference) and answers
# msg_blocks_too_long near 13,200 (bolt-js#2509, undocumented): stay well under both.
# Counted by message_chars(): every string in the blocks.
MAX_MESSAGE_CHARS = 10_000
# chat.update rejects a top-level text above 4,000 characters (chat.update reference).
MAX_FALLBACK_CHARS = 4000

# Our own caps, so one runaway field cannot crowd out the rest of its block.
MAX_HEADLINE_CHARS = 400  # DESIGN.md §1 asks ≤ 120; escaping `&` makes one character five
MAX_TITLE_CHARS = 400
MAX_FALLBACK_LINE_CHARS = 160
MAX_NOTES_CHARS = 1500

SHARE_ACTION = "share_card"
# A button's value holds 2,000 characters (slack_sdk ButtonElement.value_max_length).
MAX_BUTTON_VALUE = 2000

# The Useful / Not for us buttons under each card of a digest thread (issue 13).
FEEDBACK_ACTION = "card_feedback"
_FEEDBACK_VALUE = lazy(r"(up|down) ([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#([1-9][0-9]{0,9})")

_VERDICT_EMOJI = {"read": ":books:", "skim": ":eyes:", "skip": ":fast_forward:"}
_DIVIDER = DividerBlock().to_dict()
_DIVIDER_CHARS = sum(len(value) for value in _DIVIDER.values())


def message_chars(blocks: Iterable[Any]) -> int:
    """Characters in every string of the blocks (keys aside): what MAX_MESSAGE_CHARS bounds."""
    return sum(len(text) for text in strings(list(blocks)))


def strings(value: Any) -> Iterator[str]:
    """Every string inside a JSON-like value (dict values, list items), keys aside."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


def as_message(text: str, blocks: Sequence[dict[str, Any]]) -> Message:
    # The packers below keep to these; a breach is a bug here, better raised than sent.
    if len(blocks) > MAX_BLOCKS or message_chars(blocks) > MAX_MESSAGE_CHARS:
        raise ValueError(f"message over Slack's limits: {len(blocks)} blocks, {message_chars(blocks)} characters")
    return Message(text=clip(text, MAX_FALLBACK_CHARS) or ELLIPSIS, blocks=tuple(blocks))


def _mrkdwn(text: str) -> MarkdownTextObject:
    # verbatim: no auto-linking of bare URLs, channel names or mentions in text we did not write.
    return MarkdownTextObject(text=clip(text, MAX_TEXT_CHARS) or ELLIPSIS, verbatim=True)


def section_block(text: str) -> dict[str, Any]:
    return SectionBlock(text=_mrkdwn(text)).to_dict()


def context_block(text: str) -> dict[str, Any]:
    return ContextBlock(elements=[_mrkdwn(text)]).to_dict()


def header_block(text: str) -> dict[str, Any]:
    return HeaderBlock(text=PlainTextObject(text=clip(text, MAX_HEADER_CHARS))).to_dict()


def title_text(listing: PRListing) -> str:
    """The PR's title as mrkdwn. Its author wrote it for the model as much as for us, so it loses
    mentions and foreign links the way model text does (llm/sanitize.py), then is escaped."""
    return escape(sanitize_text(listing.title, repo_url(listing.url)))


def _pr_label(listing: PRListing, with_repo: bool) -> str:
    return f"{listing.repo}#{listing.number}" if with_repo else f"#{listing.number}"


def _card_text(listing: PRListing, card: Card) -> str:
    pr = link(listing.url, f"#{listing.number}")
    headline = clip(escape(card.headline), MAX_HEADLINE_CHARS)
    lines = [f"{_VERDICT_EMOJI[card.verdict]} *{pr}* {escape(verdict_label(card))} · {headline}"]
    title = title_text(listing)
    if card.source == "llm" and title and listing.title != card.headline:
        # A heuristic headline is the title itself; a model's is a rewrite, so show both.
        lines.append(clip(title, MAX_TITLE_CHARS))
    groups = [(words.text(card.language, f"card.{name}"), points) for name, points in _point_groups(card) if points]
    count = sum(len(points) for _, points in groups)
    fixed = sum(len(line) + 1 for line in lines) + sum(len(name) + 3 for name, _ in groups)
    # Share what is left of the section evenly, so a long first point cannot push out the caveats.
    budget = max((MAX_TEXT_CHARS - fixed) // max(count, 1) - 3, 20)
    for name, points in groups:
        lines.append(f"*{name}*")
        lines.extend(f"• {clip(escape(point), budget)}" for point in points)
    return "\n".join(lines)


def _point_groups(card: Card) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return (("why", card.why), ("caveats", card.caveats), ("watch", card.watch))


def _card_context(listing: PRListing, card: Card) -> str:
    language = card.language
    parts = [
        f"{listing.repo}#{listing.number}",
        words.text(language, "card.by", author=listing.author),
        words.text(language, "card.coverage", coverage=coverage_line(card.coverage, language)),
    ]
    if card.source == "heuristic":
        parts.append(words.text(language, "card.heuristic"))
    return escape(" · ".join(parts))


def card_blocks(listing: PRListing, card: Card) -> list[dict[str, Any]]:
    """A card as a section (verdict, headline, points) and a context line (PR, author, coverage)."""
    return [section_block(_card_text(listing, card)), context_block(_card_context(listing, card))]


def feedback_block(listing: PRListing, language: Language) -> dict[str, Any]:
    """Slack's feedback buttons for one card: "Useful" / "Not for us", valued `up|down owner/repo#N`."""

    def button(kind: str) -> FeedbackButtonObject:
        return FeedbackButtonObject(
            text=PlainTextObject(text=words.text(language, f"feedback.{kind}")),
            accessibility_label=words.text(language, f"feedback.{kind}_label"),
            value=f"{kind} {listing.repo}#{listing.number}",
        )

    element = FeedbackButtonsElement(
        action_id=FEEDBACK_ACTION, positive_button=button("up"), negative_button=button("down")
    )
    # block_id: unique within its message (several cards share one), ≤ 255 characters.
    block_id = clip(f"fb {listing.repo}#{listing.number}", 255)
    return ContextActionsBlock(elements=[element], block_id=block_id).to_dict()


def read_feedback_value(value: str) -> tuple[PRRef, bool] | None:
    """(the PR, True for Useful) of a feedback button's value; None for anything feedback_block did not write."""
    match = _FEEDBACK_VALUE.fullmatch(value) if len(value) <= MAX_BUTTON_VALUE else None
    return (PRRef(match[2], int(match[3])), match[1] == "up") if match else None


def _card_fallback(listing: PRListing, card: Card, with_repo: bool) -> str:
    line = f"{_pr_label(listing, with_repo)} {card.headline}"
    return clip(escape(line), MAX_FALLBACK_LINE_CHARS)


# The "pr" of a value share_value wrote: owner/name#N (GitHub's name characters, N ≤ 10 digits).
_SHARED_PR = lazy(r"([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)#([1-9][0-9]{0,9})")


@dataclass(frozen=True)
class ShareRequest:
    """What a Share button says: which PR, and who asked for its card (only they may share it)."""

    ref: PRRef
    requester: str  # Slack user id of the person who ran /pr


def share_value(listing: PRListing, requester: str) -> str:
    """The Share button's value. Slack sends it back as written, in a payload it signs with the
    clicker's own user id: the button names its asker, so nobody else's click can share."""
    return json.dumps({"pr": f"{listing.repo}#{listing.number}", "by": requester}, separators=(",", ":"))


def button_object(value: str) -> dict[str, object] | None:
    """The JSON object a button's value holds; None for anything else (Slack sends the value
    back as written, but a crafted payload may hold anything, of any size)."""
    if len(value) > MAX_BUTTON_VALUE:
        return None
    try:
        data = json.loads(value)
    except (ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def read_share_value(value: str) -> ShareRequest | None:
    """The request a Share button's value stands for; None for any value share_value did not write."""
    data = button_object(value)
    if data is None:
        return None
    pr, requester = data.get("pr"), data.get("by")
    if not isinstance(pr, str) or not isinstance(requester, str) or not requester:
        return None
    match = _SHARED_PR.fullmatch(pr)
    return ShareRequest(PRRef(match[1], int(match[2])), requester) if match else None


def card_message(listing: PRListing, card: Card, *, share_for: str | None = None, intro: str | None = None) -> Message:
    """One card (for /pr and answers); `share_for` (the asker's user id) adds the button that
    posts it to the channel, for that person only; `intro` is a line of already-safe mrkdwn shown above it."""
    blocks = ([section_block(intro)] if intro else []) + card_blocks(listing, card)
    if share_for is not None:
        button = ButtonElement(
            text=PlainTextObject(text=words.text(card.language, "card.share")),
            action_id=SHARE_ACTION,
            value=share_value(listing, share_for),
            style="primary",
        )
        blocks.append(ActionsBlock(elements=[button]).to_dict())
    text = f"{escape(verdict_label(card))} · {_card_fallback(listing, card, with_repo=True)}"
    return as_message(f"{intro}\n{text}" if intro else text, blocks)


def _digest_title(digest: Digest) -> str:
    day = window_text(digest.window)
    return f"{clip(', '.join(digest.repos), MAX_HEADER_CHARS - len(day) - 3)} · {day}"


def _notes(digest: Digest) -> list[dict[str, Any]]:
    if not digest.notes:
        return []
    lines = (f":warning: {escape(words.said(digest.language, note))}" for note in digest.notes)
    return [context_block(clip("\n".join(lines), MAX_NOTES_CHARS))]


def lead_text(digest: Digest) -> str:
    reads = [item for item in digest.items if item.card.verdict == "read"]
    with_repo = len(digest.repos) > 1
    lines = [escape(counts_line(digest))]
    room = MAX_TEXT_CHARS - len(lines[0]) - len(_more(digest, len(reads))) - 2
    for index, item in enumerate(reads):
        headline = clip(escape(item.card.headline), MAX_FALLBACK_LINE_CHARS)
        line = f"• {link(item.listing.url, _pr_label(item.listing, with_repo))} {headline}"
        if len(line) + 1 > room:
            lines.append(_more(digest, len(reads) - index))
            break
        lines.append(line)
        room -= len(line) + 1
    return "\n".join(lines)


def _more(digest: Digest, count: int) -> str:
    return escape(words.text(digest.language, "digest.more", n=count))


def lead_message(digest: Digest, links: Sequence[CrossLink] = ()) -> Message:
    """The channel message: header, counts, the read-worthy headlines, the PRs of this channel's
    earlier digests reverted today (`links`), notes, a pointer to the thread."""
    if not digest.items:
        return quiet_message(digest)
    title = _digest_title(digest)
    blocks = [header_block(title), section_block(lead_text(digest)), *_notes(digest)]
    if reverts := lead_revert_lines([item.listing for item in digest.items], links, digest.language):
        blocks.insert(2, section_block(reverts))
    blocks.append(context_block(escape(words.text(digest.language, "digest.thread"))))
    return as_message(f"{escape(title)}: {escape(counts_line(digest))}", blocks)


def quiet_message(digest: Digest) -> Message:
    """A digest with no card: one line saying whether nothing merged or nothing matched the filters."""
    line = f"*{escape(_digest_title(digest))}* · {escape(quiet_line(digest))}"
    return as_message(line, [section_block(line), *_notes(digest)])


def _thread_message(batch: Sequence[tuple[DigestItem, list[dict[str, Any]]]], with_repo: bool) -> Message:
    blocks: list[dict[str, Any]] = []
    for _, item_blocks in batch:
        if blocks:
            blocks.append(dict(_DIVIDER))
        blocks.extend(item_blocks)
    text = "\n".join(_card_fallback(item.listing, item.card, with_repo) for item, _ in batch)
    return as_message(text, blocks)


def thread_messages(
    digest: Digest, links: Sequence[CrossLink] = (), answered: Sequence[Answered] = ()
) -> list[Message]:
    """Every card in digest order, packed several to a message; the same digest gives the same list.
    A card whose PR refers to one of this channel's earlier digests (`links`), or answers a watch
    point of an earlier card of its repository (`answered`), says so under it."""
    with_repo = len(digest.repos) > 1
    messages: list[Message] = []
    batch: list[tuple[DigestItem, list[dict[str, Any]]]] = []
    count = chars = 0  # blocks and characters of the batch, dividers included
    for item in digest.items:
        blocks = card_blocks(item.listing, item.card)
        extra = [card_link_lines(item.listing, links, digest.language)]
        extra.append(card_followup_lines(item.listing, answered, digest.language))
        if lines := [line for line in extra if line]:
            # One context block for both: a card's blocks stay four at most.
            blocks.append(context_block(clip("\n".join(lines), MAX_TEXT_CHARS)))
        blocks.append(feedback_block(item.listing, digest.language))
        size = message_chars(blocks)
        if batch and (count + 1 + len(blocks) > MAX_BLOCKS or chars + _DIVIDER_CHARS + size > MAX_MESSAGE_CHARS):
            messages.append(_thread_message(batch, with_repo))
            batch, count, chars = [], 0, 0
        if batch:
            count, chars = count + 1, chars + _DIVIDER_CHARS
        batch.append((item, blocks))
        count, chars = count + len(blocks), chars + size
    if batch:
        messages.append(_thread_message(batch, with_repo))
    return messages


def help_message(command: str, language: Language) -> Message:
    """How to ask: the slash command's forms, an @mention, a reply in a digest thread; then how
    a channel follows repositories."""
    line = escape(words.text(language, "help.slack", cmd=command))
    follow = escape(words.text(language, "subs.help", cmd=command))
    watch = escape(words.text(language, "watch.help", cmd=command))
    return as_message(f"{line}\n{follow}\n{watch}", [section_block(line), section_block(follow), section_block(watch)])


def text_message(text: str) -> Message:
    """A section of mrkdwn that is already safe (answers from mrkdwn.answer_text, refusals)."""
    return as_message(text, [section_block(text)])


def sections_message(parts: Sequence[str]) -> Message:
    """Parts of safe mrkdwn, each in its own sections (a model's prose, then a list code built),
    a part longer than a section cut between its lines, never inside one; empty parts left out."""
    said = [part for part in parts if part.strip()]
    blocks = [section_block(chunk) for part in said for chunk in _line_chunks(part, MAX_TEXT_CHARS)]
    return as_message("\n\n".join(said), blocks)


def _line_chunks(text: str, limit: int) -> list[str]:
    """`text` in pieces of at most `limit` characters, each a run of whole lines (a line longer
    than `limit` alone, clipped by its section)."""
    chunks: list[str] = []
    for line in text.split("\n"):
        if chunks and len(chunks[-1]) + 1 + len(line) <= limit:
            chunks[-1] += "\n" + line
        else:
            chunks.append(line)
    return chunks
