"""Unfurling pasted links to PRs (behind `[slack] unfurl = true`: Slack may prefer GitHub's own
app for github.com, so it is the operator's choice).

For each link to a PR (github.com/OWNER/REPO/pull/N, with or without /files, a query or an
anchor) of a repository the channel follows and may show (access/policy.py: a private one only
where configured, never in a channel shared with another organisation), chat.unfurl at once
with the stored card, or a heuristic one when none is stored; then, once the card is made
(the card queue or here, CardService.card), a second chat.unfurl for the same message replaces
it (Slack modifies the unfurl of the same channel+ts rather than adding one). Any other link,
and any channel that follows nothing (the composer's "COMPOSER" included), is not unfurled:
fail closed.

A rule, not a surface: the listener (slack/listeners/unfurls.py) reads the link_shared payload
and hands over the channel, the links and the target; the unfurl's blocks are the UnfurlWords it
is given (bot/ports/wording.py, render/slack/unfurls.py's `unfurl_blocks`). Imports no slack/ nor render/.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.access import AccessPolicy
from bot.cards import CardService
from bot.channels import ChannelDirectory
from bot.core.refs import GITHUB_WEB
from bot.core.strings.patterns import lazy
from bot.errors import NotFound, SourceError
from bot.models import Card, PRRef, PRSnapshot
from bot.ports.slack import SlackPort
from bot.ports.wording import UnfurlWords
from bot.spending import Payer

log = logging.getLogger(__name__)

# GitHub's owner and repository characters; N as GitHub numbers PRs. Anything after the number
# must start a new path segment, a query or an anchor ("/pull/12/files", "/pull/12#issue-1").
_PR_URL = lazy(
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


@dataclass(frozen=True)
class Unfurling:
    """One workspace's unfurls: its channels' plans and access, its cards, where its GitHub is."""

    directory: ChannelDirectory
    access: AccessPolicy
    cards: CardService
    words: UnfurlWords
    github_web: str = GITHUB_WEB
    # Whose budget pays for the cards made here (None: the single or home workspace).
    workspace: str | None = None

    def followed_links(self, channel: str, urls: Sequence[str]) -> dict[str, PRRef]:
        """The links (URL as sent → PR) that `channel` may be shown."""
        plan = self.directory.plan(channel)
        if plan is None:
            return {}
        followed = {repo.lower() for repo in plan.repos}
        found: dict[str, PRRef] = {}
        for url in urls:
            ref = pr_of(url, self.github_web)
            if ref is None or ref.repo.lower() not in followed or len(found) >= MAX_LINKS:
                continue
            if self.access.may_post(channel, ref.repo):
                found[url] = ref
        return found

    def unfurl(self, slack: SlackPort, channel: str, urls: Sequence[str], target: Target) -> None:
        """Unfurl the followed PR links among `urls`: at once, then again with the made card."""
        links = self.followed_links(channel, urls)
        if not links:
            return
        language = self.directory.language(channel)
        snapshots: dict[str, PRSnapshot] = {}
        first: dict[str, Card] = {}
        for url, ref in links.items():
            try:
                snapshot = self.cards.snapshot_by_ref(ref)
            except (NotFound, SourceError):
                continue  # GitHub does not know it, or cannot say now: no unfurl rather than a wrong one
            snapshots[url] = snapshot
            first[url] = self.cards.cached_card(snapshot, language) or self.cards.fallback(snapshot, language)
        if not first:
            return
        self._send(slack, target, snapshots, first)
        payer = Payer(channel, self.workspace)
        made = {url: self.cards.card(snapshot, language, payer=payer).card for url, snapshot in snapshots.items()}
        if made != first:
            self._send(slack, target, snapshots, made)

    def _send(self, slack: SlackPort, target: Target, snapshots: dict[str, PRSnapshot], cards: dict[str, Card]) -> None:
        unfurls = {url: self.words(snapshots[url].listing, card) for url, card in cards.items()}
        slack.unfurl(unfurls, channel=target.channel, ts=target.ts, unfurl_id=target.unfurl_id, source=target.source)
