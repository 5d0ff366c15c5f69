"""WatchAnswers: a digest's PRs that answer watch points of earlier cards of their repositories.

Keeps the watch points of the digest's cards (store/watch_items.py) and finds, with
core/watch.py, which earlier points today's PRs answer, today's earlier-merged PRs included.
Only the digest's own repositories are read, so a channel hears only of PRs of repositories it
follows. Kept items are a cache: when Redis is away, the digest goes out without these lines.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from bot.core.watch import MAX_PATHS, Answered, LaterPR, WatchItem, answers
from bot.errors import StoreError
from bot.models import Digest, DigestItem
from bot.store.watch_items import WatchItems

log = logging.getLogger(__name__)

# How long a card's watch points are kept and answered (config `[defaults] watch_days`).
DEFAULT_WATCH_DAYS = 30


def watch_item(item: DigestItem) -> WatchItem | None:
    """What is kept of a digest item for later PRs: None when its card has no watch point."""
    listing = item.listing
    if not item.card.watch or listing.merged_at is None:
        return None
    return WatchItem(
        listing.repo,
        listing.number,
        listing.title,
        listing.url,
        listing.merged_at,
        item.card.watch,
        item.paths[:MAX_PATHS],
        listing.merge_sha,
        item.card.language,
    )


def later_pr(item: DigestItem) -> LaterPR:
    listing = item.listing
    return LaterPR(
        listing.repo, listing.number, listing.title, listing.body, listing.merged_at, item.paths, item.mentions
    )


class WatchAnswers:
    def __init__(self, items: WatchItems, days: int = DEFAULT_WATCH_DAYS) -> None:
        self._items = items
        self._keep = timedelta(days=days)
        self._days = days

    def find(self, digest: Digest) -> tuple[Answered, ...]:
        """Keep the digest's watch points; which earlier ones its PRs answer (Answered, by PR)."""
        try:
            return self._find(digest)
        except StoreError as exc:
            # A store that fails closed: the digest goes out without these lines, never stops for them.
            log.warning("watch items not read: %s", exc)
            return ()

    def _find(self, digest: Digest) -> tuple[Answered, ...]:
        today = [kept for item in digest.items if (kept := watch_item(item)) is not None]
        self._items.record(today, self._days)
        later = [later_pr(item) for item in digest.items if item.listing.merged_at is not None]
        found: list[Answered] = []
        for repo in sorted({pr.repo.casefold() for pr in later}):
            prs = [pr for pr in later if pr.repo.casefold() == repo]
            times = [pr.merged_at for pr in prs if pr.merged_at is not None]
            stored = self._items.between(prs[0].repo, min(times) - self._keep, max(times), digest.language)
            # Today's own items too: a PR may answer one merged hours before it, in the same digest.
            known = {item.number: item for item in stored if item.repo.casefold() == repo}
            known |= {item.number: item for item in today if item.repo.casefold() == repo}
            found.extend(answers(prs, known.values(), self._keep))
        return tuple(found)
