"""Process: the parts one prdigest process shares, built once from the settings.

The store, GitHub, the model, the card service and the digests are made here, in one pass, into
a frozen value that every surface (the CLI, `serve`, `worker`, `doctor`) and the tests are
handed. Nothing here is a rule: what a part does is its own module's business. The model's SDK
is the one vendor a command may never need (a digest whose cards are cached), so its client is
made at its first request (llm/lazy.py); Slack's parts are wired apart (wiring/slack.py), so a
terminal digest never imports Slack's libraries.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import timedelta
from typing import TYPE_CHECKING

from bot.access.visibility import Visibility
from bot.cards.poller import MergePoller
from bot.cards.service import CardService, CardTiming, ModelUse, lease_for
from bot.cards.writer import ModelCardWriter, ModelFit
from bot.core.card_jobs import CardJob
from bot.core.deadline import DEFAULT_RETRIES, Budget
from bot.core.refs import github_web_base
from bot.digests.build import DigestService
from bot.errors import ConfigError
from bot.llm.lazy import Endpoint, ModelOnFirstUse
from bot.questions.across.authors import Authors
from bot.questions.answerer import ModelAnswerer
from bot.questions.model_reading import ModelReader
from bot.queue.connect import card_queue
from bot.settings import DEFAULT_OPENAI_URL, Settings
from bot.sources.lazy import GitHubAppKey, GitHubEndpoint, GitHubOnFirstUse, connect
from bot.spending.budgets import Spending
from bot.store.backends.memory import MemoryKV
from bot.store.kv import KV
from bot.store.modes import ModeMemory
from bot.store.repos.app_installations import AppInstallationStore
from bot.store.repos.authors import AuthorStore
from bot.store.repos.cards import CardStore
from bot.store.repos.facts import FactStore
from bot.store.repos.pages import PageStore
from bot.store.tokens import TokenStore
from bot.wiring.store import choose_store
from bot.wiring.timing import Timing

if TYPE_CHECKING:
    from bot.queue.broker import CardQueue, RunningWorker
    from bot.sources.lazy import Connected


def _stderr(message: str) -> None:
    print(f"prdigest: {message}", file=sys.stderr)


@dataclass(frozen=True)
class Process:
    settings: Settings
    timing: Timing
    kv: KV
    store: CardStore
    facts: FactStore  # the single or home workspace's (visibility answers from it)
    source: GitHubOnFirstUse  # PyGithub is imported at the first request (sources/lazy.py)
    visibility: Visibility
    authors: Authors  # PR authors' display names, from GitHub's profiles, cached for a week
    model: ModelOnFirstUse | None  # None without OPENAI_API_KEY: cards then come from metadata
    modes: ModeMemory  # what the model endpoint was found to take (its output mode, its window)
    writer: ModelCardWriter | None
    answerer: ModelAnswerer | None
    reader: ModelReader | None  # the model's reading of questions the rules cannot read
    spending: Spending
    queue: CardQueue | None  # the card jobs every replica shares; None without Redis
    cards: CardService
    digests: DigestService
    poller: MergePoller | None  # None without a queue or with `[queue] poll_minutes = 0`
    web_base: str  # where PRs are seen in a browser: github.com or the Enterprise host
    closers: tuple[Callable[[], None], ...] = ()
    # Set by stop(): the services given it start no model call or GitHub request after it.
    stopping: threading.Event = field(default_factory=threading.Event)

    @property
    def model_timeout(self) -> float:
        """Seconds one card or one answer may wait for the model, retries included."""
        timeout = self.timing.model_timeout
        return timeout if timeout is not None else self.settings.defaults.model_timeout

    def warm(self) -> None:
        """What a long-running process pays before it serves rather than on its first request."""
        if self.model is not None:
            self.model.warm()

    def stop(self) -> None:
        """Stop this process's work at once (Ctrl-C in a terminal command): no model call or
        GitHub request starts after this, and the model's requests in flight are cut. Not for
        serve and worker, which drain instead (their jobs are finished or left to another)."""
        self.stopping.set()  # first: a request cut below then ends as Stopped, not as a failure
        if self.model is not None:
            self.model.cancel()

    def close(self) -> None:
        """Close every client this process opened, newest first."""
        for close in reversed(self.closers):
            close()


def github_endpoint(
    settings: Settings,
    timing: Timing,
    *,
    retries: int | None = None,
    rate_limit_wait: float | None = None,
    kv: KV | None = None,
) -> GitHubEndpoint:
    """How this process asks GitHub: the settings' server, token and App, the timing's retries;
    with `kv`, list pages are kept with their ETags there and asked for again conditionally, and
    the App's installations are kept there (else for this process only)."""
    app = settings.github_app
    return GitHubEndpoint(
        settings.github_api_url,
        settings.github_token,
        retries=timing.github_retries if retries is None else retries,
        backoff=timing.github_backoff,
        rate_limit_wait=rate_limit_wait if rate_limit_wait is not None else timing.github_rate_limit_wait,
        now=timing.now,
        pages=PageStore(kv) if kv is not None else None,
        app=GitHubAppKey(app.app_id, app.private_key, app.key_from) if app is not None else None,
        installations=AppInstallationStore(kv if kv is not None else MemoryKV()),
    )


