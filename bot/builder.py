"""The one place that builds prdigest: every client and every service, from Settings.

Surfaces (the CLI, `serve`, `doctor`), tests and the benchmark ask a Builder for what they need
and get the same objects. Each part is made on first use and then shared, so a command builds,
and imports, only what it uses: `prdigest digest` never loads Slack's libraries, and `--help`
loads no vendor at all. That is why this module imports no vendor at the top: each adapter is
imported where its part is made. Clocks, sleeps and durations come from `Timing`, so tests
change them here instead of reaching into private attributes.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cached_property
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from bot.core.deadline import DEFAULT_RETRIES, Budget, Deadline
from bot.core.jobs import CardJob
from bot.core.pacing import Pacing
from bot.core.usage import Tally
from bot.errors import ConfigError, StoreError
from bot.models import Language, Message, OutputMode
from bot.ports import Parsed, Schema
from bot.services.cards import CardService, CardTiming, ModelUse, lease_for
from bot.services.digest import DigestService
from bot.services.refs import github_web_base
from bot.settings import DEFAULT_CONFIG_PATH, DEFAULT_OPENAI_URL, Settings
from bot.store.cards import CardStore
from bot.store.facts import FactStore
from bot.store.feedback import FeedbackStore
from bot.store.kv import KV
from bot.store.ledger import PostLedger
from bot.store.memory import MemoryKV
from bot.store.modes import ModeMemory
from bot.store.subscriptions import SubscriptionStore
from bot.store.threads import ThreadStore

if TYPE_CHECKING:
    from bot.llm.openai_model import OpenAIModel
    from bot.metrics import PrometheusSink
    from bot.ports.slack import SlackPort
    from bot.queue.broker import CardQueue, RunningWorker
    from bot.services.access import AccessPolicy
    from bot.services.across import AcrossDays
    from bot.services.answers import ModelAnswerer
    from bot.services.channels import ChannelDirectory, ChannelPlan
    from bot.services.installs import InstallStarts
    from bot.services.poller import MergePoller
    from bot.services.posting import DigestPosting
    from bot.services.publisher import Publisher
    from bot.services.qa import QAService
    from bot.services.spending import Spending
    from bot.services.subscriptions import Subscriptions
    from bot.services.visibility import Visibility
    from bot.services.watch_dms import WatchDMs
    from bot.services.watches import WatchFinder
    from bot.services.writer import ModelCardWriter
    from bot.slack.app import SlackParts
    from bot.slack.clients import SlackClient
    from bot.slack.installations import KVOAuthStateStore, SealedInstallationStore, WorkspaceTokens
    from bot.slack.workspaces import Workspace
    from bot.sources.github import GitHubSource
    from bot.store.redis_store import RedisKV
    from bot.webhook import GitHubWebhook

EMBEDDED_STORE_NOTE = "REDIS_URL is not set: using an in-memory store, so nothing is cached between runs."


def _utc_now() -> datetime:
    return datetime.now(UTC)


def _stderr(message: str) -> None:
    print(f"prdigest: {message}", file=sys.stderr)


class ModelOnFirstUse:
    """The model client, connected at its first request.

    Importing the SDK and making its client take about half a second; a digest whose cards are
    all cached never asks the model, so it never pays for them. Long-running processes call
    `warm()` before they serve instead: the import holds the interpreter lock for most of that
    half second, and paid on the first question it stalled every acknowledgement beside it.
    """

    def __init__(self, model: str, connect: Callable[[], OpenAIModel]) -> None:
        self.model = model
        self._connect = connect
        self._lock = threading.Lock()
        self._client: OpenAIModel | None = None

    def _connected(self) -> OpenAIModel:
        with self._lock:
            if self._client is None:
                self._client = self._connect()
            return self._client

    def warm(self) -> None:
        """Import the SDK and make the client now (no request is sent)."""
        self._connected()

    def parse(
        self,
        messages: Sequence[Message],
        schema: type[Schema],
        deadline: Deadline,
        mode: OutputMode = "json_schema",
        tally: Tally | None = None,
    ) -> Parsed[Schema]:
        return self._connected().parse(messages, schema, deadline, mode, tally)

    def complete(self, messages: Sequence[Message], deadline: Deadline, tally: Tally | None = None) -> str:
        return self._connected().complete(messages, deadline, tally)

    def complete_streaming(
        self, messages: Sequence[Message], deadline: Deadline, tally: Tally | None, on_piece: Callable[[str], bool]
    ) -> str:
        return self._connected().complete_streaming(messages, deadline, tally, on_piece)

    def context_window(self, deadline: Deadline) -> int | None:
        return self._connected().context_window(deadline)

    def ping(self) -> None:
        self._connected().ping()

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None


@dataclass(frozen=True)
class Timing:
    """Clocks, retries and durations handed to what the builder makes.

    The defaults are production's; tests and the benchmark shorten them. None means "the
    component's own default" (kept beside the behaviour it tunes).
    """

    now: Callable[[], datetime] = _utc_now
    # The clock and the sleep of waits measured in seconds (posting pace, card leases).
    monotonic: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    github_retries: int = 4
    github_backoff: float = 0.5
    github_rate_limit_wait: float | None = None
    # Seconds a card (or an answer) may wait for the model, retries included; None: the config's.
    model_timeout: float | None = None
    model_retries: int | None = None
    slack_timeout: float = 30.0
    # Seconds between two posts in one channel (Slack allows about one a second).
    pace: float | None = None
    post_lease_seconds: float | None = None
    scheduler_tick: float | None = None

    @property
    def pacing(self) -> Pacing:
        """The monotonic clock and the sleep, as the services that wait take them."""
        return Pacing(self.monotonic, self.sleep)


@dataclass
class Builder:
    settings: Settings
    timing: Timing = field(default_factory=Timing)
    # A store handed in (tests share one MemoryKV between replicas); else REDIS_URL's, or memory.
    store_kv: KV | None = None
    warn: Callable[[str], None] = _stderr
    _closers: list[Callable[[], None]] = field(default_factory=list, repr=False)
    _workspaces: dict[str | None, Workspace] = field(default_factory=dict, repr=False)
    _team_clients: dict[str | None, SlackClient] = field(default_factory=dict, repr=False)
    _watch_dms: dict[str | None, WatchDMs] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # Storage -----------------------------------------------------------------------------

    @cached_property
    def kv(self) -> KV:
        if self.store_kv is not None:
            return self.store_kv
        if self.settings.redis_url:
            kv = self.redis(self.settings.redis_url)
            self._closers.append(kv.close)
            return kv
        self.warn(EMBEDDED_STORE_NOTE)
        return MemoryKV()

    def redis(self, url: str) -> RedisKV:
        """A Redis-backed store at `url` (the caller closes it)."""
        from bot.store.redis_store import RedisKV

        return RedisKV.from_url(url)

    @cached_property
    def store(self) -> CardStore:
        return CardStore(self.kv)

    @cached_property
    def facts(self) -> FactStore:
        return FactStore(self.kv)

    @cached_property
    def threads(self) -> ThreadStore:
        return ThreadStore(self.kv)

    @cached_property
    def ledger(self) -> PostLedger:
        return PostLedger(self.kv)

    @cached_property
    def feedback(self) -> FeedbackStore:
        return FeedbackStore(self.kv)

    # GitHub ------------------------------------------------------------------------------

    @cached_property
    def source(self) -> GitHubSource:
        source = self.github_source()
        self._closers.append(source.close)
        return source

    def github_source(self, *, retries: int | None = None, rate_limit_wait: float | None = None) -> GitHubSource:
        """GitHub through its own client (the caller closes it, unless it is `source`)."""
        from bot.sources.github import MAX_RATE_LIMIT_WAIT, GitHubSource, build_github

        timing = self.timing
        client = build_github(
            self.settings.github_api_url,
            self.settings.github_token,
            retries=timing.github_retries if retries is None else retries,
            backoff=timing.github_backoff,
            max_rate_limit_wait=next(
                wait
                for wait in (rate_limit_wait, timing.github_rate_limit_wait, MAX_RATE_LIMIT_WAIT)
                if wait is not None
            ),
        )
        settings = self.settings
        authenticated = settings.github_token is not None
        return GitHubSource(client, authenticated=authenticated, api_url=settings.github_api_url, now=timing.now)

    @cached_property
    def visibility(self) -> Visibility:
        from bot.services.visibility import Visibility

        return Visibility(self.source, self.facts)

    # The model ---------------------------------------------------------------------------

    @property
    def model_timeout(self) -> float:
        timeout = self.timing.model_timeout
        return timeout if timeout is not None else self.settings.defaults.model_timeout

    @cached_property
    def model(self) -> ModelOnFirstUse | None:
        """The model endpoint, or None without OPENAI_API_KEY (cards then come from metadata)."""
        settings = self.settings
        if not settings.openai_api_key:
            return None
        key, url, timeout = settings.openai_api_key, settings.openai_base_url, self.model_timeout
        options = settings.model_options

        def connect() -> OpenAIModel:
            from bot.llm.openai_model import OpenAIModel, Sampling, build_openai, limit_field

            sampling = Sampling(
                options.max_output_tokens, limit_field(url), options.temperature, options.seed, options.system_role
            )
            return OpenAIModel(build_openai(key, url, timeout=timeout), settings.model, sampling)

        model = ModelOnFirstUse(settings.model, connect)
        self._closers.append(model.close)
        return model

    @cached_property
    def modes(self) -> ModeMemory:
        """What the model endpoint was found to take (the output mode, its window), for a day."""
        settings = self.settings
        return ModeMemory(self.kv, settings.openai_base_url or DEFAULT_OPENAI_URL, settings.model)

    def warm(self) -> None:
        """What a long-running process pays before it serves rather than on its first request."""
        if self.model is not None:
            self.model.warm()

    @property
    def model_budget(self) -> Budget:
        """How long one card or one answer may wait for the model, and how often it is retried."""
        retries = self.timing.model_retries
        return Budget(self.model_timeout, DEFAULT_RETRIES if retries is None else retries)

    @cached_property
    def writer(self) -> ModelCardWriter | None:
        if self.model is None:
            return None
        from bot.services.writer import ModelCardWriter, ModelFit

        timing = self.timing
        options = self.settings.model_options
        return ModelCardWriter(
            self.model,
            token_budget=self.settings.defaults.token_budget,
            budget=self.model_budget,
            pacing=timing.pacing,
            memory=self.modes,
            fit=ModelFit(options.mode, options.context_window, options.max_output_tokens),
        )

    @cached_property
    def answerer(self) -> ModelAnswerer | None:
        if self.model is None:
            return None
        from bot.services.answers import ModelAnswerer
        from bot.services.writer import ModelFit

        timing = self.timing
        options = self.settings.model_options
        return ModelAnswerer(
            self.model,
            token_budget=self.settings.defaults.token_budget,
            budget=self.model_budget,
            pacing=timing.pacing,
            memory=self.modes,
            fit=ModelFit(options.mode, options.context_window, options.max_output_tokens),
        )

    # Services ----------------------------------------------------------------------------

    @cached_property
    def cards(self) -> CardService:
        return CardService(
            self.source,
            self.store,
            self.writer,
            timing=CardTiming(self.timing.pacing, lease_seconds=lease_for(self.model_timeout)),
            jobs=self.queue,
            use=ModelUse(self.spending, self.settings.defaults.skip_model_for),
        )

    @cached_property
    def spending(self) -> Spending:
        """The model's tokens per UTC day, and the daily budget (services/spending.py)."""
        from bot.services.spending import Spending
        from bot.store.tokens import TokenStore

        config = self.settings.config
        prices = {name: price for name, options in config.models.items() if (price := options.price) is not None}
        return Spending(
            TokenStore(self.kv),
            budget=config.defaults.daily_token_budget,
            now=self.timing.now,
            prices=prices,
            workspace_budget=config.slack.workspace_daily_token_budget,
        )

    # The card queue ------------------------------------------------------------------------

    @cached_property
    def queue(self) -> CardQueue | None:
        """The card jobs shared by every replica; None without Redis (each card made where wanted)."""
        url = self.settings.redis_url
        if url is None or self.store_kv is not None:
            return None
        from bot.queue.broker import CardQueue

        queue = CardQueue(url, self.settings.config.queue.namespace)
        self._closers.append(queue.close)
        return queue

    @cached_property
    def poller(self) -> MergePoller | None:
        """Polls followed repositories for merged PRs and queues their cards (None: no queue, or
        `[queue] poll_minutes = 0`)."""
        minutes = self.settings.config.queue.poll_minutes
        if self.queue is None or minutes == 0:
            return None
        from bot.services.poller import MergePoller

        return MergePoller(self.source, self.cards, self.kv, timedelta(minutes=minutes), now=self.timing.now)

    def poll_merged(self) -> int:
        """One poll of every followed repository whose turn it is (the scheduler's tick)."""
        poller = self.poller
        if poller is None:
            return 0
        return poller.poll(self.background_payers())

    def background_payers(self, repo: str | None = None) -> dict[str, dict[Language, str | None]]:
        """Per followed repository (or only `repo`, case ignored) and language, the workspace whose
        budget pays for the cards nobody asked for yet (the poller's, the webhook's)."""
        from bot.services.spending import background_workspace

        followers: dict[str, dict[Language, set[str | None]]] = {}
        for plan in self.all_plans():
            for followed in plan.repos:
                if repo is None or followed.lower() == repo.lower():
                    followers.setdefault(followed, {}).setdefault(plan.language, set()).add(self.scope_of(plan.team))
        return {
            followed: {language: background_workspace(teams) for language, teams in languages.items()}
            for followed, languages in followers.items()
        }

    def payers_for(self, repo: str) -> dict[Language, str | None]:
        """The languages `repo` is followed in (empty: nobody follows it), each with its payer."""
        payers: dict[Language, str | None] = {}
        for languages in self.background_payers(repo).values():
            for language, workspace in languages.items():
                payers.setdefault(language, workspace)
        return payers

    @cached_property
    def webhook(self) -> GitHubWebhook | None:
        """POST /github/webhook, when GITHUB_WEBHOOK_SECRET is set."""
        secret = self.settings.github_webhook_secret
        if secret is None:
            return None
        from bot.webhook import GitHubWebhook

        return GitHubWebhook(secret, self.kv, self.queue, self.payers_for)

    @cached_property
    def metrics(self) -> PrometheusSink:
        """This process's Prometheus series, fed by everything from now on (serve, worker)."""
        from bot import telemetry
        from bot.metrics import PrometheusSink
        from bot.services.metric_labels import RepoLabels

        # Only the file's public repositories keep their names (services/metric_labels.py); the
        # visibility (and GitHub's client) is built at the first count that needs it.
        def is_private(repo: str) -> bool:
            return self.visibility.is_private(repo)

        named = (repo for channel in self.settings.config.channels for repo in channel.repos)
        repos = RepoLabels(named, is_private)
        sink = PrometheusSink(bounded={"repo": repos.label})
        telemetry.install(sink)
        if (queue := self.queue) is not None:
            telemetry.gauge("queue_depth", queue.depth)
            telemetry.gauge("queue_oldest_job_seconds", queue.oldest_age)
        telemetry.gauge("github_rate_limit_remaining", self._github_remaining)
        return sink

    def _github_remaining(self) -> int:
        # Only once GitHub has been asked something: a scrape builds no client.
        source: GitHubSource | None = self.__dict__.get("source")
        if source is None:
            raise LookupError("no GitHub client yet")
        return source.rate_limit_remaining()

    def worker(self, threads: int | None = None) -> RunningWorker:
        """A card worker in this process (`prdigest worker`, and `serve` unless --no-worker);
        the caller stops it. Needs Redis: ConfigError without it."""
        queue = self.queue
        if queue is None:
            raise ConfigError("REDIS_URL is not set: a worker takes its card jobs from Redis, shared by every replica")
        cards = self.cards

        def handle(job: CardJob) -> bool:
            return cards.make(job) is not None

        return queue.work(handle, threads or self.settings.config.queue.worker_threads)

    @cached_property
    def digests(self) -> DigestService:
        return DigestService(self.source, self.cards, concurrency=self.settings.defaults.concurrency)

    @cached_property
    def qa(self) -> QAService:
        return self.qa_of(self.directory, self.threads, None)

    def qa_of(self, directory: ChannelDirectory, threads: ThreadStore, scope: str | None) -> QAService:
        """Questions and answers for one workspace's channels (`scope`; None: the home one), made
        here only, so that every workspace links a PR known by number to the GitHub read."""
        from bot.services.qa import QAService

        return QAService(
            self.cards,
            threads,
            self.answerer,
            self.spending,
            self.across_days(directory, scope),
            web_base=github_web_base(self.settings.github_api_url),
            workspace=scope,
        )

    def across_days(self, directory: ChannelDirectory, scope: str | None = None) -> AcrossDays:
        """Questions across days for the channels of `directory` (one workspace's, `scope`)."""
        from bot.services.across import AcrossDays
        from bot.store.history import DigestHistory

        default = self.settings.defaults.timezone

        def zone_of(channel: str) -> ZoneInfo:
            plan = directory.plan(channel)
            return plan.timezone if plan is not None else default

        return AcrossDays(
            self.cards,
            now=self.timing.now,
            zone_of=zone_of,
            known_repos=lambda: directory.all_repos,
            history=DigestHistory(self.kv, scope),
            web_base=github_web_base(self.settings.github_api_url),
        )

    # Slack -------------------------------------------------------------------------------

    @cached_property
    def slack_client(self) -> SlackClient:
        """The app's client: the bot token's, or in OAuth mode none (Bolt's OAuth calls, rotation)."""
        token = self.settings.slack_bot_token
        if not token and not self.settings.oauth:
            raise ConfigError("SLACK_BOT_TOKEN is not set: the Slack app needs the bot token (xoxb-…)")
        from bot.slack.clients import build_web_client

        return build_web_client(token, self.settings.slack_api_url, timeout=self.timing.slack_timeout)

    # Workspaces (OAuth mode: the app installed in several) --------------------------------

    def scope_of(self, team: str | None) -> str | None:
        """The team a workspace's keys are kept under: None for the single install and for the
        home workspace of OAuth mode (its keys stay those of the single install)."""
        if not self.settings.oauth or team is None or team == self.settings.home_team:
            return None
        return team

    @cached_property
    def installations(self) -> SealedInstallationStore:
        from bot.slack.installations import SealedInstallationStore
        from bot.store.sealed import Sealer

        oauth = self.settings.slack_oauth
        if oauth is None:
            raise ConfigError("installations are for OAuth mode: set SLACK_CLIENT_ID and SLACK_CLIENT_SECRET")
        return SealedInstallationStore(self.kv, Sealer(oauth.secret_key))

    @cached_property
    def oauth_states(self) -> KVOAuthStateStore:
        from bot.slack.installations import KVOAuthStateStore

        return KVOAuthStateStore(self.kv)

    @cached_property
    def install_starts(self) -> InstallStarts:
        """How many "Add to Slack" flows may start (GET /slack/install writes an OAuth state)."""
        from bot.services.installs import InstallStarts
        from bot.slack.installations import STATE_SECONDS

        return InstallStarts(self.kv, STATE_SECONDS, clock=lambda: self.timing.now().timestamp())

    @cached_property
    def tokens(self) -> WorkspaceTokens:
        from bot.slack.installations import WorkspaceTokens

        oauth = self.settings.slack_oauth
        assert oauth is not None  # `installations` has said so otherwise
        return WorkspaceTokens(self.installations, self.slack_client, oauth.client_id, oauth.client_secret)

    def team_client(self, team: str | None) -> SlackClient:
        """The client of a workspace (None: the single or home one) for calls outside a Slack
        request: the bot token, or in OAuth mode the workspace's installation, rotated."""
        if not self.settings.oauth:
            return self.slack_client
        workspace = team or self.settings.home_team
        with self._lock:
            client = self._team_clients.get(workspace)
            if client is None:
                from bot.slack.clients import build_web_client

                client = build_web_client(
                    lambda: self._token(workspace), self.settings.slack_api_url, timeout=self.timing.slack_timeout
                )
                self._team_clients[workspace] = client
            return client

    def team_slack(self, team: str | None) -> SlackPort:
        """A workspace's Slack (None: the single or home one) over its client (`team_client`)."""
        from bot.slack.web import SlackWeb

        return SlackWeb(self.team_client(team))

    def _token(self, workspace: str | None) -> str:
        if workspace is None:
            from bot.errors import SlackError

            raise SlackError("not_installed")  # OAuth mode without [slack] home_team: no home workspace
        return self.tokens.bot_token(workspace)

    def workspace(self, team: str | None) -> Workspace:
        """One workspace's client, stores and posting services (None: the single or home one)."""
        from bot.services.access import AccessPolicy
        from bot.slack.workspaces import Workspace

        scope = self.scope_of(team)
        if scope is None:
            return self._home_workspace
        with self._lock:
            found = self._workspaces.get(scope)
        if found is not None:
            return found
        slack = self.team_slack(scope)
        ledger, threads, facts = PostLedger(self.kv, scope), ThreadStore(self.kv, scope), FactStore(self.kv, scope)
        subscriptions = self._subscriptions(SubscriptionStore(self.kv, team=scope), home=False)
        directory = self._directory(subscriptions, scope)
        # Only what this workspace follows from Slack, and public repositories only (home=False).
        access = AccessPolicy(directory, self.visibility, slack, facts, home=False)
        publisher = self._publisher(slack, ledger, threads)
        made = Workspace(
            scope,
            slack,
            ledger,
            threads,
            facts,
            access,
            publisher,
            self._channel_digests(publisher, ledger, access, FeedbackStore(self.kv, scope), scope),
            directory,
            subscriptions,
        )
        with self._lock:
            return self._workspaces.setdefault(scope, made)

    @cached_property
    def _home_workspace(self) -> Workspace:
        """The single or home workspace: the builder's own client, stores and services."""
        from bot.slack.workspaces import Workspace

        return Workspace(
            None,
            self.team_slack(None),
            self.ledger,
            self.threads,
            self.facts,
            self.access,
            self.publisher,
            self.channel_digests,
            self.directory,
            self.subscriptions,
        )

    def forget_workspace(self, workspace: str) -> int:
        """A workspace that uninstalled the app: its installation and every key of its own go.
        The home workspace's keys are the single install's, mixed with shared ones: they stay,
        and expire with their TTLs. How many keys were deleted."""
        from bot.store.workspace import team_prefix

        self.installations.forget(workspace)
        with self._lock:
            self._workspaces.pop(workspace, None)
            self._team_clients.pop(workspace, None)
            self._watch_dms.pop(workspace, None)
        if self.scope_of(workspace) is None:
            return 0
        return self.kv.strict().delete_prefix(team_prefix(workspace))

    @cached_property
    def directory(self) -> ChannelDirectory:
        return self._directory(self.subscriptions, None)

    def _directory(self, subscriptions: Subscriptions, scope: str | None) -> ChannelDirectory:
        from bot.services.channels import ChannelDirectory

        directory = ChannelDirectory(self.settings.config, subscriptions.configs, team=scope)
        directory.refresh()
        return directory

    def all_plans(self) -> tuple[ChannelPlan, ...]:
        """Every channel that gets a digest, read again (the scheduler's tick): the single or home
        workspace's, and in OAuth mode those each other installed workspace follows from Slack."""
        plans = self.directory.current_plans()
        if not self.settings.oauth:
            return plans
        others: list[ChannelPlan] = []
        try:
            teams = [listed.workspace for listed in self.installations.listed()]
        except StoreError:
            return plans  # the tick that reaches Redis again reads them
        for team in teams:
            if self.scope_of(team) is not None:
                others.extend(self.workspace(team).directory.current_plans())
        return (*plans, *others)

    @cached_property
    def alert_finder(self) -> WatchFinder:
        from bot.services.watches import WatchFinder

        return WatchFinder(self.source, self.cards)

    def watch_dms(self, team: str | None) -> WatchDMs:
        """A workspace's personal watches and their daily DMs (None: the single or home one)."""
        from bot.render.watches import watch_dm_message
        from bot.services.lease import POST_LEASE_SECONDS
        from bot.services.posting import PostTiming
        from bot.services.watch_dms import WatchAccess, WatchDMs, WatchDMStores, WatchDMWording
        from bot.store.watches import WatchStore

        workspace = self.workspace(team)
        with self._lock:
            found = self._watch_dms.get(workspace.scope)
        if found is not None:
            return found
        lease = self.timing.post_lease_seconds

        def is_private(repo: str) -> bool:
            # GitHub is built at the first watch or DM, not here.
            return self.visibility.is_private(repo)

        made = WatchDMs(
            slack=workspace.slack,
            stores=WatchDMStores(WatchStore(self.kv, workspace.scope), workspace.ledger, workspace.facts),
            access=WatchAccess(workspace.access, workspace.directory, is_private),
            finder=self.alert_finder,
            wording=WatchDMWording(watch_dm_message, self.settings.defaults.language),
            timing=PostTiming(self.timing.now, POST_LEASE_SECONDS if lease is None else lease),
        )
        with self._lock:
            return self._watch_dms.setdefault(workspace.scope, made)

    def all_watch_dms(self) -> tuple[WatchDMs, ...]:
        """Every workspace's watches (the scheduler's tick): the single or home one's, and in OAuth
        mode each other installed workspace's."""
        jobs = [self.watch_dms(None)]
        if self.settings.oauth:
            try:
                teams = [listed.workspace for listed in self.installations.listed()]
            except StoreError:
                return tuple(jobs)
            jobs += [self.watch_dms(team) for team in teams if self.scope_of(team) is not None]
        return tuple(jobs)

    @cached_property
    def subscription_store(self) -> SubscriptionStore:
        # team None: the single-workspace install (SLACK_BOT_TOKEN); a workspace's team id here
        # scopes every key of it (store/workspace.py).
        return SubscriptionStore(self.kv, team=None)

    @cached_property
    def subscriptions(self) -> Subscriptions:
        return self._subscriptions(self.subscription_store, home=True)

    def _subscriptions(self, store: SubscriptionStore, *, home: bool) -> Subscriptions:
        """A workspace's subscriptions. The config file's channels and its followable private
        repositories are the home workspace's: another one follows public repositories, from Slack."""
        from bot.services.subscriptions import ConfigFile, Subscriptions, WorkspaceCaps

        config = self.settings.config
        slack = config.slack if home else config.slack.model_copy(update={"followable_private_repos": ()})
        caps = None if home else WorkspaceCaps(config.slack.workspace_max_repos, config.slack.workspace_max_channels)

        def is_private(repo: str) -> bool:
            # GitHub is built at the first follow, not here: `prdigest following` never needs it.
            return self.visibility.is_private(repo)

        return Subscriptions(
            slack,
            ConfigFile(config.channels if home else (), self.settings.config_path or DEFAULT_CONFIG_PATH),
            store,
            is_private,
            now=self.timing.now,
            caps=caps,
        )

    @cached_property
    def access(self) -> AccessPolicy:
        from bot.services.access import AccessPolicy

        return AccessPolicy(self.directory, self.visibility, self.team_slack(None), self.facts)

    @cached_property
    def publisher(self) -> Publisher:
        return self._publisher(self.team_slack(None), self.ledger, self.threads)

    def _publisher(self, slack: SlackPort, ledger: PostLedger, threads: ThreadStore) -> Publisher:
        from bot.render.digest_messages import DigestBlocks
        from bot.services.publisher import PACE_SECONDS, PostPace, Publisher

        pace = self.timing.pace
        return Publisher(
            slack,
            ledger,
            threads,
            messages=DigestBlocks(),  # what the posting says, in Block Kit: the service never imports render
            pace=PostPace(PACE_SECONDS if pace is None else pace, self.timing.pacing),
            watch_days=self.settings.defaults.watch_days,
        )

    @cached_property
    def channel_digests(self) -> DigestPosting:
        return self._channel_digests(self.publisher, self.ledger, self.access, self.feedback)

    def _channel_digests(
        self,
        publisher: Publisher,
        ledger: PostLedger,
        access: AccessPolicy,
        feedback: FeedbackStore,
        workspace: str | None = None,
    ) -> DigestPosting:
        from bot.services.lease import POST_LEASE_SECONDS
        from bot.services.posting import DigestPosting, PostingScope, PostTiming

        lease = self.timing.post_lease_seconds
        return DigestPosting(
            self.digests,
            publisher,
            ledger,
            access.refusal,
            timing=PostTiming(self.timing.now, POST_LEASE_SECONDS if lease is None else lease),
            scope=PostingScope(workspace, feedback),
        )

    def slack(self, *, socket_mode: bool = False) -> SlackParts:
        """The Bolt app with every listener, and the scheduler: what `serve` runs."""
        from bot.slack.app import build_app

        return build_app(self, socket_mode=socket_mode)

    def close(self) -> None:
        """Close every client this builder opened, newest first."""
        while self._closers:
            self._closers.pop()()
