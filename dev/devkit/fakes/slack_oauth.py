"""The fake Slack's workspaces and its OAuth: which token belongs to which workspace, and
`oauth.v2.access` for both of its grants (a code after "Allow", a refresh token when rotating).

Answers are shaped as Slack's (https://docs.slack.dev/reference/methods/oauth.v2.access and the
token rotation guide, https://docs.slack.dev/authentication/using-token-rotation):

    {"ok": true, "app_id": "A0KRD7HC3", "authed_user": {"id": "U1234"}, "scope": "commands,chat:write",
     "token_type": "bot", "access_token": "xoxb-17653672481-19874698323-pdFZKVeTuE8sk7oOcBrzbqgy",
     "bot_user_id": "U0KRQLJ9H", "team": {"name": "Slack Softball Team", "id": "T9TK3CUKW"},
     "enterprise": null, "is_enterprise_install": false}

With token rotation on, the access token starts with `xoxe.xoxb-`, and `refresh_token`
(`xoxe-1-…`) and `expires_in` (43,200 s: 12 hours) come with it; a refresh answers the same
shape. Client credentials come as HTTP Basic auth (slack_sdk's way) or as form fields; a wrong
one is `invalid_client_id` / `bad_client_secret`, a code used twice or unknown `invalid_code`,
an unknown refresh token `invalid_refresh_token`. A token past its expiry gets `token_expired`,
one of an uninstalled workspace `token_revoked`.
"""

from __future__ import annotations

import base64
import binascii
import itertools
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

CLIENT_ID, CLIENT_SECRET = "1111111111.2222222222", "fake-client-secret"
# Slack's access tokens live 12 hours when rotation is on (token rotation guide).
TOKEN_LIFETIME = 43_200


class OAuthRefusal(Exception):
    def __init__(self, error: str, detail: str = "") -> None:
        super().__init__(error)
        self.error, self.detail = error, detail


@dataclass
class Workspace:
    team_id: str
    name: str
    bot_user_id: str
    bot_id: str
    enterprise_id: str | None = None
    installed: bool = False
    scopes: tuple[str, ...] = ()
    installer: str = "UINSTALLER"


@dataclass
class _Token:
    team_id: str
    expires_at: float | None  # monotonic; None: never (rotation off)


@dataclass
class Workspaces:
    """Every workspace the fake knows, and the tokens it has handed out."""

    app_id: str
    client_id: str = CLIENT_ID
    client_secret: str = CLIENT_SECRET
    rotation: bool = False  # token rotation on: expiring tokens and refresh tokens
    token_lifetime: int = TOKEN_LIFETIME
    known: dict[str, Workspace] = field(default_factory=dict)
    _tokens: dict[str, _Token] = field(default_factory=dict)
    _refresh: dict[str, str] = field(default_factory=dict)  # refresh token → team
    _revoked: set[str] = field(default_factory=set)
    _codes: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)  # code → (team, scopes)
    _numbers: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def add(self, team_id: str, name: str, *, bot_user_id: str, bot_id: str, token: str | None = None) -> Workspace:
        workspace = Workspace(team_id, name, bot_user_id, bot_id, installed=token is not None)
        self.known[team_id] = workspace
        if token is not None:
            self._tokens[token] = _Token(team_id, None)
        return workspace

    def code_for(self, team_id: str, scopes: tuple[str, ...]) -> str:
        """What Slack appends to the redirect URL once a person of `team_id` clicks "Allow"."""
        if team_id not in self.known:
            number = next(self._numbers)
            self.add(team_id, f"Workspace {team_id}", bot_user_id=f"UBOT{number:04d}", bot_id=f"BBOT{number:04d}")
        code = f"{next(self._numbers)}.{secrets.token_hex(8)}"
        self._codes[code] = (team_id, scopes)
        return code

    def uninstall(self, team_id: str) -> None:
        """The workspace removes the app: every token of it is revoked at once."""
        self.known[team_id].installed = False
        for token in self.tokens_of(team_id):
            del self._tokens[token]
            self._revoked.add(token)
        for refresh in [refresh for refresh, team in self._refresh.items() if team == team_id]:
            del self._refresh[refresh]

    def team_of(self, token: str) -> str:
        """The workspace a bearer token belongs to; OAuthRefusal as Slack answers otherwise."""
        held = self._tokens.get(token)
        if held is None:
            raise OAuthRefusal("token_revoked" if token in self._revoked else "invalid_auth", "unknown token")
        if held.expires_at is not None and time.monotonic() >= held.expires_at:
            raise OAuthRefusal("token_expired", "access token past its expires_in")
        return held.team_id

    def tokens_of(self, team_id: str) -> list[str]:
        return [token for token, held in self._tokens.items() if held.team_id == team_id]

    # -- oauth.v2.access -------------------------------------------------------------------

    def access(self, args: dict[str, Any], authorization: str) -> dict[str, Any]:
        client_id, client_secret = _credentials(args, authorization)
        if client_id != self.client_id:
            raise OAuthRefusal("invalid_client_id", f"client_id={client_id!r}")
        if client_secret != self.client_secret:
            raise OAuthRefusal("bad_client_secret")
        grant = args.get("grant_type") or "authorization_code"
        if grant == "refresh_token":
            team_id = self._refresh.get(str(args.get("refresh_token")))
            if team_id is None:
                raise OAuthRefusal("invalid_refresh_token")
            return self._grant(self.known[team_id], refresh_token=str(args["refresh_token"]))
        if grant != "authorization_code":
            raise OAuthRefusal("invalid_grant_type", str(grant))
        found = self._codes.pop(str(args.get("code")), None)  # a code works once
        if found is None:
            raise OAuthRefusal("invalid_code")
        workspace = self.known[found[0]]
        workspace.installed, workspace.scopes = True, found[1]
        return self._grant(workspace, refresh_token=None)

    def _grant(self, workspace: Workspace, *, refresh_token: str | None) -> dict[str, Any]:
        number = next(self._numbers)
        token = f"xoxb-{number}-{workspace.team_id}-{secrets.token_hex(12)}"
        answer: dict[str, Any] = {
            "app_id": self.app_id,
            "authed_user": {"id": workspace.installer},
            "scope": ",".join(workspace.scopes),
            "token_type": "bot",
            "bot_user_id": workspace.bot_user_id,
            "team": {"name": workspace.name, "id": workspace.team_id},
            "enterprise": None,
            "is_enterprise_install": False,
        }
        if not self.rotation:
            self._tokens[token] = _Token(workspace.team_id, None)
            return {"access_token": token, **answer}
        token = f"xoxe.{token}"
        refresh_token = refresh_token or f"xoxe-1-{workspace.team_id}-{secrets.token_hex(16)}"
        self._refresh[refresh_token] = workspace.team_id
        self._tokens[token] = _Token(workspace.team_id, time.monotonic() + self.token_lifetime)
        return {"access_token": token, "refresh_token": refresh_token, "expires_in": self.token_lifetime, **answer}


def _credentials(args: dict[str, Any], authorization: str) -> tuple[str | None, str | None]:
    """The client id and secret: HTTP Basic auth (what slack_sdk sends), else form fields."""
    if authorization.startswith("Basic "):
        try:
            pair = base64.b64decode(authorization.removeprefix("Basic ").strip(), validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            return None, None
        client_id, _, client_secret = pair.partition(":")
        return client_id, client_secret
    return args.get("client_id"), args.get("client_secret")
