"""AcrossDays: questions about a repository's merged PRs over several days ("what merged in vllm
this week about MoE?", "did anything revert #50879?"), answered from what is already known.

The span's PRs come from GitHub's list endpoints through CardService.merged (one list per window
for everyone asking within MERGED_TTL; the channel's stored digests cannot stand in for it: they
are filtered by the channel's rules and cut at the posting time, not at midnight). Each PR is then
read only from the store: its cached snapshot (files, comments) and card. A PR without them is
matched on its title, body-free metadata and labels only and counted as such; it is never fetched
inline, since a week of a busy repository is hundreds of PRs (`prdigest digest` or the poller
caches them). The answer is the matching PRs themselves, so it says nothing the cards and titles
do not: no model is asked, and every headline is a sanitized card's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.core.links import KnownPR, find_links
from bot.errors import NotFound, SourceError
from bot.models import (
    VERDICT_ORDER,
    AcrossItem,
    AcrossMatches,
    AcrossRefused,
    Audience,
    Language,
    PRListing,
    PRRef,
    PRSnapshot,
)
from bot.services.cards import CardService
from bot.services.questions import find_refs, words
from bot.services.refs import GITHUB_WEB, pr_url
from bot.services.spans import MAX_SPAN_DAYS, AcrossQuestion, parse_across, revert_span, span_problem, span_window
from bot.store.history import DigestHistory

# What one Slack reply lists: a screenful; the rest are counted ("and 12 more").
MAX_ITEMS = 10
_PATH_PARTS = re.compile(r"[/._-]")


class AcrossDays:
    def __init__(
        self,
        cards: CardService,
        *,
        now: Callable[[], datetime],
        zone_of: Callable[[str], ZoneInfo],
        known_repos: Callable[[], Iterable[str]] = tuple,
        history: DigestHistory | None = None,
        web_base: str = GITHUB_WEB,
    ) -> None:
        self._cards = cards
        self._web_base = web_base  # where a PR known only by its reference links to
        # Every repository the workspace follows: "owner/name" typed in a question is the
        # repository asked about when it is one of them (refused when this channel may not see
        # it), and a path otherwise.
        self._known_repos = known_repos
        self._now = now
        # The asking channel's timezone: "today" and "since Monday" are its days.
        self._zone_of = zone_of
        # The channel's earlier digests: the title and merge commit of a PR a revert names.
        self._history = history

    def read(self, question: str, audience: Audience) -> AcrossQuestion | None:
        """The question across days `question` asks, or None when it asks about one PR or a digest.

        A bare name ("vllm") stands only for a repository the audience may see here, the
        channel's own first: never for a private one elsewhere, whose owner the reply would name.
        The days are the asker's where the audience has a zone (the app's DM), else the channel's.
        """
        today = self._now().astimezone(audience.zone or self._zone_of(audience.channel)).date()
        allowed = audience.repos
        known = frozenset(repo.lower() for repo in self._known_repos()) | allowed
        asked = parse_across(question, today, known, allowed, audience.default_repo)
        if asked is not None and asked.target is None and find_refs(question, "_/_"):
            return None  # "what did #123 change this week?": a PR named outright is the question's
        return asked

    def answer(self, asked: AcrossQuestion, audience: Audience) -> AcrossMatches | AcrossRefused:
        repo = asked.repo or audience.default_repo
        if repo is None:
            return AcrossRefused("no_repo")
        if not audience.may_see(repo):
            return AcrossRefused("not_allowed", repo)
        channel, language = audience.channel, audience.language
        zone = audience.zone or self._zone_of(channel)
        now = self._now()
        today = now.astimezone(zone).date()
        span = asked.span or revert_span(today)
        problem = span_problem(span, today)
        if problem is not None:
            return AcrossRefused(problem, repo, days=MAX_SPAN_DAYS, said=span.unreadable)
        try:
            listings = self._cards.merged(repo, span_window(span, zone, now))
        except NotFound:
            return AcrossRefused("not_found", repo)
        except SourceError:
            return AcrossRefused("unavailable", repo)
        # Read from the store only: a PR it does not hold is matched on what the list gave.
        known = [(listing, self._cards.cached_snapshot(listing)) for listing in listings]
        target = None
        if asked.target is not None:
            target = self._target(PRRef(repo, asked.target), listings, channel, today)
            found = [
                self._item(listing, snapshot, language)
                for listing, snapshot in known
                if _links_to(listing, snapshot, target, asked)
            ]
        else:
            every = ((self._item(listing, snapshot, language), snapshot) for listing, snapshot in known)
            found = [item for item, snapshot in every if _matches(item, snapshot, asked)]
        items = sorted(found, key=_rank)
        return AcrossMatches(
            repo=repo,
            span=span,
            topic=asked.terms,
            items=tuple(items[:MAX_ITEMS]),
            more=max(len(items) - MAX_ITEMS, 0),
            title_only=sum(1 for item in items if item.card is None),
            merged=len(listings),
            target=target,
            relation=asked.relation,
        )

    def _item(self, listing: PRListing, snapshot: PRSnapshot | None, language: Language) -> AcrossItem:
        if snapshot is None:
            return AcrossItem(listing, None)
        return AcrossItem(listing, self._cards.cached_card(snapshot, language), snapshot.additions + snapshot.deletions)

    def _target(self, ref: PRRef, listings: list[PRListing], channel: str, today: date) -> PRListing:
        """The earlier PR a revert is asked about, from what is known of it without asking GitHub:
        the span's list, its cached snapshot, the channel's digests; else its number alone."""
        listed = next((listing for listing in listings if listing.ref == ref), None)
        if listed is not None:
            return listed
        cached = self._cards.cached_by_ref(ref)
        if cached is not None:
            return cached.listing
        url = pr_url(self._web_base, ref)
        if self._history is not None:
            shown = self._history.before(channel, (today + timedelta(days=1)).isoformat())
            for entry in shown:
                if entry.repo.lower() == ref.repo.lower() and entry.number == ref.number:
                    return PRListing(ref.repo, ref.number, entry.title, "", "", entry.url or url, None, entry.merge_sha)
        return PRListing(ref.repo, ref.number, "", "", "", url, None, None)


def _rank(item: AcrossItem) -> tuple[int, int, int]:
    """Read first, then skim, skip, and PRs without a card; within each, the larger first."""
    verdict = VERDICT_ORDER[item.card.verdict] if item.card is not None else len(VERDICT_ORDER)
    return (verdict, -item.size, -item.listing.number)


def _matches(item: AcrossItem, snapshot: PRSnapshot | None, asked: AcrossQuestion) -> bool:
    """Whether the PR is about the question's topic: every path asked about is one it changes
    (or its title names), and some topic word is in its title, labels, files or card headline.
    No topic: every PR of the span."""
    listing = item.listing
    paths = tuple(change.path.lower() for change in snapshot.files) if snapshot is not None else ()
    title = listing.title.lower()
    for path in asked.paths:
        wanted = path.lower()
        if not any(changed.startswith(wanted) or f"/{wanted}" in changed for changed in paths) and wanted not in title:
            return False
    if not asked.topic:
        return True
    headline = item.card.headline if item.card is not None else ""
    found = words(f"{listing.title} {headline} {' '.join(listing.labels)}")
    # "moe_intermediate", "fp8-moe": a word's parts are words too ("MoE" asks for both).
    found |= {part for word in found for part in _PATH_PARTS.split(word) if len(part) > 1}
    found |= {part.lower() for path in paths for part in _PATH_PARTS.split(path) if len(part) > 2}
    return any(word in found for word in asked.topic)


def _links_to(listing: PRListing, snapshot: PRSnapshot | None, target: PRListing, asked: AcrossQuestion) -> bool:
    """Whether the PR reverts (or follows up) `target`, by the rules digests link PRs by."""
    if listing.number == target.number:
        return False
    known = {target.number: KnownPR(target.number, target.title, target.merge_sha)}
    comments = tuple(comment.body for comment in snapshot.comments) if snapshot is not None else ()
    links = find_links(listing.repo, listing.number, listing.title, listing.body, comments, known)
    return any(link.kind == asked.relation for link in links)
