"""What the Slack listeners are handed by `register`: the workspace's parts and the work pool."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, replace

from bot.workspaces.tenant import Tenant


@dataclass(frozen=True)
class SlackDeps:
    tenant: Tenant  # the workspace's parts (workspaces/tenant.py): the home one's until `of_team`
    tenants: Callable[[str | None], Tenant]
    # Slow work (GitHub, the model, posting) runs here, never on Bolt's listener threads,
    # which must stay free to acknowledge the next request within Slack's 3 seconds.
    work: Executor

    def of_team(self, team: str | None) -> SlackDeps:
        """These deps for the workspace a request comes from (`workspaces.team_of(context)`)."""
        return replace(self, tenant=self.tenants(team))
