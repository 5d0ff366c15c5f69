"""A release digest as Slack messages (pure): the lead (title, counts, must-reads, "before you
upgrade", and for `/pr release` a Share button), and the thread, one message per area or more
when an area outgrows Slack's limits: read-worthy cards in full, skips one line each.

A 500-PR release is tens of messages, not hundreds, and every one keeps Block Kit's limits
(render/slack/blocks.py owns them: 50 blocks, 3,000 characters a section).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import ActionsBlock, ButtonElement, DividerBlock, PlainTextObject

from bot import words
from bot.errors import PublishError, SourceError, StoreError, UsageError, quoted
from bot.models import (
    DigestItem,
    Language,
    NotAllowed,
    NotYours,
    ReleaseDigest,
    ReleaseGroup,
    ReleaseRefused,
    ReleaseShared,
    Upgrade,
)
from bot.ports.slack import Message
from bot.render.labels import verdict_label
from bot.render.mrkdwn import clip, escape, link
from bot.render.releases import release_title
from bot.render.slack.blocks import (
    MAX_BLOCKS,
    MAX_FALLBACK_LINE_CHARS,
    MAX_MESSAGE_CHARS,
    MAX_TEXT_CHARS,
    as_message,
    button_object,
    card_blocks,
    context_block,
    header_block,
    lead_text,
    message_chars,
    section_block,
    text_message,
)
from bot.render.slack.replies import not_allowed_text, say, share_refusal_text

SHARE_RELEASE_ACTION = "share_release"
_DIVIDER = DividerBlock().to_dict()
_DIVIDER_CHARS = message_chars([_DIVIDER])
# "Before you upgrade" points shown in the lead; the rest are in the thread's own section.
LEAD_UPGRADE_POINTS = 15


@dataclass(frozen=True)
class ReleaseShare:
    """What a release's Share button says: which release, and who asked for it."""

    repo: str
    tag: str
    base: str
    requester: str


def share_release_value(release: ReleaseDigest, requester: str) -> str:
    return json.dumps(
        {"repo": release.repo, "tag": release.tag, "since": release.base, "by": requester}, separators=(",", ":")
    )


def read_share_release_value(value: str) -> ReleaseShare | None:
    """The release a Share button's value stands for; None for any value not written above."""
    data = button_object(value)
    if data is None:
        return None
    fields = [data.get(name) for name in ("repo", "tag", "since", "by")]
    if not all(isinstance(field, str) and field for field in fields):
        return None
    repo, tag, base, requester = (str(field) for field in fields)
    return ReleaseShare(repo, tag, base, requester)


def _upgrade_line(upgrade: Upgrade, language: Language) -> str:
    listing = upgrade.item.listing
    kind = words.text(language, f"release.kind.{upgrade.note.kind}")
    said = clip(escape(upgrade.note.said), MAX_FALLBACK_LINE_CHARS)
    return f"• *{escape(kind)}* {link(listing.url, f'#{listing.number}')} {said}"


