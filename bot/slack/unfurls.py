"""Unfurling pasted links to PRs (behind `[slack] unfurl = true`: Slack may prefer GitHub's own
app for github.com, so it is the operator's choice).

For each link to a PR (github.com/OWNER/REPO/pull/N, with or without /files, a query or an
anchor) of a repository the channel follows and may show (services/access.py: a private one only
where configured, never in a channel shared with another organisation), chat.unfurl at once
with the stored card, or a heuristic one when none is stored; then, once the card is made
(the card queue or here, CardService.card), a second chat.unfurl for the same message replaces
it (Slack modifies the unfurl of the same channel+ts rather than adding one). Any other link,
and any channel that follows nothing (the composer's "COMPOSER" included), is not unfurled:
fail closed.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from bot.errors import NotFound, SourceError
from bot.models import Card, PRRef, PRSnapshot
from bot.ports.slack import SlackPort
from bot.render.unfurls import unfurl_blocks
from bot.services.refs import GITHUB_WEB
from bot.slack.deps import SlackDeps

log = logging.getLogger(__name__)

# GitHub's owner and repository characters; N as GitHub numbers PRs. Anything after the number
# must start a new path segment, a query or an anchor ("/pull/12/files", "/pull/12#issue-1").
_PR_URL = re.compile(
    r"https://(?:www\.)?([A-Za-z0-9.-]{1,253})/([A-Za-z0-9_.-]{1,100})/([A-Za-z0-9_.-]{1,100})"
    r"/pull/([1-9][0-9]{0,9})(?:[/?#].*)?",
    re.ASCII,
)
# Slack sends the links of one message together; more than this many PRs are not unfurled, so
# one pasted list cannot keep the work pool and GitHub busy.
MAX_LINKS = 5


@dataclass(frozen=True)
class Target:
    """Where the unfurl goes: (unfurl_id, source) when the event has them, else (channel, ts)."""

    channel: str | None = None
    ts: str | None = None
    unfurl_id: str | None = None
    source: str | None = None


def pr_of(url: str, web: str = GITHUB_WEB) -> PRRef | None:
    """The PR a link points to on the GitHub at `web` (a github.com link is not an Enterprise
    server's PR of the same name), or None."""
    match = _PR_URL.fullmatch(url) if len(url) <= 2000 else None
    host = web.partition("://")[2].rstrip("/").lower()
    if match is None or match[1].lower() != host:
        return None
    return PRRef(f"{match[2]}/{match[3]}", int(match[4]))


def target_of(event: dict[str, Any]) -> Target | None:
    unfurl_id, source = event.get("unfurl_id"), event.get("source")
    if isinstance(unfurl_id, str) and unfurl_id and isinstance(source, str) and source:
        return Target(unfurl_id=unfurl_id, source=source)
    channel, ts = event.get("channel"), event.get("message_ts")
    if isinstance(channel, str) and channel and isinstance(ts, str) and ts:
        return Target(channel=channel, ts=ts)
    return None


def followed_links(deps: SlackDeps, event: dict[str, Any]) -> dict[str, PRRef]:
    """The event's links (URL as sent → PR) that this channel may be shown."""
    channel = event.get("channel")
    plan = deps.directory.plan(channel) if isinstance(channel, str) else None
    if plan is None or not isinstance(channel, str):
        return {}
    followed = {repo.lower() for repo in plan.repos}
    found: dict[str, PRRef] = {}
    urls = [link.get("url") for link in event.get("links") or [] if isinstance(link, dict)]
    for url in (url for url in urls if isinstance(url, str)):
        ref = pr_of(url, deps.github_web)
        if ref is None or ref.repo.lower() not in followed or len(found) >= MAX_LINKS:
            continue
        if deps.access.may_post(channel, ref.repo):
            found[url] = ref
    return found


def unfurl(deps: SlackDeps, slack: SlackPort, event: dict[str, Any]) -> None:
    """Unfurl the event's followed PR links: at once, then again with the made card."""
    links = followed_links(deps, event)
    target = target_of(event)
    if not links or target is None:
        return
    channel = str(event["channel"])
    language = deps.directory.language(channel)
    snapshots: dict[str, PRSnapshot] = {}
    first: dict[str, Card] = {}
    for url, ref in links.items():
        try:
            snapshot = deps.cards.snapshot_by_ref(ref)
        except (NotFound, SourceError):
            continue  # GitHub does not know it, or cannot say now: no unfurl rather than a wrong one
        snapshots[url] = snapshot
        first[url] = deps.cards.cached_card(snapshot, language) or deps.cards.fallback(snapshot, language)
    if not first:
        return
    _send(slack, target, snapshots, first)
    made = {
        url: deps.cards.card(snapshot, language, payer=deps.payer(channel)).card for url, snapshot in snapshots.items()
    }
    if made != first:
        _send(slack, target, snapshots, made)


def _send(slack: SlackPort, target: Target, snapshots: dict[str, PRSnapshot], cards: dict[str, Card]) -> None:
    unfurls = {url: unfurl_blocks(snapshots[url].listing, card) for url, card in cards.items()}
    slack.unfurl(unfurls, channel=target.channel, ts=target.ts, unfurl_id=target.unfurl_id, source=target.source)
