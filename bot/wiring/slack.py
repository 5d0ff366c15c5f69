"""Slack's side of a process: the app's client, each workspace's client and Tenant, the
installations of OAuth mode, and the Bolt app with its scheduler, from the process's parts.

`serve` runs what `slack_app` returns; `prdigest digest --post` and `following` use the tenants
alone. The Bolt app is assembled (slack/app.py) from these values and never sees this module.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from bot.core.installs import STATE_SECONDS
from bot.errors import ConfigError, SlackError
from bot.http.webhook import GitHubWebhook
from bot.ports.slack import SlackPort
from bot.settings import Settings
from bot.slack.app import AppParts, Every, SlackParts, build_app
from bot.slack.clients import SlackClient, build_web_client
from bot.slack.tokens import WorkspaceTokens
from bot.slack.web import SlackWeb
from bot.store.installations import KVOAuthStateStore, SealedInstallationStore
from bot.store.repos.app_installations import AppInstallationStore
from bot.store.sealed import Sealer
from bot.store.workspace import Scopes
from bot.wiring.process import Process
from bot.wiring.tenants import Tenants
from bot.wiring.timing import Timing
from bot.workspaces.installed import Workspaces
from bot.workspaces.installs import InstallStarts


@dataclass(frozen=True)
class OAuthParts:
    """OAuth mode's stores: installations (sealed), the flows' states, and the install limits."""

    installations: SealedInstallationStore
    states: KVOAuthStateStore
    tokens: WorkspaceTokens
    starts: InstallStarts


class SlackClients:
    """The app's client (Bolt's own calls, and in the single install every call), and in OAuth
    mode one per workspace, asking the installation for its token before every call."""

    def __init__(self, settings: Settings, timing: Timing, oauth: OAuthParts | None, app: SlackClient) -> None:
        self._settings = settings
        self._timing = timing
        self._oauth = oauth
        self.app = app
        self._lock = threading.Lock()
        self._clients: dict[str | None, SlackClient] = {}

    def of(self, team: str | None) -> SlackClient:
        """The client of a workspace (None: the single or home one) for calls outside a Slack
        request: the bot token, or in OAuth mode the workspace's installation, rotated."""
        oauth = self._oauth
        if oauth is None:
            return self.app
        workspace = team or self._settings.home_team
        with self._lock:
            client = self._clients.get(workspace)
            if client is None:
                client = build_web_client(
                    lambda: _token(oauth, workspace), self._settings.slack_api_url, timeout=self._timing.slack_timeout
                )
                self._clients[workspace] = client
            return client

    def slack(self, team: str | None) -> SlackPort:
        """A workspace's Slack over its client."""
        return SlackWeb(self.of(team))

    def drop(self, team: str) -> None:
        with self._lock:
            self._clients.pop(team, None)


def _token(oauth: OAuthParts, workspace: str | None) -> str:
    if workspace is None:
        raise SlackError("not_installed")  # OAuth mode without [slack] home_team: no home workspace
    return oauth.tokens.bot_token(workspace)


@dataclass(frozen=True)
class SlackWiring:
    process: Process
    clients: SlackClients
    tenants: Tenants
    workspaces: Workspaces
    oauth: OAuthParts | None
    # POST /github/webhook (bot/http/webhook.py); None without GITHUB_WEBHOOK_SECRET.
    webhook: GitHubWebhook | None

    def poll_merged(self) -> int:
        """One poll of every followed repository whose turn it is (the scheduler's tick)."""
        return self.workspaces.poll_merged(self.tenants.all_plans())

    def poll(self) -> int:
        """The scheduler's poll: merged PRs whose cards to make ahead, and new releases to post."""
        return self.poll_merged() + self.tenants.poll_releases()

    def forget(self, team: str) -> int:
        """A workspace that uninstalled the app: its installation, its parts, its client and every
        key of its own go (workspaces/installed.py says which stay). How many keys were deleted."""
        if self.oauth is not None:
            self.oauth.installations.forget(team)
        self.tenants.drop(team)
        self.clients.drop(team)
        return self.workspaces.forget(team)


def _oauth_parts(process: Process, app: SlackClient) -> OAuthParts | None:
    oauth = process.settings.slack_oauth
    if oauth is None:
        return None
    kv, now = process.kv, process.timing.now
    installations = SealedInstallationStore(kv, Sealer(oauth.secret_key))
    return OAuthParts(
        installations,
        KVOAuthStateStore(kv),
        WorkspaceTokens(installations, app, oauth.client_id, oauth.client_secret),
        InstallStarts(kv, STATE_SECONDS, clock=lambda: now().timestamp()),
    )


def wire_slack(process: Process) -> SlackWiring:
    """Slack's parts over `process`'s."""
    settings, timing = process.settings, process.timing
    # In OAuth mode the app's client has no token: Bolt's OAuth calls and the token rotation.
    app = build_web_client(settings.slack_bot_token, settings.slack_api_url, timeout=timing.slack_timeout)
    oauth = _oauth_parts(process, app)
    clients = SlackClients(settings, timing, oauth, app)
    scopes = Scopes(settings.oauth, settings.home_team)
    installations = oauth.installations if oauth is not None else None
    teams = (lambda: [listed.workspace for listed in installations.listed()]) if installations is not None else list
    tenants = Tenants(process, scopes, clients.slack, teams)
    workspaces = Workspaces(scopes, kv=process.kv, poller=process.poller)
    secret = settings.github_webhook_secret
    webhook = (
        None
        if secret is None
        else GitHubWebhook(
            secret,
            process.kv,
            process.queue,
            lambda repo: workspaces.payers_for(repo, tenants.all_plans()),
            tenants.published,
            # The App's deliveries forget where its installations are, for every replica at once.
            AppInstallationStore(process.kv.strict()) if settings.github_app is not None else None,
        )
    )
    return SlackWiring(process, clients, tenants, workspaces, oauth, webhook)


def require_bot_token(settings: Settings) -> None:
    """The single install speaks to Slack with SLACK_BOT_TOKEN: ConfigError without it."""
    if not settings.slack_bot_token and not settings.oauth:
        raise ConfigError("SLACK_BOT_TOKEN is not set: the Slack app needs the bot token (xoxb-…)")


def slack_app(wired: SlackWiring, *, socket_mode: bool = False) -> SlackParts:
    """The Bolt app with every listener, and the scheduler: what `serve` runs."""
    settings = wired.process.settings
    require_bot_token(settings)
    oauth = wired.oauth
    return build_app(
        AppParts(
            settings=settings,
            client=wired.clients.app,
            tenants=wired.tenants.get,
            every=Every(
                wired.tenants.all_plans, wired.tenants.posting, wired.tenants.all_watch_dms, wired.poll, wired.forget
            ),
            webhook=wired.webhook,
            oauth=None if oauth is None else (oauth.installations, oauth.states, oauth.starts),
            scheduler_tick=wired.process.timing.scheduler_tick,
        ),
        socket_mode=socket_mode,
    )
