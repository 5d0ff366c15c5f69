"""ReleaseDigests: a release as a digest: its PRs with their cards, grouped by area, and what to
know before upgrading.

The range's PRs come from releases/ranges.py; each PR's snapshot from the store when its
merge commit was read before (the release's commit is the PR's merge SHA, so no request at all),
else its listing from GitHub once; cards as every digest makes them (digests/build.py), within
the token budget. Counts are the digest's, computed in code. "Before you upgrade" is read from the
cards the release already has (releases/upgrade_notes.py), never asked of the model anew.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from bot.cards import CardService
from bot.digests import FETCHERS, DigestService, Progress, groups
from bot.errors import NotFound
from bot.models import (
    Language,
    PRListing,
    PRRef,
    Release,
    ReleaseDigest,
    ReleasePR,
    Upgrade,
    Window,
)
from bot.ops.logs import carried
from bot.ports import Source
from bot.releases.ranges import ReleaseRange, ReleaseRanges
from bot.releases.upgrade_notes import upgrade_notes
from bot.spending import CLI_PAYER, Payer

_NEVER = datetime(1970, 1, 1, tzinfo=UTC)


class ReleaseDigests:
    def __init__(self, ranges: ReleaseRanges, digests: DigestService, cards: CardService, source: Source) -> None:
        self._ranges = ranges
        self._digests = digests
        self._cards = cards
        self._source = source

    def latest_tag(self, repo: str) -> str:
        """The tag of the newest full release (UsageError when there is none)."""
        return self._ranges.latest(repo).tag

    def releases(self, repo: str) -> list[Release]:
        """The repository's releases (from the store for a few minutes, else GitHub)."""
        return self._ranges.releases(repo)

    def range(self, repo: str, tag: str, since: str | None = None) -> ReleaseRange:
        """Which PRs the release holds (from the store once read): no card is read or made."""
        return self._ranges.range(repo, tag, since)

    def build(
        self,
        repo: str,
        tag: str,
        since: str | None = None,
        *,
        language: Language = "en",
        progress: Progress | None = None,
        payer: Payer = CLI_PAYER,
    ) -> ReleaseDigest:
        return self.of(self._ranges.range(repo, tag, since), language=language, progress=progress, payer=payer)

    def of(
        self,
        found: ReleaseRange,
        *,
        language: Language = "en",
        progress: Progress | None = None,
        payer: Payer = CLI_PAYER,
    ) -> ReleaseDigest:
        """The digest of a range already read: its PRs' cards, grouped, and what to know before upgrading."""
        listings = self._listings(found)
        digest = self._digests.of(
            (found.repo,), _window(listings), listings, language=language, progress=progress, payer=payer
        )
        upgrade = tuple(
            Upgrade(item, note)
            for item in digest.items
            for note in upgrade_notes(item.card.caveats, item.listing.title, item.listing.labels, item.card.headline)
        )
        return ReleaseDigest(
            found.repo, found.tag, found.base, digest, groups(digest.items), upgrade, unnamed=found.unnamed
        )

    def _listings(self, found: ReleaseRange) -> list[PRListing]:
        """Each PR's listing: from its stored snapshot (keyed by the merge SHA the compare gave),
        else from GitHub, a few at a time. A PR GitHub no longer has is left out."""

        def one(pr: ReleasePR) -> PRListing | None:
            stub = PRListing(found.repo, pr.number, "", "", "", "", None, pr.sha)
            cached = self._cards.cached_snapshot(stub)
            if cached is not None:
                return cached.listing
            try:
                return self._source.get_listing(PRRef(found.repo, pr.number))
            except NotFound:
                return None

        with ThreadPoolExecutor(max_workers=FETCHERS, thread_name_prefix="release") as pool:
            # One carried context per task: a context cannot be entered by two threads at once.
            pending = [pool.submit(carried(one), pr) for pr in found.prs]
            return [listing for future in pending if (listing := future.result()) is not None]


def _window(listings: list[PRListing]) -> Window:
    """From the first merge of the range to just after its last (the digest's header days)."""
    merged = sorted(listing.merged_at for listing in listings if listing.merged_at is not None)
    if not merged:
        return Window(_NEVER, _NEVER)  # a range of no PRs: its digest says so, and no day
    return Window(merged[0], merged[-1] + timedelta(seconds=1))
