"""A workspace that uninstalls the app, or revokes its bot token, is forgotten (OAuth mode).

app_uninstalled and tokens_revoked come without a usable token (Bolt does not authorize them):
the workspace's installation and every key of its own are deleted at once, so nothing of it
outlives the install. Slack sends each to that workspace's request URL only, signed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltContext

from bot.errors import StoreError
from bot.slack.deps import team_of

log = logging.getLogger(__name__)


def register(app: App, forget: Callable[[str], int]) -> None:
    @app.event("app_uninstalled")
    def on_uninstalled(context: BoltContext) -> None:
        _forget(forget, team_of(context), "uninstalled the app")

    @app.event("tokens_revoked")
    def on_revoked(event: dict[str, Any], context: BoltContext) -> None:
        # User tokens alone: this app never asks for one, so nothing of ours was revoked.
        if (event.get("tokens") or {}).get("bot"):
            _forget(forget, team_of(context), "revoked the bot token")


def _forget(forget: Callable[[str], int], workspace: str | None, why: str) -> None:
    if workspace is None:
        log.warning("a workspace %s, but the event names none", why)
        return
    try:
        deleted = forget(workspace)
    except StoreError:
        # Slack does not retry an acknowledged event. The installation stays, though it authorizes
        # nothing (Slack has revoked its tokens); the workspace's other keys expire with their TTLs.
        log.warning("workspace %s %s, but Redis is unreachable: its data was not deleted", workspace, why)
        return
    log.warning("workspace %s %s: its installation and %d key(s) deleted", workspace, why, deleted)
