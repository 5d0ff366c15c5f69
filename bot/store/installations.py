"""Workspaces that installed the app (OAuth mode): slack_sdk's stores on our KV, tokens sealed.

- team:{W}:installation   kept until uninstalled: the latest installation of workspace W (its
  team id, or its Enterprise Grid org id for an org-wide install), bot and refresh tokens sealed.
- installations           a hash, workspace → what `doctor` lists (no token), kept likewise.
- oauth_state:{state}     10 minutes: an "Add to Slack" started on any replica, finished on any.
  How many may be written, per client address and in all, is workspaces/installs.py's.

Bolt's OAuth flow saves through `SealedInstallationStore`, its authorize reads it on every
request and saves rotated tokens back (slack/tokens.py rotates them the same way for the
scheduler and the CLI). It fails closed (StoreError): without Redis nobody can be authorized,
and an installation written nowhere must not look saved. These are slack_sdk's own store
interfaces, which is why this store family imports Slack's library.
"""

from __future__ import annotations

import json
import logging
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from slack_bolt.error import BoltError
from slack_sdk.oauth import InstallationStore, OAuthStateStore
from slack_sdk.oauth.installation_store import Bot, Installation

from bot.core.installs import STATE_SECONDS, workspace_id
from bot.errors import StoreError
from bot.store.kv import KV
from bot.store.sealed import Sealer, Unreadable
from bot.store.workspace import scoped

log = logging.getLogger(__name__)

INDEX = "installations"
# Fields of an Installation kept as they are; the tokens are sealed, the incoming webhook's URL
# (a secret too, and never requested by this app) is not kept at all.
_PLAIN = (
    "app_id",
    "enterprise_id",
    "enterprise_name",
    "enterprise_url",
    "team_id",
    "team_name",
    "bot_id",
    "bot_user_id",
    "bot_token_expires_at",
    "user_id",
    "user_token_expires_at",
    "is_enterprise_install",
    "token_type",
    "installed_at",
)
_SEALED = ("bot_token", "bot_refresh_token", "user_token", "user_refresh_token")


def _key(workspace: str) -> str:
    return scoped(workspace, "installation")


@dataclass(frozen=True)
class Listed:
    """One installation as `doctor` shows it: no token, only whether it rotates and until when."""

    workspace: str
    team_name: str | None
    bot_user_id: str | None
    scopes: tuple[str, ...]
    installed_at: datetime
    expires_at: datetime | None


class SealedInstallationStore(InstallationStore):
    def __init__(self, kv: KV, sealer: Sealer) -> None:
        self._kv = kv.strict()
        self._sealer = sealer

    @property
    def logger(self) -> logging.Logger:
        return log

    def save(self, installation: Installation) -> None:
        workspace = workspace_id(installation.enterprise_id, installation.team_id, installation.is_enterprise_install)
        if workspace is None:
            raise BoltError("an installation without a team or an org id")
        record: dict[str, Any] = {name: getattr(installation, name) for name in _PLAIN}
        record["bot_scopes"] = list(installation.bot_scopes or ())
        record["user_scopes"] = list(installation.user_scopes or ())
        for name in _SEALED:
            value = getattr(installation, name)
            record[name] = self._sealer.seal(value) if value else None
        listed = {
            "team_name": installation.team_name,
            "bot_user_id": installation.bot_user_id,
            "scopes": record["bot_scopes"],
            "installed_at": installation.installed_at,
            "expires_at": installation.bot_token_expires_at,
        }
        try:
            self._kv.set(_key(workspace), json.dumps(record).encode(), None)
            self._kv.hset(INDEX, workspace, json.dumps(listed).encode(), None)
        except StoreError as exc:
            # Bolt shows its "storage_error" page for a BoltError, rather than a 500.
            raise BoltError("the installation could not be saved: Redis is unreachable") from exc

    def save_bot(self, bot: Bot) -> None:
        # Only called with bot_only=True, which this app never sets: a bot alone is an installation.
        self.save(Installation(user_id="", **bot.to_dict_for_copying()))

    def find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        workspace = workspace_id(enterprise_id, team_id, is_enterprise_install)
        if workspace is None:
            return None
        installation = self.find_workspace(workspace)
        if installation is not None and user_id is not None and installation.user_id != user_id:
            return None  # only the installer's is kept: nobody else granted a user token
        return installation

    def find_workspace(self, workspace: str) -> Installation | None:
        raw = self._kv.get(_key(workspace))
        if raw is None:
            return None
        record = json.loads(raw)
        try:
            opened: dict[str, Any] = {
                name: self._sealer.open(record[name]) if record.get(name) else None for name in _SEALED
            }
        except Unreadable:
            # PRDIGEST_SECRET_KEY changed since it was saved: the workspace has to install again.
            log.warning("the installation of %s cannot be opened with PRDIGEST_SECRET_KEY", workspace)
            return None
        plain: dict[str, Any] = {name: record.get(name) for name in _PLAIN}
        plain["user_id"] = plain["user_id"] or ""
        return Installation(
            **plain, **opened, bot_scopes=record.get("bot_scopes") or [], user_scopes=record.get("user_scopes") or []
        )

    def find_bot(
        self, *, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None = False
    ) -> Bot | None:
        installation = self.find_installation(
            enterprise_id=enterprise_id, team_id=team_id, is_enterprise_install=is_enterprise_install
        )
        return installation.to_bot() if installation is not None and installation.bot_token else None

    def delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        self.delete_all(enterprise_id=enterprise_id, team_id=team_id)

    def delete_installation(
        self, *, enterprise_id: str | None, team_id: str | None, user_id: str | None = None
    ) -> None:
        if user_id is None:
            self.delete_all(enterprise_id=enterprise_id, team_id=team_id)
        # A user's own token: this app asks for none, so there is nothing of theirs to delete.

    def delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        # Both ids tried: Bolt's uninstall events do not say whether the install was org-wide.
        for workspace in {team_id, enterprise_id} - {None}:
            assert workspace is not None
            self.forget(workspace)

    def forget(self, workspace: str) -> None:
        self._kv.delete(_key(workspace))
        self._kv.hdel(INDEX, workspace)

    def listed(self) -> list[Listed]:
        """Every installation, for `prdigest doctor`."""
        found = []
        for workspace, raw in sorted(self._kv.hgetall(INDEX).items()):
            data = json.loads(raw)
            expires = data.get("expires_at")
            found.append(
                Listed(
                    workspace,
                    data.get("team_name"),
                    data.get("bot_user_id"),
                    tuple(data.get("scopes") or ()),
                    datetime.fromtimestamp(float(data.get("installed_at") or 0), UTC),
                    datetime.fromtimestamp(int(expires), UTC) if expires else None,
                )
            )
        return found


class KVOAuthStateStore(OAuthStateStore):
    """OAuth's `state`, in Redis: issued by the replica that served /slack/install, consumed once
    by whichever replica Slack's redirect reaches."""

    def __init__(self, kv: KV, expiration_seconds: int = STATE_SECONDS) -> None:
        self._kv = kv.strict()
        self._ttl_ms = expiration_seconds * 1000

    @property
    def logger(self) -> logging.Logger:
        return log

    def issue(self, *args: Any, **kwargs: Any) -> str:
        state = secrets.token_urlsafe(32)
        self._kv.set_nx(f"oauth_state:{state}", b"1", self._ttl_ms)
        return state

    def consume(self, state: str) -> bool:
        # Deleted as it is read (one Redis script): a state works once, on one replica.
        return bool(state) and len(state) <= 100 and self._kv.delete_if(f"oauth_state:{state}", b"1")
