"""A workspace's bot token for calls made outside a Slack request (scheduled posts, the CLI),
rotated as Bolt's authorize rotates it, and saved back for every replica."""

from __future__ import annotations

from typing import Protocol

from slack_sdk.errors import SlackTokenRotationError
from slack_sdk.oauth.installation_store import Installation
from slack_sdk.oauth.token_rotation import TokenRotator

from bot.errors import SlackError
from bot.slack.clients import SlackClient
from bot.slack.web import slack_error

# A token is rotated when it has less than this left (Bolt's default): Slack's last 12 hours.
ROTATE_MINUTES_BEFORE = 120


class Installations(Protocol):
    """Where installations are kept (store/installations.py's SealedInstallationStore)."""

    def find_workspace(self, workspace: str) -> Installation | None: ...

    def save(self, installation: Installation) -> None: ...


class WorkspaceTokens:
    def __init__(self, store: Installations, client: SlackClient, client_id: str, client_secret: str) -> None:
        self._store = store
        self._rotator = TokenRotator(client_id=client_id, client_secret=client_secret, client=client)

    def bot_token(self, workspace: str) -> str:
        installation = self._store.find_workspace(workspace)
        if installation is None or not installation.bot_token:
            # What Slack answers for a token it no longer knows: the caller's words already fit.
            raise SlackError("not_installed")
        if installation.bot_refresh_token is None:
            return installation.bot_token
        try:
            rotated = self._rotator.perform_token_rotation(
                installation=installation, minutes_before_expiration=ROTATE_MINUTES_BEFORE
            )
        except SlackTokenRotationError as exc:
            raise slack_error(exc.api_error) from exc
        if rotated is None or not rotated.bot_token:
            return installation.bot_token
        self._store.save(rotated)
        return rotated.bot_token
