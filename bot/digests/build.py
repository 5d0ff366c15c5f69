"""DigestService: a window of merged PRs → filtered → cards, concurrently → one ordered Digest.

Counts are computed here, never by a model. A PR that GitHub will not give us (rate limit,
gone) still gets a card from its list data, and the digest says so in its notes.

A stopped run (`stopping`, Ctrl-C in a terminal) is not waited for: the cards not started are
dropped, those in flight are cut by their own checks (cards/service.py), and build raises
Stopped at once with how many cards were done (each stored as it was made).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass

from bot.cards import CardResult, CardService
from bot.core.links import mentions
from bot.digests.filters import keeps_files, keeps_listing
from bot.errors import RateLimited, SourceError, Stopped
from bot.models import VERDICT_ORDER, Card, Digest, DigestItem, Filters, Language, Note, PRListing, PRSnapshot, Window
from bot.ops.logs import carried
from bot.ports import Source
from bot.spending import CLI_PAYER, Payer

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
# Paths kept per digest item for matching questions: enough for any PR a person would name by
# its files, small enough that a 3,000-file PR does not bloat the thread record.
PATHS_KEPT = 300
# GitHub asks for few concurrent requests (REST best practices); the source caps them too.
FETCHERS = 4
# How often the digest's waiting looks at `stopping`: a stop is answered within this.
STOP_CHECK_SECONDS = 0.05


@dataclass
class _Run:
    """What went wrong during one digest, gathered from the workers."""

    lock: threading.Lock
    rate_limit: RateLimited | None = None
    from_titles: int = 0
    degraded: int = 0
    over_budget: int = 0  # cards from metadata because the day's token budget was spent
    unreadable: list[tuple[int, Note]] | None = None

    def counted(self, result: CardResult) -> Card:
        """The result's card, its fallback or spent budget counted for the digest's notes."""
        if result.degraded or result.no_model == "budget":
            with self.lock:
                if result.degraded:
                    self.degraded += 1
                else:
                    self.over_budget += 1
        return result.card


class DigestService:
    def __init__(
        self,
        source: Source,
        cards: CardService,
        *,
        concurrency: int = 16,
        stopping: threading.Event | None = None,
        warm: Callable[[], None] | None = None,
    ) -> None:
        self._source = source
        self._cards = cards
        self._concurrency = concurrency
        self._stopping = stopping if stopping is not None else threading.Event()
        # Readies the model's client (its SDK's import, half a second of CPU) once a digest knows
        # it will make cards itself: done beside its GitHub reads, not before its first request.
        self._warm = warm

    def build(
        self,
        repos: tuple[str, ...],
        window: Window,
        *,
        language: Language = "en",
        filters: Filters | None = None,
        progress: Progress | None = None,
        payer: Payer = CLI_PAYER,
    ) -> Digest:
        """The digest; `payer` (the channel it is for, or the CLI, in its workspace) is who spends
        the tokens of the cards made for it (spending/budgets.py)."""
        listings = [listing for repo in repos for listing in self._cards.merged(repo, window)]
        return self._of(repos, window, listings, language, filters or Filters(), progress, payer)

    def of(
        self,
        repos: tuple[str, ...],
        window: Window,
        listings: list[PRListing],
        *,
        language: Language = "en",
        progress: Progress | None = None,
        payer: Payer = CLI_PAYER,
    ) -> Digest:
        """The digest of PRs listed elsewhere (a release's), unfiltered, over `window`."""
        return self._of(repos, window, listings, language, Filters(), progress, payer)

    def _of(
        self,
        repos: tuple[str, ...],
        window: Window,
        listings: list[PRListing],
        language: Language,
        filters: Filters,
        progress: Progress | None,
        payer: Payer,
    ) -> Digest:
        wanted = [listing for listing in listings if keeps_listing(filters, listing)]
        if not filters.paths:
            # Workers start on every missing card at once; with path filters, only on the cards
            # of PRs whose files pass them (asked for one by one below).
            self._cards.queue(wanted, language, payer, reading=True)
        # The PRs GitHub will be asked for: the source reads what they share (their review
        # comments) in a few requests for all of them. Nothing is said, or imported, on a warm day.
        cached = [self._cards.cached_snapshot(listing) for listing in wanted]
        unread = [listing for listing, snapshot in zip(wanted, cached, strict=True) if snapshot is None]
        if unread:
            self._warm_beside()
            self._source.expect(window, unread)
        run = _Run(lock=threading.Lock(), unreadable=[])
        if not unread and (stored := self._stored(cached, language, filters, run, payer)) is not None:
            # A warm day, its snapshots and cards all in the store, is read here in a few
            # milliseconds: the pools below would spend ten times that taking turns at the GIL.
            if progress:
                progress(len(wanted), len(wanted))
            return self._digest(repos, window, listings, stored, language, filters, run, payer)
        done = 0

        def one(pending: Future[PRSnapshot]) -> DigestItem | None:
            nonlocal done
            item = self._item(pending.result(), language, filters, run, payer)
            with run.lock:
                done += 1
                if progress:
                    progress(done, len(wanted))
            return item

        def stopped() -> Stopped:
            with run.lock:
                return Stopped(done, len(wanted))

        if self._stopping.is_set():
            raise stopped()
        # GitHub reads run ahead on their own few threads, so a card writer rarely waits for
        # its PR's files: the digest then takes about as long as its model calls.
        fetchers = ThreadPoolExecutor(max_workers=FETCHERS, thread_name_prefix="fetch")
        # Twice the model's slots: a card's own work (its prompt, checking the answer) is done
        # beside the requests of others, so a slot given back is taken at once by a card ready to ask.
        writers = ThreadPoolExecutor(max_workers=2 * self._concurrency, thread_name_prefix="card")
        try:
            # Each task carries the run's context, so its log lines keep the run's request id.
            snapshots = [
                fetchers.submit(carried(self._snapshot), listing, stored, run)
                for listing, stored in zip(wanted, cached, strict=True)
            ]
            made = [writers.submit(carried(one), pending) for pending in snapshots]
            if not self._settled(made):
                raise stopped()
            items = [item for future in made if (item := future.result()) is not None]
        except Stopped:
            raise stopped() from None
        finally:
            # Stopped: what has not started never will, and what is in flight is not waited for.
            halt = self._stopping.is_set()
            for pool in (writers, fetchers):
                pool.shutdown(wait=not halt, cancel_futures=halt)
        return self._digest(repos, window, listings, items, language, filters, run, payer)

    def _warm_beside(self) -> None:
        """Start readying the model on a thread of its own, unless workers make the cards."""
        warm = self._warm
        if warm is None or self._cards.workers_alive():
            return

        def run() -> None:
            try:
                warm()
            except Exception as exc:  # the first card's own request meets it again, and says so
                log.debug("readying the model failed: %s", exc)

        threading.Thread(target=run, name="model-warm", daemon=True).start()

    def _digest(
        self,
        repos: tuple[str, ...],
        window: Window,
        listings: list[PRListing],
        items: list[DigestItem],
        language: Language,
        filters: Filters,
        run: _Run,
        payer: Payer,
    ) -> Digest:
        items.sort(key=lambda item: (VERDICT_ORDER[item.card.verdict], -item.size, -item.listing.number))
        return Digest(
            repos=repos,
            window=window,
            total_merged=len(listings),
            items=tuple(items),
            language=language,
            notes=_notes(run, len(items), self._cards.daily_budget(payer.workspace)),
            filters=filters,
            model_failures=run.degraded,
        )

    def _stored(
        self, snapshots: list[PRSnapshot | None], language: Language, filters: Filters, run: _Run, payer: Payer
    ) -> list[DigestItem] | None:
        """Every item from the store, or None as soon as one card would have to be made (and
        nothing counted: the run then counts each card as the pools make or find it)."""
        found: list[tuple[PRSnapshot, CardResult]] = []
        for snapshot in snapshots:
            if snapshot is None:
                return None
            if not keeps_files(filters, snapshot):
                continue
            result = self._cards.stored(snapshot, language, payer)
            if result is None:
                return None
            found.append((snapshot, result))
        return [_item_of(snapshot, run.counted(result)) for snapshot, result in found]

    def _settled(self, made: Sequence[Future[DigestItem | None]]) -> bool:
        """Wait until every card is made (or one failed); False as soon as the run is stopped."""
        pending = set(made)
        while pending and not self._stopping.is_set():
            finished, pending = wait(pending, timeout=STOP_CHECK_SECONDS, return_when=FIRST_EXCEPTION)
            if any(future.exception() is not None for future in finished):
                return not self._stopping.is_set()
        return not self._stopping.is_set()

    def _item(
        self, snapshot: PRSnapshot, language: Language, filters: Filters, run: _Run, payer: Payer
    ) -> DigestItem | None:
        if not keeps_files(filters, snapshot):
            return None
        return _item_of(snapshot, run.counted(self._cards.card(snapshot, language, payer=payer)))

    def _snapshot(self, listing: PRListing, stored: PRSnapshot | None, run: _Run) -> PRSnapshot:
        """The PR's snapshot: `stored` (read from the store above, once), else fetched, which
        looks in the store again under the fetch's lease (another process may have stored it)."""
        if stored is not None:
            return stored
        if run.rate_limit is None:
            try:
                return self._cards.fetch_snapshot(listing)
            except RateLimited as exc:
                with run.lock:
                    run.rate_limit = run.rate_limit or exc
            except SourceError as exc:
                with run.lock:
                    assert run.unreadable is not None
                    run.unreadable.append((listing.number, exc.note or Note("error.internal")))
                return PRSnapshot(listing=listing, complete=False)
        with run.lock:
            run.from_titles += 1
        return PRSnapshot(listing=listing, complete=False)


def _notes(run: _Run, shown: int, budget: int) -> tuple[Note, ...]:
    """What the reader must know about how the digest was made, as notes (bot/words has the sentences)."""
    notes: list[Note] = []
    if run.rate_limit is not None and run.from_titles:
        limit = run.rate_limit
        counts: dict[str, str | int] = {"count": run.from_titles, "shown": shown}
        if not limit.authenticated:
            notes.append(Note("note.rate_limited_anonymous", counts))
        elif limit.reset_at is not None:
            notes.append(Note("note.rate_limited_until", {**counts, "time": limit.reset_at.strftime("%H:%M UTC")}))
        else:
            notes.append(Note("note.rate_limited", counts))
    if run.unreadable:
        prs = tuple(
            Note("note.unreadable_pr", {"number": number, "error": error})
            for number, error in sorted(run.unreadable, key=lambda pair: pair[0])
        )
        notes.append(Note("note.unreadable", {"prs": prs}))
    if run.degraded:
        notes.append(Note("note.model_degraded", {"count": run.degraded, "shown": shown}))
    if run.over_budget:
        notes.append(Note("note.budget_spent", {"budget": budget, "count": run.over_budget}))
    return tuple(notes)


def _item_of(snapshot: PRSnapshot, card: Card) -> DigestItem:
    return DigestItem(
        listing=snapshot.listing,
        card=card,
        size=snapshot.additions + snapshot.deletions,
        paths=tuple(change.path for change in snapshot.files[:PATHS_KEPT]),
        mentions=mentions(comment.body for comment in snapshot.comments),
    )