def github_source(
    settings: Settings, timing: Timing, *, retries: int | None = None, rate_limit_wait: float | None = None
) -> Connected:
    """GitHub through its own client, made now (the caller closes it): for `doctor`."""
    return connect(github_endpoint(settings, timing, retries=retries, rate_limit_wait=rate_limit_wait))


def model_of(settings: Settings, timeout: float) -> ModelOnFirstUse | None:
    """The model endpoint, or None without OPENAI_API_KEY."""
    if not settings.openai_api_key:
        return None
    options = settings.model_options
    return ModelOnFirstUse.of(
        Endpoint(
            settings.openai_api_key,
            settings.openai_base_url,
            settings.model,
            timeout,
            options.max_output_tokens,
            options.temperature,
            options.seed,
            options.system_role,
        )
    )


def build_process(
    settings: Settings,
    timing: Timing | None = None,
    *,
    kv: KV | None = None,
    warn: Callable[[str], None] = _stderr,
    usual: Callable[[str], None] | None = None,
) -> Process:
    """Every shared part, from the settings. `kv`: a store handed in (tests share one MemoryKV
    between replicas); else REDIS_URL's, or the cache file, or memory (wiring/store.py; `warn`
    says which when it is not Redis, `usual` instead when it is the cache file as meant)."""
    timing = timing or Timing()
    closers: list[Callable[[], None]] = []
    queue_url = None  # a store handed in is a test's shared memory: its replicas make their own cards
    if kv is None:
        chosen = choose_store(settings, warn, usual)
        if chosen.close is not None:
            closers.append(chosen.close)
        kv, queue_url = chosen.kv, chosen.queue_url
    config = settings.config
    source = GitHubOnFirstUse.of(github_endpoint(settings, timing, kv=kv))
    closers.append(source.close)
    facts = FactStore(kv)
    timeout = timing.model_timeout if timing.model_timeout is not None else settings.defaults.model_timeout
    model = model_of(settings, timeout)
    if model is not None:
        closers.append(model.close)
    modes = ModeMemory(kv, settings.openai_base_url or DEFAULT_OPENAI_URL, settings.model)
    stopping = threading.Event()
    budget = Budget(timeout, DEFAULT_RETRIES if timing.model_retries is None else timing.model_retries, stopping)
    options = settings.model_options
    fit = ModelFit(options.mode, options.context_window, options.max_output_tokens)
    writer = answerer = reader = None
    if model is not None:
        token_budget = settings.defaults.token_budget
        # The process's cards share `concurrency` requests at the model, whichever digest or job asks.
        slots = threading.BoundedSemaphore(settings.defaults.concurrency)
        writer = ModelCardWriter(
            model,
            token_budget=token_budget,
            budget=replace(budget, slots=slots),
            pacing=timing.pacing,
            memory=modes,
            fit=fit,
        )
        answerer = ModelAnswerer(
            model, token_budget=token_budget, budget=budget, pacing=timing.pacing, memory=modes, fit=fit
        )
        reader = ModelReader(model, budget, timing.pacing, modes)
    prices = {
        name: price for name, model_options in config.models.items() if (price := model_options.price) is not None
    }
    spending = Spending(
        TokenStore(kv),
        budget=config.defaults.daily_token_budget,
        now=timing.now,
        prices=prices,
        workspace_budget=config.slack.workspace_daily_token_budget,
        pacing=timing.pacing,
    )
    queue = None
    if queue_url is not None:
        queue = card_queue(queue_url, config.queue.namespace, kv)
        closers.append(queue.close)
    store = CardStore(kv)
    cards = CardService(
        source,
        store,
        writer,
        timing=CardTiming(timing.pacing, lease_seconds=lease_for(timeout), now=timing.now, stopping=stopping),
        jobs=queue,
        use=ModelUse(spending, settings.defaults.skip_model_for, settings.defaults.token_budget),
    )
    minutes = config.queue.poll_minutes
    poller = None
    if queue is not None and minutes:
        poller = MergePoller(source, cards, kv, timedelta(minutes=minutes), now=timing.now)
    return Process(
        settings,
        timing,
        kv,
        store,
        facts,
        source,
        Visibility(source, facts),
        Authors(source, AuthorStore(kv)),
        model,
        modes,
        writer,
        answerer,
        reader,
        spending,
        queue,
        cards,
        DigestService(
            source,
            cards,
            concurrency=settings.defaults.concurrency,
            stopping=stopping,
            warm=model.warm if model is not None else None,
        ),
        poller,
        github_web_base(settings.github_api_url),
        tuple(closers),
        stopping,
    )


def start_worker(process: Process, threads: int | None = None) -> RunningWorker:
    """A card worker in this process (`prdigest worker`, and `serve` unless --no-worker); the
    caller stops it. Needs Redis: ConfigError without it."""
    queue = process.queue
    if queue is None:
        if process.settings.redis_url is None:
            raise ConfigError("REDIS_URL is not set: a worker takes its card jobs from Redis, shared by every replica")
        raise ConfigError(
            "REDIS_URL is a Redis Cluster and QUEUE_URL is not set: a worker takes its card jobs from a single Redis"
        )
    cards = process.cards

    def handle(job: CardJob) -> bool:
        return cards.make(job) is not None

    return queue.work(handle, threads or process.settings.config.queue.worker_threads)
