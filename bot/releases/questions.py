"""ReleaseQuestions: what a question about releases is answered from ("is #50912 in a release?",
"what's in v0.12.0 about MoE?", "between v0.11.0 and v0.12.0 in the scheduler?").

A release's PRs are its range's (releases/ranges.py: the compare, read once and kept);
each is then read from the store only, as questions across days read theirs: its cached
snapshot and card, else its title from the squash commit's subject. No PR is fetched and no card
made for an answer. Which release holds a PR is the newest of the recent full releases whose
range holds it, each range read once.
"""

from __future__ import annotations

from datetime import date

from bot.cards import CardService
from bot.core.refs import GITHUB_WEB, pr_url
from bot.errors import NotFound, SourceError, UsageError
from bot.models import AcrossRefused, InRelease, PRListing, PRRef, PRSnapshot, Release, ReleasePR, Span
from bot.releases.digests import ReleaseDigests

# How many full releases back "which release has #N" looks: a few months of a busy repository.
RELEASES_SEARCHED = 12

Known = list[tuple[PRListing, PRSnapshot | None]]


class ReleaseQuestions:
    def __init__(self, releases: ReleaseDigests, cards: CardService, web_base: str = GITHUB_WEB) -> None:
        self._releases = releases
        self._cards = cards
        self._web_base = web_base

    def among(self, repo: str, said: str, today: date) -> tuple[Span, Known] | AcrossRefused:
        """The release's PRs (or the range's, "A...B") as questions across days read them."""
        since, _, tag = said.partition("...")
        try:
            releases = self._releases.releases(repo)
            if tag:
                found = self._releases.range(repo, self._tag(tag, releases), self._tag(since, releases))
            else:
                found = self._releases.range(repo, self._tag(since, releases))
        except UsageError:
            return AcrossRefused("release_unknown", repo, said=said)
        except NotFound:
            return AcrossRefused("not_found", repo)
        except SourceError:
            return AcrossRefused("unavailable", repo)
        known = [self._known(repo, pr) for pr in found.prs]
        days = [listing.merged_at.date() for listing, _ in known if listing.merged_at is not None]
        label = f"{found.base}...{found.tag}" if tag else found.tag
        return Span("release", min(days, default=today), release=label), known

    def which(self, ref: PRRef) -> InRelease | AcrossRefused:
        """The release that holds the PR, or none yet."""
        cached = self._cards.cached_by_ref(ref)
        pr = (
            cached.listing
            if cached is not None
            else PRListing(ref.repo, ref.number, "", "", "", self._url(ref), None, None)
        )
        try:
            full = self._full(self._releases.releases(ref.repo))
            for release in full[:RELEASES_SEARCHED]:
                try:
                    found = self._releases.range(ref.repo, release.tag)
                except UsageError:
                    break  # the first release: nothing before it to compare with
                if any(item.number == ref.number for item in found.prs):
                    published = release.published_at.date() if release.published_at else None
                    return InRelease(pr, release.tag, published, full[0].tag)
        except NotFound:
            return AcrossRefused("not_found", ref.repo)
        except SourceError:
            return AcrossRefused("unavailable", ref.repo)
        return InRelease(pr, None, latest=full[0].tag if full else None)

    def _known(self, repo: str, pr: ReleasePR) -> tuple[PRListing, PRSnapshot | None]:
        ref = PRRef(repo, pr.number)
        stub = PRListing(repo, pr.number, pr.title, "", "", self._url(ref), None, pr.sha)
        snapshot = self._cards.cached_snapshot(stub)
        return (snapshot.listing, snapshot) if snapshot is not None else (stub, None)

    def _url(self, ref: PRRef) -> str:
        return pr_url(self._web_base, ref)

    @staticmethod
    def _full(releases: list[Release]) -> list[Release]:
        """Published full releases, newest first."""
        dated = [(r.published_at, r) for r in releases if not r.draft and not r.prerelease and r.published_at]
        return [release for _, release in sorted(dated, key=lambda pair: pair[0], reverse=True)]

    @staticmethod
    def _tag(said: str, releases: list[Release]) -> str:
        """The tag `said` stands for: as typed, with or without its "v", or "0.12" for v0.12.0."""
        tags = [release.tag for release in releases]
        bare = said.lower().removeprefix("v")
        for tag in tags:
            if tag.lower() == said.lower() or tag.lower().removeprefix("v") == bare:
                return tag
        for tag in tags:
            if tag.lower().removeprefix("v") in (f"{bare}.0", f"{bare}.0.0"):
                return tag
        return said  # as typed: a bare tag, or one the range reports unknown
