"""WatchFinder: the merged PRs of a window that a person's watches match, each with its card.

Reads the same things a channel's digest reads and in the same way: the window's listing per
repository, each PR's snapshot from the shared store (fetched once per merge commit, whoever
asks first), and a card only for the PRs that match, from the shared card cache. So a PR in a
channel's digest and in a DM is paid for once, and a watch on a repository no channel follows
pays for the PRs it matches, not for the whole repository.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.cards import CardService
from bot.core.watches import Candidate, Watch, WatchMatch, matching, repos_of
from bot.models import Language, PRSnapshot, Window
from bot.ports import Source
from bot.spending import ALERTS, Payer


def candidate(snapshot: PRSnapshot) -> Candidate:
    listing = snapshot.listing
    return Candidate(
        repo=listing.repo,
        number=listing.number,
        title=listing.title,
        body=listing.body,
        comments=tuple(comment.body for comment in snapshot.comments),
        # Files unknown (GitHub's rate limit): no path matches, rather than a guess.
        paths=tuple(change.path for change in snapshot.files) if snapshot.complete else (),
    )


class WatchFinder:
    def __init__(self, source: Source, cards: CardService) -> None:
        self._source = source
        self._cards = cards

    def find(
        self, watches: Sequence[Watch], window: Window, language: Language, workspace: str | None = None
    ) -> list[WatchMatch]:
        """The window's merged PRs matching any of `watches` (people's of `workspace`, whose budget
        pays for cards made for them), oldest merge first. Raises SourceError when GitHub cannot
        list a repository (the caller tries again later)."""
        payer = Payer(ALERTS, workspace)
        items: list[WatchMatch] = []
        for repo in repos_of(watches):
            mine = [watch for watch in watches if watch.repo.lower() == repo.lower()]
            for listing in self._source.list_merged(repo, window):
                if listing.merged_at is None or not window.contains(listing.merged_at):
                    continue
                snapshot = self._cards.snapshot(listing)
                matched = matching(mine, candidate(snapshot))
                if matched:
                    items.append(WatchMatch(listing, self._cards.card(snapshot, language, payer=payer).card, matched))
        items.sort(key=lambda item: (item.listing.merged_at or window.end, item.listing.repo, item.listing.number))
        return items
