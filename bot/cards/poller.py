"""MergePoller: each followed repository's newly merged PRs, asked of GitHub every few minutes,
and their cards queued for the workers, so that at post time the digest only posts.

One replica polls a repository at a time: the poll's lease (`poll:{repo}`) lasts the interval and
is never released, so whichever replica's tick comes first polls, and nobody again before the
interval is over. What was polled up to is kept (`polled:{repo}`); the next poll starts a little
before it, since GitHub may list a PR merged just before a poll only after it (the queue and the
card cache make a PR seen twice cost nothing).
Keys are not the workspace's: cards (and so their jobs) are shared by every workspace.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta

from bot.cards.service import CardService
from bot.errors import PrdigestError, StoreError
from bot.models import Language, Window
from bot.ports import Source
from bot.spending import WORKER, Payer
from bot.store.kv import DAY, KV

log = logging.getLogger(__name__)

# A first poll (or one after a long pause) looks back a day: today's digest is due within it.
FIRST_LOOK_BACK = timedelta(hours=24)
OVERLAP = timedelta(minutes=5)
POLLED_TTL = 7 * DAY


class MergePoller:
    def __init__(
        self,
        source: Source,
        cards: CardService,
        kv: KV,
        interval: timedelta,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._source = source
        self._cards = cards
        self._kv = kv
        self._interval = interval
        self._now = now

    def poll(self, wanted: Mapping[str, Mapping[Language, str | None]]) -> int:
        """Poll each repository of `wanted` (repo → the languages its channels read, each with the
        workspace whose budget pays for its cards: spending.background_workspace) whose turn it
        is; how many cards were queued. Nothing is asked of GitHub while no worker is alive."""
        if not self._cards.workers_alive():
            return 0
        queued = 0
        for repo, languages in wanted.items():
            try:
                queued += self._poll(repo, languages)
            except StoreError:
                return queued  # Redis away: no lease to take, no queue to fill
            except PrdigestError as exc:  # GitHub refused: the next interval tries again
                log.warning("polling %s for merged PRs failed: %s", repo, exc)
        return queued

    def _poll(self, repo: str, languages: Mapping[Language, str | None]) -> int:
        name = repo.lower()
        lease_ms = int(self._interval.total_seconds() * 1000)
        if not self._kv.strict().set_nx(f"poll:{name}", uuid.uuid4().hex.encode(), lease_ms):
            return 0  # polled within the interval, here or by another replica
        now = self._now()
        raw = self._kv.get(f"polled:{name}")
        since = _moment(raw) if raw else None
        start = max(since - OVERLAP, now - FIRST_LOOK_BACK) if since else now - FIRST_LOOK_BACK
        listings = self._source.list_merged(repo, Window(start, now))
        queued = sum(
            self._cards.queue(listings, language, Payer(WORKER, languages[language])) for language in sorted(languages)
        )
        self._kv.set(f"polled:{name}", now.isoformat().encode(), POLLED_TTL)
        if listings:
            log.info("%s: %d merged PRs since %s, %d cards queued", repo, len(listings), start.isoformat(), queued)
        return queued


def _moment(raw: bytes) -> datetime | None:
    try:
        moment = datetime.fromisoformat(raw.decode())
    except (UnicodeDecodeError, ValueError):
        return None
    return moment if moment.tzinfo is not None else None
