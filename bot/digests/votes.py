"""Votes: the Useful / Not for us buttons under each card of a digest's thread, one vote per
person per PR, kept per channel and never shown per person (digests/feedback.py tallies them).

The PR's areas come from the digest the thread belongs to (its cards and their paths, kept 30
days), else from the PR's cached snapshot. A card the channel may no longer see counts for nothing.
"""

from __future__ import annotations

from typing import Literal

from bot.access import AccessPolicy
from bot.cards import CardService
from bot.digests.feedback import areas, item_areas
from bot.errors import PrdigestError, StoreError
from bot.models import PRRef, Vote
from bot.store.feedback import FeedbackStore
from bot.store.threads import ThreadStore

# kept; not counted (a card the channel may not see, or one no longer known); or Redis is away.
Kept = Literal["kept", "ignored", "not_kept"]


class Votes:
    def __init__(self, store: FeedbackStore, threads: ThreadStore, cards: CardService, access: AccessPolicy) -> None:
        self._store = store
        self._threads = threads
        self._cards = cards
        self._access = access

    def vote(self, channel: str, user: str, ref: PRRef, up: bool, thread_ts: str) -> Kept:
        """Keep `user`'s click on `ref`'s card, in the digest thread `thread_ts` of `channel`."""
        if not self._access.audience(channel, user=user).may_see(ref.repo):
            return "ignored"
        try:
            found = self._areas(channel, thread_ts, ref)
            if found is None:
                return "ignored"
            self._store.vote(channel, user, Vote(f"{ref.repo}#{ref.number}", up, found))
        except StoreError:
            return "not_kept"
        return "kept"

    def reset(self, channel: str) -> None:
        """Forget every vote of `channel` (StoreError when Redis is away: nothing was changed)."""
        self._store.reset(channel)

    def _areas(self, channel: str, thread_ts: str, ref: PRRef) -> tuple[str, ...] | None:
        thread = self._threads.digest(channel, thread_ts) if thread_ts else None
        item = next((item for item in thread.items if item.listing.ref == ref), None) if thread else None
        if item is not None:
            return item_areas(item)
        try:
            snapshot = self._cards.snapshot_by_ref(ref)
        except PrdigestError:
            return None
        listing = snapshot.listing
        return areas(listing.labels, (change.path for change in snapshot.files), listing.title)
