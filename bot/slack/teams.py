"""Which workspace a Slack request comes from, and the ids its payload names."""

from __future__ import annotations

from slack_bolt import BoltContext

from bot.core.installs import workspace_id


def team_of(context: BoltContext) -> str | None:
    """The workspace a Slack request comes from, as installations are kept (None: not said)."""
    return workspace_id(context.enterprise_id, context.team_id, context.is_enterprise_install)


def id_of(value: object) -> str:
    """The id of a payload's `channel`, `user` or `team` object ("" when it has none)."""
    found = value.get("id") if isinstance(value, dict) else None
    return found if isinstance(found, str) else ""
