"""Workspaces: each installed workspace's doors (the Tenant), its installs, and the deliveries
it has handled.

The door: Tenant, the limits of GET /slack/install (InstallStarts), and what a team id looks like.
"""

from __future__ import annotations

from bot.workspaces.installed import is_team_id
from bot.workspaces.installs import InstallStarts
from bot.workspaces.tenant import Tenant

__all__ = ["InstallStarts", "Tenant", "is_team_id"]
