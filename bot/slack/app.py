"""The Bolt app: every Slack surface wired to the builder's services, built once per process.

Signature verification stays on (Bolt's default): an unsigned or stale request gets 401 and
reaches no listener. Events nobody listens to get 200, not Bolt's 404, so Slack does not
retry them or disable the subscription.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from slack_bolt import App, BoltResponse
from slack_bolt.error import BoltUnhandledRequestError
from slack_sdk.signature import SignatureVerifier

from bot.errors import ConfigError
from bot.services.installs import InstallStarts
from bot.services.members import ChannelMembers
from bot.services.people import PeopleLanguages
from bot.services.posting import DigestPosting
from bot.services.refs import github_web_base
from bot.slack.clients import SlackClient
from bot.slack.deps import SlackDeps
from bot.slack.executor import CountingExecutor
from bot.slack.guards import ResponseUrlGuard, response_origins
from bot.slack.httpd import WsgiApp
from bot.slack.listeners import actions, commands, direct, feedback, home, installs, questions, unfurls
from bot.slack.listeners import settings as channel_settings
from bot.slack.runner import ack_in_place
from bot.slack.scheduler import TICK_SECONDS, Scheduler
from bot.words import text

if TYPE_CHECKING:
    from bot.builder import Builder

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
    # POST /github/webhook (bot/webhook.py); None without GITHUB_WEBHOOK_SECRET.
    webhook: WsgiApp | None = None
    # GET /slack/install's limits (services/installs.py); None outside OAuth mode.
    install_starts: InstallStarts | None = None

    def prestart(self) -> None:
        """Start the pools' threads before serving (slack/executor.py says why)."""
        self.listeners.prestart()
        self.work.prestart()

    def drain(self) -> None:
        """Wait for the work already handed over (an answer waiting on the model, a card on its
        way to a response_url) before the clients it uses are closed: stopping must not turn an
        answer into "something went wrong". No new work comes once the server has stopped."""
        self.listeners.shutdown(wait=True)
        self.work.shutdown(wait=True)

    def idle(self) -> bool:
        """Nothing in flight: no listener running, no work queued or running, no digest posting."""
        # Listeners hand work on before they finish, so listeners are looked at first.
        return self.listeners.idle() and self.work.idle() and not self.scheduler.busy


def build_app(built: Builder, *, socket_mode: bool = False) -> SlackParts:
    """The Bolt app over the builder's services and Slack client, with every listener registered."""
    settings = built.settings
    if not socket_mode and not settings.slack_signing_secret:
        raise ConfigError("SLACK_SIGNING_SECRET is not set: HTTP mode needs it to verify Slack's requests")
    client = built.slack_client
    listener_pool = CountingExecutor(LISTENER_THREADS, "listener")
    work = CountingExecutor(WORK_THREADS, "work")
    signing_secret = settings.slack_signing_secret or "unused-in-socket-mode"
    oauth: dict[str, Any] = {}
    if settings.oauth:
        from bot.slack.oauth import oauth_parts

        oauth["oauth_settings"], oauth["authorize"] = oauth_parts(built)
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
    deps = SlackDeps(
        directory=built.directory,
        access=built.access,
        members=ChannelMembers(built.facts),
        people=PeopleLanguages(built.facts, settings.defaults.language),
        cards=built.cards,
        qa=built.qa,
        threads=built.threads,
        ledger=built.ledger,
        command=settings.config.slack.command,
        work=work,
        subscriptions=built.subscriptions,
        digests=built.channel_digests,
        defaults=settings.defaults,
        feedback=built.feedback,
        watch_dms=built.watch_dms(None),
        spending=built.spending,
        github_web=github_web_base(settings.github_api_url),
    )
    if settings.oauth:
        deps = replace(deps, teams=_deps_of_team(built, deps))
        installs.register(app, built.forget_workspace)
    # The Messages tab's listeners first: Bolt runs the first listener that accepts an event,
    # and the App Home's and the questions' accept every app_home_opened and message.
    direct.register(app, deps)
    for listeners in (questions, commands, actions, feedback, home, channel_settings):
        listeners.register(app, deps)
    if settings.config.slack.unfurl:
        unfurls.register(app, deps)

    @app.error
    def on_error(error: Exception) -> BoltResponse | None:
        if isinstance(error, BoltUnhandledRequestError):
            return BoltResponse(status=200, body="")
        log.error("a Slack listener failed: %s", type(error).__name__, exc_info=error)
        return None

    tick = built.timing.scheduler_tick
    scheduler = Scheduler(
        built.all_plans,
        built.channel_digests,
        tick=TICK_SECONDS if tick is None else tick,
        for_team=lambda team: built.workspace(team).digests,
        watch_dms=built.all_watch_dms,
        poll=built.poll_merged,
    )
    verifier = SignatureVerifier(signing_secret)
    return SlackParts(
        app,
        client,
        deps,
        built.channel_digests,
        scheduler,
        verifier,
        listener_pool,
        work,
        built.webhook,
        built.install_starts if settings.oauth else None,
    )


def _deps_of_team(built: Builder, home: SlackDeps) -> Callable[[str | None], SlackDeps]:
    """The listeners' deps for each workspace: the home one's as built, any other's over its own
    keys (its subscriptions, threads, ledger, caches and answers' memory) and its own client."""
    from bot.store.feedback import FeedbackStore

    def of_team(team: str | None) -> SlackDeps:
        scope = built.scope_of(team)
        if scope is None:
            return home
        workspace = built.workspace(scope)
        return replace(
            home,
            directory=workspace.directory,
            subscriptions=workspace.subscriptions,
            digests=workspace.digests,
            access=workspace.access,
            members=ChannelMembers(workspace.facts),
            people=PeopleLanguages(workspace.facts, built.settings.defaults.language),
            qa=built.qa_of(workspace.directory, workspace.threads, scope),
            threads=workspace.threads,
            ledger=workspace.ledger,
            feedback=FeedbackStore(built.kv, scope),
            watch_dms=built.watch_dms(scope),
            teams=None,
            workspace=scope,
        )

    return of_team
