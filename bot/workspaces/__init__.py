"""Workspaces: each installed workspace's doors (the Tenant), its installs, and the deliveries
it has handled.

The door: Tenant, the limits of GET /slack/install (InstallStarts), and what a team id looks like.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ops.doors import exported

if TYPE_CHECKING:
    from bot.workspaces.installed import is_team_id
    from bot.workspaces.installs import InstallStarts
    from bot.workspaces.tenant import Tenant

__all__ = ["InstallStarts", "Tenant", "is_team_id"]

if not TYPE_CHECKING:  # each name is imported when first asked for (bot/ops/doors.py)
    __getattr__ = exported(__name__, __file__)
