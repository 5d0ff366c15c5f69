"""CardService: the one way to get a PR's snapshot and card, whichever surface asks.

Snapshots of merged PRs are read from GitHub once and then from the store, their patches kept as
far as a card's or an answer's context reads them (`ModelUse.context_tokens`,
core/prompting/patch_cut.py). Cards are single-flight: concurrent requests for one card, in this
process or another, make one model call; the others wait for its result in the store. A model
failure gives a heuristic card, kept only briefly so that a later run asks the model again.
Every card, from the model or not, is sanitized (core/checks/sanitize.py) before it is stored or
handed out.

Once the process's run is stopped (`stopping`, Ctrl-C in a terminal) no GitHub request and no
card starts, and no wait goes on: Stopped. A card cut short by the stop is not stored, not even
as a fallback: the next run makes it. Every card made before the stop was stored as it was made.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from bot.cards.flight import LOCK_SECONDS, WAIT_STEP_SECONDS, Keeper, Lease, once
from bot.cards.heuristic.cards import HEURISTIC_VERSION, heuristic_card
from bot.core.card_jobs import CardJob
from bot.core.checks.sanitize import repo_url, sanitized_card
from bot.core.deadline import STOP_CHECK_SECONDS
from bot.core.heuristic.headlines import headline
from bot.core.heuristic.skipping import skip_class
from bot.core.pacing import REAL_TIME, Pacing
from bot.core.prompting.context import unlimited_coverage
from bot.core.prompting.patch_cut import cut_patches
from bot.core.usage import Tally
from bot.errors import BudgetSpent, NotFound, Stopped, StoreError, SummarizerError
from bot.models import Card, CardKey, Language, NoModel, PRListing, PRRef, PRSnapshot, SkipClass, Window
from bot.ops import telemetry
from bot.ports import CardJobs, CardWriter, Source
from bot.spending import CLI_PAYER, WORKER, Payer, Spending
from bot.store.repos.cards import CardStore, card_key
from bot.words import text

log = logging.getLogger(__name__)

# Waiters wait for a card's writer as long as the model's whole budget for a card (model_timeout,
# retries and the second request included, core/deadline.py), so two live writers never overlap.
# The lease itself is short and renewed while its writer lives (flight.Keeper): if the writer
# dies, waiters take over within LOCK_SECONDS. The margin covers store round trips and a loaded
# machine.
LEASE_MARGIN_SECONDS = 30.0
CARD_LEASE_SECONDS = 120.0 + LEASE_MARGIN_SECONDS  # for the default model_timeout
# A fallback card stands in for ten minutes, then the model is asked again.
FALLBACK_TTL_SECONDS = 600
# How long a card wanted now waits for the workers (a queue of a busy morning included) before
# it is made here; and how often the store is asked meanwhile.
QUEUE_WAIT_SECONDS = 600.0
# A card takes seconds, so after a quick first look the store is asked less and less often: a
# digest's sixteen waiting threads, and every /pr waiting beside them, must not keep serve's
# CPU (and its listeners' GIL) busy with look-ups.
QUEUE_STEP_SECONDS = 0.1
QUEUE_STEP_MAX_SECONDS = 1.0
# A PR's read from GitHub: a few requests, each retried within the source's own timeouts.
SNAPSHOT_LEASE_SECONDS = 60.0
# A window that ended this long ago is final: no PR can still be merged into it, and GitHub's
# search index, which lists older days, has caught up with its merges (it lags by seconds to
# minutes). Its list is then kept (store/repos/cards.py), and a past day's digest run again asks GitHub
# nothing at all.
FINAL_AFTER = timedelta(hours=1)


def lease_for(model_seconds: float) -> float:
    """The card lease for a model budget of `model_seconds`."""
    return model_seconds + LEASE_MARGIN_SECONDS


@dataclass(frozen=True)
class CardResult:
    card: Card
    snapshot: PRSnapshot
    # True when a model is configured but this card had to come from the heuristic (it failed).
    degraded: bool = False

    @property
    def no_model(self) -> NoModel | None:
        """Why the model was not asked on purpose (the day's budget, the PR's class), or None."""
        return self.card.no_model


@dataclass(frozen=True)
class CardTiming:
    """How CardService waits: its clock and sleep, how long a waiter waits for another writer's
    card (the card lease, lease_for the model's budget), and how long a card wanted now waits
    for the queue's workers before it is made here; the wall clock that tells a final window
    (FINAL_AFTER; None: every window's list is kept only briefly); and the event that ends every
    wait (a stopped run: none when None)."""

    pacing: Pacing = REAL_TIME
    lease_seconds: float = CARD_LEASE_SECONDS
    queue_wait_seconds: float = QUEUE_WAIT_SECONDS
    now: Callable[[], datetime] | None = None
    stopping: threading.Event | None = None


@dataclass(frozen=True)
class ModelUse:
    """When a card may ask the model: within the day's token budget (None: no budget kept) and for
    no PR of the classes the config spares it (`[defaults] skip_model_for`); and how much of a PR
    it reads: `context_tokens`, the largest context a card or an answer builds (the configured
    token_budget). Stored snapshots keep each patch as far as such a context reads it, and one
    kept for less is read again; None keeps patches whole."""

    spending: Spending | None = None
    skip_classes: tuple[SkipClass, ...] = ()
    context_tokens: int | None = None


class CardService:
    def __init__(
        self,
        source: Source,
        store: CardStore,
        writer: CardWriter | None,
        *,
        timing: CardTiming = CardTiming(),
        jobs: CardJobs | None = None,
        use: ModelUse = ModelUse(),
    ) -> None:
        self._stopping = timing.stopping if timing.stopping is not None else threading.Event()
        self._now = timing.now
        self._spending = use.spending
        self._skip_classes = use.skip_classes
        self._lease_seconds = timing.lease_seconds
        # Leases held here are short and renewed while held: a writer killed mid-card (a worker
        # SIGKILLed) lets go within LOCK_SECONDS, not after the card's whole model budget.
        self._keeper = Keeper(store)
        self._jobs = jobs
        self._queue_wait_seconds = timing.queue_wait_seconds
        self._source = source
        self._store = store
        self._writer = writer
        self._context_tokens = use.context_tokens
        self._sleep = timing.pacing.sleep
        self._clock = timing.pacing.clock
        # Every wait here, and the leases' (flight.once), ends on a stop: Stopped.
        self._pacing = Pacing(self._clock, self._pause)

    def daily_budget(self, workspace: str | None = None) -> int:
        """The day's token budget of `workspace` (None: the single or home one; 0: none)."""
        return self._spending.budget_of(workspace) if self._spending is not None else 0

    def cached_snapshot(self, listing: PRListing) -> PRSnapshot | None:
        revision = listing.merge_sha
        if revision is None and listing.merged_at is not None:
            revision = self._store.get_revision(listing.ref)
        return self._stored(listing.ref, revision) if revision is not None else None

    def snapshot(self, listing: PRListing) -> PRSnapshot:
        """The PR's files and comments: from the store when it was read before."""
        return self.cached_snapshot(listing) or self.fetch_snapshot(listing)

    def snapshot_by_ref(self, ref: PRRef) -> PRSnapshot:
        """A PR asked for by number: no GitHub request at all when it was read before."""
        revision = self._store.get_revision(ref)
        cached = self._stored(ref, revision) if revision is not None else None
        if cached is not None:
            return cached
        self._check()
        return self.snapshot(self._source.get_listing(ref))

    def cached_by_ref(self, ref: PRRef) -> PRSnapshot | None:
        """A PR's snapshot when it was read before; None, and no GitHub request, when not."""
        revision = self._store.get_revision(ref)
        return self._stored(ref, revision) if revision is not None else None

    def _stored(self, ref: PRRef, revision: str) -> PRSnapshot | None:
        """The stored snapshot, unless its patches were cut for a smaller context than ours."""
        snapshot = self._store.get_snapshot(ref, revision)
        return snapshot if snapshot is not None and snapshot.serves(self._context_tokens) else None

    def cached_card(self, snapshot: PRSnapshot, language: Language) -> Card | None:
        """The PR's stored card, sanitized, or None: never a model call or a GitHub request. For
        surfaces that must answer at once (an unfurl, improved on later) and questions across
        days, which read dozens of PRs and must not make their cards inline."""
        if not snapshot.complete:
            return None
        cached = self._cached(self.key(snapshot, language), snapshot)
        return _sanitized(cached, snapshot.listing) if cached is not None else None

    def stored(self, snapshot: PRSnapshot, language: Language, payer: Payer = CLI_PAYER) -> CardResult | None:
        """The card `card` would serve from the store, or None when it would be made or waited
        for: no model call, no GitHub request, no job queued."""
        if not snapshot.complete:
            return None
        cached = self._cached(self.key(snapshot, language), snapshot, payer.workspace)
        if cached is None:
            return None
        result = self._result(cached, snapshot)
        return replace(result, card=_sanitized(result.card, snapshot.listing))

    def fetch_snapshot(self, listing: PRListing) -> PRSnapshot:
        """The PR read from GitHub, once however many digests want it at the same moment (ten
        channels following one repository post at once, and must not ask GitHub ten times)."""
        return once(
            self._store,
            Lease(f"fetch:{listing.repo.lower()}#{listing.number}", SNAPSHOT_LEASE_SECONDS),
            lambda: self.cached_snapshot(listing),
            lambda: self._fetch(listing),
            pacing=self._pacing,
            keeper=self._keeper,
        )

    def merged(self, repo: str, window: Window) -> list[PRListing]:
        """The PRs of `repo` merged in `window`: read from GitHub once for every digest of that
        window in the next few minutes, whichever process builds it; once for good when the window
        is final (FINAL_AFTER)."""
        return once(
            self._store,
            Lease(f"merged:{repo.lower()}:{window.start.isoformat()}:{window.end.isoformat()}", SNAPSHOT_LEASE_SECONDS),
            lambda: self._store.get_merged(repo, window),
            lambda: self._list(repo, window),
            pacing=self._pacing,
            keeper=self._keeper,
        )

    def _check(self) -> None:
        """Stopped once the run is stopped: called before each GitHub request and each card."""
        if self._stopping.is_set():
            raise Stopped

    def _pause(self, seconds: float) -> None:
        """Sleep `seconds` between looks at the store, ending early (Stopped) on a stop."""
        self._check()
        if seconds <= STOP_CHECK_SECONDS:
            self._sleep(seconds)
            return
        left = seconds
        while left > 0:  # a longer wait (the queue's, up to a second) looks at the stop meanwhile
            step = min(left, STOP_CHECK_SECONDS)
            self._sleep(step)
            left -= step
            self._check()

    def _list(self, repo: str, window: Window) -> list[PRListing]:
        self._check()
        listings = self._source.list_merged(repo, window)
        final = self._now is not None and window.end <= self._now() - FINAL_AFTER
        self._store.put_merged(repo, window, listings, final=final)
        return listings

    def _fetch(self, listing: PRListing) -> PRSnapshot:
        self._check()
        snapshot = self._source.fetch(listing)
        # The caller reads GitHub's whole patches; what is stored gives every later reader the same contexts.
        kept = snapshot if self._context_tokens is None else cut_patches(snapshot, self._context_tokens)
        self._store.put_snapshot(kept)
        return snapshot

    def key(self, snapshot: PRSnapshot, language: Language) -> CardKey:
        listing = snapshot.listing
        return CardKey(
            repo=listing.repo,
            number=listing.number,
            revision=listing.revision or "unknown",
            # Without a model, the rules that wrote the card are its version.
            prompt_version=self._writer.prompt_version if self._writer else HEURISTIC_VERSION,
            model=self._writer.model if self._writer else "heuristic",
            language=language,
        )

    def fallback(self, snapshot: PRSnapshot, language: Language) -> Card:
        card = heuristic_card(snapshot, unlimited_coverage(snapshot), language)
        telemetry.count("cards_total", source="heuristic", mode="none")
        return _sanitized(card, snapshot.listing)

    def card(
        self, snapshot: PRSnapshot, language: Language, *, here: bool = False, payer: Payer = CLI_PAYER
    ) -> CardResult:
        """The PR's card: from the store, else from a worker through the queue while one is
        alive, else made here. `here` is for the worker itself, which must not queue its own job.
        `payer` is who asks (a channel or a surface, in a workspace: spending/budgets.py): the
        tokens of a card made for this request are theirs, within their workspace's budget; a
        card served from the store costs nothing."""
        result = self._card(snapshot, language, here=here, payer=payer)
        # Cards stored before sanitizing existed are served too: none reaches a reader unsanitized.
        return replace(result, card=_sanitized(result.card, snapshot.listing))

    def _card(self, snapshot: PRSnapshot, language: Language, *, here: bool, payer: Payer) -> CardResult:
        if not snapshot.complete:
            # Files unknown (rate limit): a card from the title alone, never cached.
            return CardResult(self.fallback(snapshot, language), snapshot, degraded=False)
        key = self.key(snapshot, language)
        cached = self._cached(key, snapshot, payer.workspace)
        if cached is not None:
            return self._result(cached, snapshot)
        if self._writer is None:
            card = self.fallback(snapshot, language)
            self._store.put_card(key, card)
            return CardResult(card, snapshot)
        # A PR whose class needs no model is made here at once: no worker would do more.
        needs_model = skip_class(snapshot, self._skip_classes) is None
        if not here and needs_model and (queued := self._from_queue(key, snapshot, language, payer)) is not None:
            return queued
        return self._single_flight(key, snapshot, language, payer)

    def _cached(self, key: CardKey, snapshot: PRSnapshot, workspace: str | None = None) -> Card | None:
        """The stored card, unless it was made without the model for a reason that no longer
        holds for `workspace`, the asker's: a spent budget (an earlier day's, one raised since, or
        another workspace's), a class no longer listed."""
        cached = self._store.get_card(key)
        if cached is None or cached.no_model is None or self._writer is None:
            return cached
        if cached.no_model == "budget":
            return None if self._spending is not None and self._spending.allows(workspace) else cached
        return cached if skip_class(snapshot, self._skip_classes) == cached.no_model else None

    def _result(self, card: Card, snapshot: PRSnapshot) -> CardResult:
        return CardResult(
            card, snapshot, degraded=self._writer is not None and card.source != "llm" and not card.no_model
        )

    def make(self, job: CardJob) -> CardResult | None:
        """A worker's job: the card of the job's PR, made here. GitHub's and Redis' failures are
        raised, so the queue tries again later; the model's give a heuristic card, as anywhere.

        None, after one request and one log line, for a job that no retry would change: its PR
        does not exist (or the token cannot see it), or a merge was announced for a PR GitHub
        says is not merged (a webhook payload is a claim, and each retry costs GitHub requests).
        """
        snapshot = None
        if job.merge_sha is not None:
            snapshot = self._stored(job.ref, job.merge_sha)
            if snapshot is None and job.read_by_asker:
                snapshot = self._digests_snapshot(job.ref, job.merge_sha)
        snapshot = snapshot or self.cached_by_ref(job.ref)
        if snapshot is None or (job.for_merge and snapshot.listing.merged_at is None):
            self._check()
            try:
                listing = self._source.get_listing(job.ref)
            except NotFound:
                log.warning("card job for %s dropped: GitHub has no such pull request", job.ref)
                return None
            if job.for_merge and listing.merged_at is None:
                log.warning("card job for %s dropped: a merge was announced, but GitHub says it is not merged", job.ref)
                return None
            snapshot = self.snapshot(listing)
        return self.card(snapshot, job.language, here=True, payer=Payer(job.payer or WORKER, job.workspace))

    def _digests_snapshot(self, ref: PRRef, merge_sha: str) -> PRSnapshot | None:
        """The snapshot the digest that queued the job is reading now, waited for in the store.
        A digest reads its PRs from GitHub together (one request each, their review comments in a
        few pages): asking GitHub here would cost this PR a GET of its own, and its comments
        another. None when it has not come within SNAPSHOT_LEASE_SECONDS (the digest failed on it)."""
        deadline = self._clock() + SNAPSHOT_LEASE_SECONDS
        step = QUEUE_STEP_SECONDS
        while self._clock() < deadline:
            snapshot = self._stored(ref, merge_sha)
            if snapshot is not None:
                return snapshot
            self._sleep(step)
            step = min(step * 2, QUEUE_STEP_MAX_SECONDS)
        return None

    def workers_alive(self) -> bool:
        """Whether cards asked of the queue now would be made by a worker."""
        return self._writer is not None and self._jobs is not None and self._jobs.workers_alive()

    def queue(
        self, listings: Iterable[PRListing], language: Language, payer: Payer | None = None, *, reading: bool = False
    ) -> int:
        """Queue the cards of `listings` that the store lacks, so that workers start on all of
        them at once (a digest, before it waits for them one by one); how many were queued.
        `payer` None: the poller's or the webhook's, the home workspace's `worker`. `reading`: the
        caller reads the PRs' snapshots from GitHub itself (a digest), so workers wait for them."""
        jobs = self._jobs
        if self._writer is None or jobs is None or not jobs.workers_alive():
            return 0
        queued = 0
        for listing in listings:
            snapshot = self.cached_snapshot(listing)
            workspace = payer.workspace if payer is not None else None
            if snapshot is not None and self._cached(self.key(snapshot, language), snapshot, workspace) is not None:
                continue
            try:
                queued += jobs.submit(_job(listing, language, payer, reading=reading and snapshot is None))
            except StoreError:
                return queued  # no queue: each card is made where it is wanted
        return queued

    def _from_queue(self, key: CardKey, snapshot: PRSnapshot, language: Language, payer: Payer) -> CardResult | None:
        """The card made by a worker, waited for in the store; None when no worker is alive (or
        none made it in time, or made it from metadata for a job of a workspace whose budget was
        spent while the asker's is not): then it is made here."""
        jobs = self._jobs
        if jobs is None or not jobs.workers_alive():
            return None
        listing = snapshot.listing
        try:
            jobs.submit(_job(listing, language, payer))
        except StoreError:
            return None
        deadline = self._clock() + self._queue_wait_seconds
        step = QUEUE_STEP_SECONDS
        while self._clock() < deadline:
            cached = self._cached(key, snapshot, payer.workspace)
            if cached is not None:
                return self._result(cached, snapshot)
            if self._store.get_card(key) is not None:
                # Stored since the look above (a worker's), or stored but not for this asker: the
                # job was another workspace's, whose budget was spent. Read again as this asker;
                # none for it: waiting longer would find nothing better.
                cached = self._cached(key, snapshot, payer.workspace)
                return None if cached is None else self._result(cached, snapshot)
            if not jobs.workers_alive():
                return None
            self._pacing.sleep(step)
            step = min(step * 2, QUEUE_STEP_MAX_SECONDS)
        log.warning("no worker made %s's card within %.0f s; making it here", listing.ref, self._queue_wait_seconds)
        return None

    def _single_flight(self, key: CardKey, snapshot: PRSnapshot, language: Language, payer: Payer) -> CardResult:
        name = card_key(key)
        deadline = self._clock() + self._lease_seconds
        while True:
            token = self._store.try_lock(name, LOCK_SECONDS)
            if token is not None:
                try:
                    with self._keeper.holding(name, token):
                        return self._write(key, snapshot, language, payer)
                finally:
                    self._store.release(name, token)
            # Someone else is writing this card: wait for it to appear in the store.
            while self._store.lock_held(name) and self._clock() < deadline:
                self._pacing.sleep(WAIT_STEP_SECONDS)
                cached = self._cached(key, snapshot, payer.workspace)
                if cached is not None:
                    return self._result(cached, snapshot)
            cached = self._cached(key, snapshot, payer.workspace)
            if cached is not None:
                return self._result(cached, snapshot)
            if self._clock() >= deadline:
                return self._write(key, snapshot, language, payer)

    def _write(self, key: CardKey, snapshot: PRSnapshot, language: Language, payer: Payer) -> CardResult:
        # Another writer may have finished between our look-up and our lease.
        cached = self._cached(key, snapshot, payer.workspace)
        if cached is not None:
            return self._result(cached, snapshot)
        assert self._writer is not None
        kind = skip_class(snapshot, self._skip_classes)
        if kind is not None:
            # Metadata settles this PR's card (the operator said so): no model call, kept as long
            # as a model's card; made again if the class is taken off the list.
            card = replace(self.fallback(snapshot, language), no_model=kind)
            self._store.put_card(key, card)
            return CardResult(card, snapshot)
        if self._spending is not None and not self._spending.allows(payer.workspace):
            return self._budget_card(key, snapshot, language)
        self._check()
        # Each of the card's requests holds its tokens against the asker's budget first.
        tally = self._spending.tally(payer.workspace) if self._spending is not None else Tally()
        try:
            card = _sanitized(self._writer.card(snapshot, language, tally), snapshot.listing)
        except BudgetSpent:  # what others under way hold has reached the budget: nothing was sent
            return self._budget_card(key, snapshot, language)
        except SummarizerError as exc:
            if self._stopping.is_set():  # cut short by the stop: the next run asks the model again
                raise Stopped from exc
            card = self.fallback(snapshot, language)
            self._store.put_card(key, card, ttl_seconds=FALLBACK_TTL_SECONDS)
            return CardResult(card, snapshot, degraded=True)
        finally:
            # The tokens belong to the card, a failed one's too: they were spent.
            if self._spending is not None:
                self._spending.record(tally, repo=snapshot.listing.repo, payer=payer)
        self._store.put_card(key, card)
        return CardResult(card, snapshot)

    def _budget_card(self, key: CardKey, snapshot: PRSnapshot, language: Language) -> CardResult:
        """The asker's workspace has spent its day's budget: a card from metadata, kept briefly,
        and asked of the model again for an asker whose budget allows (another workspace, the
        next UTC day)."""
        card = replace(self.fallback(snapshot, language), no_model="budget")
        self._store.put_card(key, card, ttl_seconds=FALLBACK_TTL_SECONDS)
        return CardResult(card, snapshot)


def _job(listing: PRListing, language: Language, payer: Payer | None, *, reading: bool = False) -> CardJob:
    name, workspace = (payer.name, payer.workspace) if payer is not None else (None, None)
    return CardJob(listing.repo, listing.number, language, listing.merge_sha, name, workspace, read_by_asker=reading)


def _sanitized(card: Card, listing: PRListing) -> Card:
    """The card as readers may see it: links only into the PR's repository, on the PR's own host."""
    untitled = text(card.language, "card.untitled")
    return sanitized_card(card, repo_url(listing.url), untitled=untitled, fallback_headline=headline(listing.title))
