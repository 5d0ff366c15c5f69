"""The Bolt app: every Slack surface over the tenants' services, built once per process.

Signature verification stays on (Bolt's default): an unsigned or stale request gets 401 and
reaches no listener. Events nobody listens to get 200, not Bolt's 404, so Slack does not
retry them or disable the subscription.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt import App, BoltResponse
from slack_bolt.error import BoltUnhandledRequestError
from slack_sdk.oauth import InstallationStore, OAuthStateStore
from slack_sdk.signature import SignatureVerifier

from bot.channels import ChannelPlan
from bot.digests import DigestPosting
from bot.errors import ConfigError
from bot.http.httpd import WsgiApp
from bot.jobs.scheduler import TICK_SECONDS, Scheduler
from bot.settings import Settings
from bot.slack.clients import SlackClient
from bot.slack.deps import SlackDeps, TeamLookup
from bot.slack.executor import CountingExecutor, ack_in_place
from bot.slack.guards import ReplayGuard, ResponseUrlGuard, response_origins
from bot.slack.listeners import actions, commands, direct, feedback, installs, questions, release, unfurls
from bot.slack.listeners import home as home_tab
from bot.slack.listeners import settings as channel_settings
from bot.slack.oauth import oauth_parts
from bot.watches import WatchDMs
from bot.words import text
from bot.workspaces import InstallStarts, Tenant

log = logging.getLogger(__name__)

# Listeners only acknowledge and hand slow work over, so a few threads are plenty; Bolt runs
# command acks on them, so they must never wait on GitHub or the model.
LISTENER_THREADS = 16
# Questions and /pr lookups wait seconds on GitHub and the model: this many run at once, the
# rest queue (their requests were acknowledged long before).
WORK_THREADS = 32


@dataclass
class SlackParts:
    app: App
    client: SlackClient  # Bolt's, for its own calls; ours go through SlackWeb (slack/web.py)
    deps: SlackDeps
    digests: DigestPosting
    scheduler: Scheduler
    verifier: SignatureVerifier  # the app's own check, for the HTTP server's checks before Bolt's
    listeners: CountingExecutor
    work: CountingExecutor
    # POST /github/webhook (bot/http/webhook.py); None without GITHUB_WEBHOOK_SECRET.
    webhook: WsgiApp | None = None
    # GET /slack/install's limits (workspaces/installs.py); None outside OAuth mode.
    install_starts: InstallStarts | None = None

    def prestart(self) -> None:
        """Start the pools' threads before serving (slack/executor.py says why)."""
        self.listeners.prestart()
        self.work.prestart()

    def drain(self) -> None:
        """Wait for the work already handed over (an answer waiting on the model, a card on its
        way to a response_url) before the clients it uses are closed: stopping must not turn an
        answer into "something went wrong". No new work comes once the server has stopped, and
        the scheduler starts none (its running jobs are given a moment to end)."""
        self.scheduler.stop()
        self.listeners.shutdown(wait=True)
        self.work.shutdown(wait=True)

    def idle(self) -> bool:
        """Nothing in flight: no listener running, no work queued or running, no digest posting."""
        # Listeners hand work on before they finish, so listeners are looked at first.
        return self.listeners.idle() and self.work.idle() and not self.scheduler.busy


@dataclass(frozen=True)
class Every:
    """What the scheduler and the uninstall events ask of every workspace (wiring/tenants.py
    keeps each workspace's parts; these are its calls)."""

    plans: Callable[[], tuple[ChannelPlan, ...]]  # every channel that gets a digest, read again
    posting: Callable[[str | None], DigestPosting]  # who posts a plan's digests: its workspace's
    watch_dms: Callable[[], tuple[WatchDMs, ...]]  # every workspace's watches
    poll: Callable[[], int]  # merged PRs whose cards to make ahead, and new releases to post
    forget: Callable[[str], int]  # a workspace that uninstalled the app: how many keys went


@dataclass(frozen=True)
class AppParts:
    """What the Bolt app is assembled from (wiring/slack.py makes them)."""

    settings: Settings
    client: SlackClient  # the app's: Bolt's own calls, and in the single install every call
    tenants: Callable[[str | None], Tenant]  # a workspace's parts (None: the single or home one)
    every: Every  # every workspace's plans, postings and watches, for the scheduler
    webhook: WsgiApp | None = None
    # OAuth mode: the installations, the flows' states and GET /slack/install's limits.
    oauth: tuple[InstallationStore, OAuthStateStore, InstallStarts] | None = None
    scheduler_tick: float | None = None


def build_app(parts: AppParts, *, socket_mode: bool = False) -> SlackParts:
    """The Bolt app over the tenants' services and the app's client, with every listener registered."""
    settings = parts.settings
    if not socket_mode and not settings.slack_signing_secret:
        raise ConfigError("SLACK_SIGNING_SECRET is not set: HTTP mode needs it to verify Slack's requests")
    client = parts.client
    listener_pool = CountingExecutor(LISTENER_THREADS, "listener")
    work = CountingExecutor(WORK_THREADS, "work")
    signing_secret = settings.slack_signing_secret or "unused-in-socket-mode"
    oauth: dict[str, Any] = {}
    if parts.oauth is not None and settings.slack_oauth is not None:
        installations, states, _ = parts.oauth
        oauth["oauth_settings"], oauth["authorize"] = oauth_parts(settings.slack_oauth, installations, states, client)
        # Told to someone whose workspace has no installation (removed, or its token revoked).
        oauth["user_facing_authorize_error_message"] = text(settings.defaults.language, "oauth.not_installed")
    app = App(
        client=client,
        signing_secret=signing_secret,
        request_verification_enabled=not socket_mode,
        raise_error_for_unhandled_request=True,
        listener_executor=listener_pool,
        **oauth,
    )
    ack_in_place(app)
    # After Bolt's own middleware (the signature check): a signed request naming a response_url
    # that is not Slack's is acknowledged and goes no further.
    app.use(ResponseUrlGuard(response_origins(settings.slack_api_url)))
    home = parts.tenants(None)
    deps = SlackDeps(home, parts.tenants, work)
    # Then the request's workspace is found once, and a replayed command or click goes no further.
    app.use(TeamLookup(deps))
    app.use(ReplayGuard(work))
    every = parts.every
    if parts.oauth is not None:
        installs.register(app, every.forget)
    # Bolt runs the first listener that accepts an event. The questions' accept messages outside
    # DMs only, so a DM reaches the Messages tab's; the Messages tab's app_home_opened listener
    # comes before the App Home's, which accepts every app_home_opened.
    for listeners in (questions, direct, commands, actions, release, feedback, home_tab, channel_settings):
        listeners.register(app, deps)
    if settings.config.slack.unfurl:
        unfurls.register(app, deps)

    @app.error
    def on_error(error: Exception) -> BoltResponse | None:
        if isinstance(error, BoltUnhandledRequestError):
            return BoltResponse(status=200, body="")
        log.error("a Slack listener failed: %s", type(error).__name__, exc_info=error)
        return None

    tick = parts.scheduler_tick
    scheduler = Scheduler(
        every.plans,
        home.digests,
        tick=TICK_SECONDS if tick is None else tick,
        for_team=every.posting,
        watch_dms=every.watch_dms,
        poll=every.poll,
    )
    verifier = SignatureVerifier(signing_secret)
    return SlackParts(
        app,
        client,
        deps,
        home.digests,
        scheduler,
        verifier,
        listener_pool,
        work,
        parts.webhook,
        parts.oauth[2] if parts.oauth is not None else None,
    )
