"""PRs in a relation over days (pure): "which PRs were reverted this week?" is each revert of the
span beside the PR it reverts, and "any follow-ups?" each follow-up beside what it follows up.

Links are found by the rules digests link PRs by (core/links.py): only PRs known to be merged (of
the span, or shown by the channel's earlier digests) are linked, so a wrong pair is not made.
Where the PRs come from (GitHub's list, the store, the digests) is the caller's (questions/across/days.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from bot.core.links import KnownPR, Shown, find_links
from bot.core.refs import pr_url
from bot.models import PRListing, PRRef, PRSnapshot
from bot.models.reading import Relation

Pair = tuple[PRListing, PRSnapshot | None]


def in_relation(
    known: list[Pair], relation: Relation, earlier: Iterable[Pair], cached: Callable[[PRRef], PRSnapshot | None]
) -> list[Pair]:
    """The PRs of `known` that revert (or follow up) another, each followed by the PR it refers
    to: one of `known` or of `earlier`, read from the store (`cached`) when it holds that PR."""
    candidates = {listing.number: (listing, snapshot) for listing, snapshot in known}
    for listing, snapshot in earlier:
        candidates.setdefault(listing.number, (listing, snapshot))
    merged = {number: KnownPR(number, listing.title, listing.merge_sha) for number, (listing, _) in candidates.items()}
    kept: dict[int, Pair] = {}
    for listing, snapshot in known:
        comments = tuple(comment.body for comment in snapshot.comments) if snapshot is not None else ()
        links = find_links(listing.repo, listing.number, listing.title, listing.body, comments, merged)
        targets = [link.number for link in links if link.kind == relation]
        if targets:
            kept.setdefault(listing.number, (listing, snapshot))
        for number in targets:
            other, other_snapshot = candidates[number]
            read = other_snapshot or cached(other.ref)
            kept.setdefault(number, (read.listing, read) if read is not None else (other, None))
    return list(kept.values())


def shown_listing(entry: Shown, web_base: str) -> PRListing:
    """A PR as a channel's digest showed it, when the store no longer holds it: its title, page
    and merge commit (no body, author or labels)."""
    url = entry.url or pr_url(web_base, PRRef(entry.repo, entry.number))
    return PRListing(entry.repo, entry.number, entry.title, "", "", url, None, entry.merge_sha)