def _sections(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Lines packed into as few sections as Slack's 3,000 characters a section allow."""
    chunk: list[str] = []
    size = 0
    for line in lines:
        if chunk and size + len(line) + 1 > MAX_TEXT_CHARS:
            yield section_block("\n".join(chunk))
            chunk, size = [], 0
        chunk.append(line)
        size += len(line) + 1
    if chunk:
        yield section_block("\n".join(chunk))


def release_lead(release: ReleaseDigest, *, share_for: str | None = None) -> Message:
    """The channel message (or, with `share_for`, the asker's preview with its Share button)."""
    digest = release.digest
    language = digest.language
    title = release_title(release)
    body = lead_text(digest) if digest.items else escape(words.text(language, "release.empty"))
    blocks = [header_block(title), section_block(body)]
    if release.upgrade:
        shown = release.upgrade[:LEAD_UPGRADE_POINTS]
        lines = [f"*{escape(words.text(language, 'release.upgrade'))}*"]
        lines += [_upgrade_line(upgrade, language) for upgrade in shown]
        if len(release.upgrade) > len(shown):
            lines.append(escape(words.text(language, "digest.more", n=len(release.upgrade) - len(shown))))
        blocks.extend(list(_sections(lines))[:3])
    if digest.items:
        blocks.append(context_block(escape(words.text(language, "digest.thread"))))
    if share_for is not None:
        button = ButtonElement(
            text=PlainTextObject(text=words.text(language, "card.share")),
            action_id=SHARE_RELEASE_ACTION,
            value=share_release_value(release, share_for),
            style="primary",
        )
        blocks.append(ActionsBlock(elements=[button]).to_dict())
    # The notification text is mrkdwn too: the tag and the release's words are GitHub's, escaped.
    return as_message(f"{escape(title)}: {body.splitlines()[0]}", blocks)


# The errors a release's Share tells as they are: a refusal, GitHub, a tag the repository lacks.
TOLD_ERRORS = (PublishError, SourceError, UsageError)


def release_reply(
    reply: ReleaseDigest | NotAllowed | ReleaseRefused, language: Language, *, share_for: str | None
) -> Message:
    """`/pr release`'s reply (releases/lookup.py): the lead with its Share button for `share_for`
    alone, or why there is none."""
    if isinstance(reply, ReleaseDigest):
        return release_lead(reply, share_for=share_for)
    if isinstance(reply, NotAllowed):
        return text_message(not_allowed_text(language, reply.shown))
    if reply.usage is not None:
        return text_message(escape(words.said(language, reply.usage)))
    return text_message(escape(words.text(language, "release.unavailable", repo=quoted(reply.repo))))


def release_share_text(reply: ReleaseShared | NotYours | NotAllowed, language: Language) -> str | None:
    """What the person who clicked a release's Share is told (None: nothing, the post says it)."""
    if isinstance(reply, NotYours | NotAllowed):
        return share_refusal_text(reply, language)  # as a card's Share says it
    return None


def release_error_text(error: Exception, language: Language) -> str:
    """Why a release's Share posted nothing: Redis away, a refusal, or an error nobody expected."""
    if isinstance(error, StoreError):
        return say(language, "try_later")
    if isinstance(error, TOLD_ERRORS):
        return escape(error.in_language(language))
    return say(language, "failed")


def _group_units(group: ReleaseGroup, lang: Language) -> list[list[dict[str, Any]]]:
    """The area's parts, each kept whole in one message: its title with the PRs to skim and skip,
    one line each, then each card worth a careful read in full."""
    title = f"*{escape(words.text(lang, 'release.area', area=group.area, n=len(group.items)))}*"
    lines = [title] + [_line(item) for item in group.items if item.card.verdict != "read"]
    units: list[list[dict[str, Any]]] = [[section] for section in _sections(lines)]
    units += [card_blocks(item.listing, item.card) for item in group.items if item.card.verdict == "read"]
    return units


def _line(item: DigestItem) -> str:
    """One PR in a line: its link, headline and verdict."""
    headline = clip(escape(item.card.headline), MAX_FALLBACK_LINE_CHARS)
    return f"• {link(item.listing.url, f'#{item.listing.number}')} {headline} — {escape(verdict_label(item.card))}"


def release_thread(release: ReleaseDigest) -> list[Message]:
    """The thread: every "before you upgrade" point when the lead could not show them all, then
    the areas, read-worthy first, packed into as few messages as Slack's limits allow (an area's
    part is never split): a 500-PR release is tens of messages, not hundreds."""
    language = release.digest.language
    units: list[tuple[str, list[dict[str, Any]]]] = []
    if len(release.upgrade) > LEAD_UPGRADE_POINTS:
        lines = [f"*{escape(words.text(language, 'release.upgrade'))}*"]
        lines += [_upgrade_line(upgrade, language) for upgrade in release.upgrade]
        units += [(words.text(language, "release.upgrade"), [section]) for section in _sections(lines)]
    units += [(group.area, unit) for group in release.groups for unit in _group_units(group, language)]
    messages: list[Message] = []
    blocks: list[dict[str, Any]] = []
    areas: list[str] = []
    for area, unit in units:
        if blocks and (
            len(blocks) + 1 + len(unit) > MAX_BLOCKS
            or message_chars(blocks) + message_chars(unit) + _DIVIDER_CHARS > MAX_MESSAGE_CHARS
        ):
            messages.append(as_message(_fallback(areas), blocks))
            blocks, areas = [], []
        if blocks:
            blocks.append(dict(_DIVIDER))
        blocks.extend(unit)
        if area not in areas:
            areas.append(area)
    if blocks:
        messages.append(as_message(_fallback(areas), blocks))
    return messages


def _fallback(areas: list[str]) -> str:
    """The message's notification text: the areas it holds (a title's tag, a directory or a
    label: GitHub's words, escaped as in the blocks)."""
    return escape(", ".join(areas))


class ReleaseBlocks:
    """ReleaseMessages (ports/messages.py) as Slack shows them."""

    def lead(self, release: ReleaseDigest) -> Message:
        return release_lead(release)

    def thread(self, release: ReleaseDigest) -> list[Message]:
        return release_thread(release)
