"""Workspaces: the rules that span every workspace the app is installed in.

Which team a workspace's keys are kept under, every channel that gets a digest (the scheduler's
tick reads them again), every workspace's watches, whose budget pays for the cards nobody asked
for yet, and what goes when a workspace uninstalls the app. In the single-workspace install
there is one workspace, the home one; in OAuth mode each installed workspace has its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.cards.poller import MergePoller
from bot.channels.directory import ChannelPlan
from bot.errors import StoreError
from bot.models import Language
from bot.releases.announcer import ReleaseWatch
from bot.store.kv import KV
from bot.store.workspace import checked_team, team_prefix
from bot.watches.dms import WatchDMs
from bot.workspaces.spending import background_workspace
from bot.workspaces.tenant import Tenant


def is_team_id(team: str) -> bool:
    """Whether `team` is written as Slack writes a team or an org id (T…, E…)."""
    try:
        checked_team(team)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class Scopes:
    """Which keys a workspace's state is kept under."""

    oauth: bool  # several workspaces (SLACK_CLIENT_ID…), or one (SLACK_BOT_TOKEN)
    home_team: str | None = None  # `[slack] home_team`: the workspace the config file's channels are in

    def of(self, team: str | None) -> str | None:
        """The team a workspace's keys are kept under: None for the single install and for the
        home workspace of OAuth mode (its keys stay those of the single install)."""
        if not self.oauth or team is None or team == self.home_team:
            return None
        return team


@dataclass(frozen=True)
class Installed:
    """The workspaces that installed the app (OAuth mode), as the installation store keeps them."""

    teams: Callable[[], list[str]]  # StoreError when Redis is away
    forget: Callable[[str], None]  # the installation goes


NOT_INSTALLED = Installed(lambda: [], lambda team: None)


class Workspaces:
    def __init__(
        self,
        scopes: Scopes,
        tenant: Callable[[str | None], Tenant],
        installed: Installed = NOT_INSTALLED,
        *,
        kv: KV,
        poller: MergePoller | None = None,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.scopes = scopes
        self._tenant = tenant
        self._installed = installed
        self._kv = kv
        self._poller = poller
        # New releases posted where channels asked for them (`releases = "post"`).
        self.releases = ReleaseWatch(self.all_plans, tenant, now)

    def _others(self) -> list[str]:
        """The installed workspaces besides the home one (OAuth mode; StoreError: Redis is away)."""
        if not self.scopes.oauth:
            return []
        return [team for team in self._installed.teams() if self.scopes.of(team) is not None]

    def all_plans(self) -> tuple[ChannelPlan, ...]:
        """Every channel that gets a digest, read again (the scheduler's tick): the single or home
        workspace's, and in OAuth mode those each other installed workspace follows from Slack."""
        plans = self._tenant(None).directory.current_plans()
        try:
            others = self._others()
        except StoreError:
            return plans  # the tick that reaches Redis again reads them
        return (*plans, *(plan for team in others for plan in self._tenant(team).directory.current_plans()))

    def all_watch_dms(self) -> tuple[WatchDMs, ...]:
        """Every workspace's watches (the scheduler's tick): the single or home one's, and in OAuth
        mode each other installed workspace's."""
        home = self._tenant(None).watch_dms
        try:
            others = self._others()
        except StoreError:
            return (home,)
        return (home, *(self._tenant(team).watch_dms for team in others))

    def background_payers(self, repo: str | None = None) -> dict[str, dict[Language, str | None]]:
        """Per followed repository (or only `repo`, case ignored) and language, the workspace whose
        budget pays for the cards nobody asked for yet (the poller's, the webhook's)."""
        followers: dict[str, dict[Language, set[str | None]]] = {}
        for plan in self.all_plans():
            for followed in plan.repos:
                if repo is None or followed.lower() == repo.lower():
                    teams = followers.setdefault(followed, {}).setdefault(plan.language, set())
                    teams.add(self.scopes.of(plan.team))
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

    def poll_merged(self) -> int:
        """One poll of every followed repository whose turn it is (the scheduler's tick)."""
        if self._poller is None:
            return 0
        return self._poller.poll(self.background_payers())

    def poll(self) -> int:
        """The scheduler's poll: merged PRs whose cards to make ahead, and new releases to post."""
        return self.poll_merged() + self.releases.poll()

    def forget(self, workspace: str) -> int:
        """A workspace that uninstalled the app: its installation and every key of its own go.
        The home workspace's keys are the single install's, mixed with shared ones: they stay,
        and expire with their TTLs. How many keys were deleted."""
        self._installed.forget(workspace)
        if self.scopes.of(workspace) is None:
            return 0
        return self._kv.strict().delete_prefix(team_prefix(workspace))
