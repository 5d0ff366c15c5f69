"""What the Slack listeners are handed: the workspace's parts and the work pool, and which
workspace a request comes from (and the ids its payload names).

TeamLookup, a global Bolt middleware, finds the workspace a request comes from once, before any
other of ours runs, and keeps its deps in the request's context (`deps_of`).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, replace

from slack_bolt import BoltContext, BoltRequest, BoltResponse
from slack_bolt.middleware import Middleware

from bot.core.installs import workspace_id
from bot.workspaces import Tenant

_KEY = "prdigest_deps"


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


class TeamLookup(Middleware):
    """Puts the deps of the request's workspace in its context, for the guards and listeners."""

    def __init__(self, deps: SlackDeps) -> None:
        self._deps = deps

    def process(self, *, req: BoltRequest, resp: BoltResponse, next: Callable[[], BoltResponse]) -> BoltResponse | None:
        req.context[_KEY] = self._deps.of_team(team_of(req.context))
        return next()


def deps_of(context: BoltContext) -> SlackDeps:
    """The deps TeamLookup found for this request's workspace."""
    deps = context[_KEY]
    assert isinstance(deps, SlackDeps), "TeamLookup runs before every listener"
    return deps


def team_of(context: BoltContext) -> str | None:
    """The workspace a Slack request comes from, as installations are kept (None: not said)."""
    return workspace_id(context.enterprise_id, context.team_id, context.is_enterprise_install)


def id_of(value: object) -> str:
    """The id of a payload's `channel`, `user` or `team` object ("" when it has none)."""
    found = value.get("id") if isinstance(value, dict) else None
    return found if isinstance(found, str) else ""
