"""CardStore: snapshots, cards and card leases, on any KV (Redis or memory).

Keys (relative to the KV's prefix) and why they live as long as they do:
- snapshot:{repo}#{n}:{revision}   30 days: merged PRs never change; a month stays answerable.
- revision:{repo}#{n}              90 days: a merged PR's revision, for look-ups by number: its
                                   merge SHA, or its head SHA when it was found through search
                                   (which gives no merge SHA; the files name the head).
- card:{repo}#{n}:{sha}:{prompt}:{model}:{lang}  30 days (a fallback card: as long as asked).
- merged:{repo}:{start}:{end}      10 minutes: a window's merged PRs, for the other channels
                                   whose digests of the same window start at the same time;
                                   30 days once the window is final (cards/service.py): a past
                                   day's digest run again then asks GitHub nothing.
- lock:{name}                      a lease: single flight across processes.
Repository names in keys are lower-cased: GitHub ignores their case, so `ACME/Widgets#5` and
`acme/widgets#5` must find one snapshot and one card (values keep GitHub's own spelling).
"""

from __future__ import annotations

import uuid

from pydantic import TypeAdapter, ValidationError

from bot.models import Card, CardKey, PRListing, PRRef, PRSnapshot, Window
from bot.store import codec
from bot.store.codec import deferred
from bot.store.kv import DAY, KV

SNAPSHOT_TTL = 30 * DAY
REVISION_TTL = 90 * DAY
# Cards are keyed by prompt version and model, so old ones are never read again: let them go.
CARD_TTL = 30 * DAY
# Long enough for every channel due at one post time; short enough that a PR GitHub's search
# listed late is seen by the next digest of the window (`/pr digest` run again, a retry).
MERGED_TTL = 600
# A final window's list never changes: kept as long as the snapshots it leads to.
MERGED_FINAL_TTL = SNAPSHOT_TTL
_LISTINGS: TypeAdapter[list[PRListing]] = deferred(list[PRListing])


def _pr(repo: str, number: int) -> str:
    return f"{repo.lower()}#{number}"


def snapshot_key(ref: PRRef, revision: str) -> str:
    return f"snapshot:{_pr(ref.repo, ref.number)}:{revision}"


def revision_key(ref: PRRef) -> str:
    return f"revision:{_pr(ref.repo, ref.number)}"


def card_key(key: CardKey) -> str:
    """Also the name of the card's single-flight lease: one writer per key, however spelled."""
    return f"card:{_pr(key.repo, key.number)}:{key.revision}:{key.prompt_version}:{key.model}:{key.language}"


def merged_key(repo: str, window: Window) -> str:
    return f"merged:{repo.lower()}:{window.start.isoformat()}:{window.end.isoformat()}"


def lease_key(name: str) -> str:
    return f"lock:{name}"


class CardStore:
    def __init__(self, kv: KV) -> None:
        self.kv = kv

    def get_snapshot(self, ref: PRRef, revision: str) -> PRSnapshot | None:
        raw = self.kv.get(snapshot_key(ref, revision))
        return codec.load_snapshot(raw) if raw else None

    def put_snapshot(self, snapshot: PRSnapshot) -> None:
        """Keep a complete snapshot of a merged PR; anything else is never cached. Its revision is
        the merge SHA, or for a PR found through search (which gives none) the head SHA."""
        listing = snapshot.listing
        revision = listing.revision if listing.merged_at is not None else None
        if not snapshot.complete or revision is None:
            return
        self.kv.set(snapshot_key(snapshot.ref, revision), codec.dump_snapshot(snapshot), SNAPSHOT_TTL)
        self.kv.set(revision_key(snapshot.ref), revision.encode(), REVISION_TTL)

    def get_revision(self, ref: PRRef) -> str | None:
        raw = self.kv.get(revision_key(ref))
        return raw.decode() if raw else None

    def get_merged(self, repo: str, window: Window) -> list[PRListing] | None:
        raw = self.kv.get(merged_key(repo, window))
        text = codec.unpacked(raw) if raw else None
        if not text:
            return None
        try:
            return _LISTINGS.validate_json(text)
        except ValidationError:
            return None  # written by another version: read again

    def put_merged(self, repo: str, window: Window, listings: list[PRListing], *, final: bool = False) -> None:
        """Keep a window's list: briefly, or for a month when `final` (no merge can join it now)."""
        ttl = MERGED_FINAL_TTL if final else MERGED_TTL
        self.kv.set(merged_key(repo, window), codec.packed(_LISTINGS.dump_json(listings)), ttl)

    def get_card(self, key: CardKey) -> Card | None:
        raw = self.kv.get(card_key(key))
        return codec.load_card(raw) if raw else None

    def put_card(self, key: CardKey, card: Card, ttl_seconds: int | None = None) -> None:
        """Keep a card; `ttl_seconds` shortens its life (fallback cards are retried later)."""
        self.kv.set(card_key(key), codec.dump_card(card), ttl_seconds or CARD_TTL)

    def try_lock(self, name: str, ttl_seconds: float) -> str | None:
        """Take a named lease; its token, or None when someone else holds it."""
        token = uuid.uuid4().hex
        return token if self.kv.set_nx(lease_key(name), token.encode(), int(ttl_seconds * 1000)) else None

    def release(self, name: str, token: str) -> None:
        self.kv.delete_if(lease_key(name), token.encode())

    def renew(self, name: str, token: str, ttl_seconds: float) -> bool:
        """Extend a lease we hold; False when it is no longer ours."""
        return self.kv.renew(lease_key(name), token.encode(), int(ttl_seconds * 1000))

    def lock_held(self, name: str) -> bool:
        return self.kv.exists(lease_key(name))
