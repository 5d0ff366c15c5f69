"""ReleaseDigests: a release as a digest: its PRs with their cards, grouped by area, and what to
know before upgrading.

The range's PRs come from releases/ranges.py; each PR's snapshot from the store when its
merge commit was read before (the release's commit is the PR's merge SHA, so no request at all),
else its listing from GitHub once; cards as every digest makes them (digests/build.py), within
the token budget. Counts are the digest's, computed in code. "Before you upgrade" is read from the
cards the release already has (releases/upgrade_notes.py), never asked of the model anew.
"""

from __future__ import annotations

from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

from bot.cards.service import CardService
from bot.digests.build import FETCHERS, DigestService, Progress
from bot.digests.feedback import item_areas
from bot.errors import NotFound
from bot.models import (
    DigestItem,
    Language,
    PRListing,
    PRRef,
    Release,
    ReleaseDigest,
    ReleaseGroup,
    ReleasePR,
    Upgrade,
    Window,
)
from bot.ops.logs import carried
from bot.ports import Source
from bot.releases.ranges import ReleaseRange, ReleaseRanges
from bot.releases.upgrade_notes import upgrade_notes
from bot.workspaces.spending import CLI_PAYER, Payer

_NEVER = datetime(1970, 1, 1, tzinfo=UTC)
# The group of a PR that has no label, title tag or path to speak of.
OTHER_AREA = "other"


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


def group_area(item: DigestItem) -> str:
    """The one area a PR is grouped under: its title's first tag ("[Kernel]"), else the top
    directory it changes, else its first label. Labels come last here (though first in the
    feedback ranking) since many say where a PR is in review ("ready"), not what it is about."""
    found = item_areas(item)
    tag = next((area for area in found if area.startswith("[")), None)
    path = next((area for area in found if area.endswith("/")), None)
    return tag or path or (found[0] if found else OTHER_AREA)


def groups(items: tuple[DigestItem, ...]) -> tuple[ReleaseGroup, ...]:
    """The items by area, read-worthy groups first (the most must-reads, then the most to skim,
    then the largest), each group in the digest's order. Tags are grouped whatever their case
    ("[Bugfix]", "[BugFix]"), under the first spelling met."""
    by_area: dict[str, list[DigestItem]] = defaultdict(list)
    spelled: dict[str, str] = {}
    for item in items:
        area = group_area(item)
        by_area[spelled.setdefault(area.lower(), area)].append(item)

    def weight(area: str) -> tuple[int, int, int, str]:
        members = by_area[area]
        reads = sum(item.card.verdict == "read" for item in members)
        skims = sum(item.card.verdict == "skim" for item in members)
        return (-reads, -skims, -len(members), area)

    return tuple(ReleaseGroup(area, tuple(by_area[area])) for area in sorted(by_area, key=weight))


def area_counts(items: tuple[DigestItem, ...]) -> list[tuple[str, int]]:
    """How many PRs each area had, most first, areas grouped as `groups` groups them."""
    return [(group.area, len(group.items)) for group in sorted(groups(items), key=lambda g: -len(g.items))]


def _window(listings: list[PRListing]) -> Window:
    """From the first merge of the range to just after its last (the digest's header days)."""
    merged = sorted(listing.merged_at for listing in listings if listing.merged_at is not None)
    if not merged:
        return Window(_NEVER, _NEVER)  # a range of no PRs: its digest says so, and no day
    return Window(merged[0], merged[-1] + timedelta(seconds=1))
