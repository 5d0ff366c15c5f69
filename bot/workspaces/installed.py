"""Workspaces: the rules that span every workspace the app is installed in.

Which team a workspace's keys are kept under, whose budget pays for the cards nobody asked for
yet (given every workspace's channels), and what goes when a workspace uninstalls the app. In
the single-workspace install there is one workspace, the home one; in OAuth mode each installed
workspace has its own. Each workspace's parts (its Tenant) are the wiring's: it hands their
channels here, and nothing here asks it for them.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.cards import MergePoller
from bot.channels import ChannelPlan
from bot.models import Language
from bot.spending import background_workspace
from bot.store.kv import KV
from bot.store.workspace import Scopes, checked_team, team_prefix


def is_team_id(team: str) -> bool:
    """Whether `team` is written as Slack writes a team or an org id (T…, E…)."""
    try:
        checked_team(team)
    except ValueError:
        return False
    return True


class Workspaces:
    def __init__(
        self,
        scopes: Scopes,
        *,
        kv: KV,
        poller: MergePoller | None = None,
    ) -> None:
        self.scopes = scopes
        self._kv = kv
        self._poller = poller

    def background_payers(
        self, plans: Sequence[ChannelPlan], repo: str | None = None
    ) -> dict[str, dict[Language, str | None]]:
        """Per repository `plans` follow (or only `repo`, case ignored) and language, the workspace
        whose budget pays for the cards nobody asked for yet (the poller's, the webhook's)."""
        followers: dict[str, dict[Language, set[str | None]]] = {}
        for plan in plans:
            for followed in plan.repos:
                if repo is None or followed.lower() == repo.lower():
                    teams = followers.setdefault(followed, {}).setdefault(plan.language, set())
                    teams.add(self.scopes.of(plan.team))
        return {
            followed: {language: background_workspace(teams) for language, teams in languages.items()}
            for followed, languages in followers.items()
        }

    def payers_for(self, repo: str, plans: Sequence[ChannelPlan]) -> dict[Language, str | None]:
        """The languages `plans` follow `repo` in (empty: nobody follows it), each with its payer."""
        payers: dict[Language, str | None] = {}
        for languages in self.background_payers(plans, repo).values():
            for language, workspace in languages.items():
                payers.setdefault(language, workspace)
        return payers

    def poll_merged(self, plans: Sequence[ChannelPlan]) -> int:
        """One poll of every repository `plans` follow whose turn it is (the scheduler's tick)."""
        if self._poller is None:
            return 0
        return self._poller.poll(self.background_payers(plans))

    def forget(self, workspace: str) -> int:
        """A workspace that uninstalled the app (its installation is gone already): every key of
        its own goes. The home workspace's keys are the single install's, mixed with shared ones:
        they stay, and expire with their TTLs. How many keys were deleted."""
        if self.scopes.of(workspace) is None:
            return 0
        return self._kv.strict().delete_prefix(team_prefix(workspace))
