"""A GitHub App as the fake GitHub knows it: its public key, its installations, the tokens it hands
out, and each credential's rate limit (devkit/fakes/github.py serves them).

As GitHub's docs on GitHub Apps have it: a request to the App's endpoints carries a JWT signed
RS256 with the App's private key, `iss` the App's id, `iat` not in the future and `exp` in the
future but at most 10 minutes ahead, each checked against the fake's clock (`clock_offset` moves
it), refused with the messages GitHub answers; `POST /app/installations/{id}/access_tokens`
gives a `ghs_` token that lasts an hour (`token_seconds`), refused once past with "Bad
credentials"; a request with one reads what its installation was given (the account's
repositories, all or those selected, and any public one) within its own rate limit.
"""

from __future__ import annotations

import secrets
import string
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

CORE_LIMIT = 5000  # requests an hour: a token's, an installation's (GitHub's floor for one)
JWT_MAX_SECONDS = 600  # "The time must be no more than 10 minutes into the future."
TOKEN_SECONDS = 3600  # "The installation access token will expire after 1 hour."
# GitHub's answers to a JWT it refuses (401), and to an `iss` that names no App (404).
NOT_DECODED = "A JSON web token could not be decoded"
EXPIRED = (
    "'Expiration time' claim ('exp') must be a numeric value representing the future time at which "
    "the assertion expires"
)
TOO_LONG = "'Expiration time' claim ('exp') is too far in the future"
ISSUED_LATER = "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued"
NO_SUCH_APP = "Integration not found"
BAD_CREDENTIALS = "Bad credentials"
PERMISSIONS = {"contents": "read", "metadata": "read", "pull_requests": "read"}
EVENTS = ["pull_request", "release"]
_TOKEN_CHARACTERS = string.ascii_letters + string.digits


@dataclass
class RateBudget:
    """One rate limit's hour: the fake's own (a personal token, or none) or an installation's."""

    remaining: int | None = None  # None: unlimited
    limit: int = CORE_LIMIT
    used: int = 0
    reset_at: int = field(default_factory=lambda: int(time.time()) + 3600)


@dataclass
class FakeInstallation:
    id: int
    account: str
    repos: frozenset[str] | None  # lower-cased full names it was given; None: all of the account's
    budget: RateBudget = field(default_factory=RateBudget)

    def holds(self, repo: str) -> bool:
        owner = repo.partition("/")[0]
        return owner.lower() == self.account.lower() and (self.repos is None or repo.lower() in self.repos)


@dataclass
class Refusal:
    status: int
    message: str


class FakeApp:
    def __init__(self, app_id: int, public_key: RSAPublicKey | bytes, *, name: str = "prdigest") -> None:
        self.app_id = app_id
        self.name = name
        self._key = public_key if isinstance(public_key, RSAPublicKey) else _public_key(public_key)
        self.clock_offset = 0.0  # seconds the fake's clock runs ahead of this machine's
        self.token_seconds = float(TOKEN_SECONDS)
        self.installations: dict[int, FakeInstallation] = {}
        self._tokens: dict[str, tuple[int, float]] = {}  # token: its installation, when it ends
        self._next_id = 41_000_000

    def now(self) -> float:
        return time.time() + self.clock_offset

    def install(self, account: str, repos: list[str] | None = None) -> FakeInstallation:
        """Installed on `account`: on `repos` (full names) only, or on all of its repositories."""
        self._next_id += 1
        selected = frozenset(repo.lower() for repo in repos) if repos is not None else None
        installation = FakeInstallation(self._next_id, account, selected)
        self.installations[installation.id] = installation
        return installation

    def uninstall(self, installation: int) -> None:
        """Gone, with every token it was given."""
        self.installations.pop(installation, None)
        self._tokens = {token: held for token, held in self._tokens.items() if held[0] != installation}

    def revoke_tokens(self) -> None:
        """Every token given so far refused from now on (as `DELETE /installation/token` does)."""
        self._tokens.clear()

    # -- credentials ---------------------------------------------------------------------------

    def jwt_refusal(self, authorization: str) -> Refusal | None:
        """Why GitHub would refuse this `Authorization` on an App endpoint; None: it takes it."""
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or token.count(".") != 2:
            return Refusal(401, NOT_DECODED)
        try:
            claims = jwt.decode(token, options={"verify_signature": False})
        except jwt.PyJWTError:
            return Refusal(401, NOT_DECODED)
        if str(claims.get("iss")) != str(self.app_id):
            return Refusal(404, NO_SUCH_APP)
        try:  # the claims are checked below, against the fake's clock
            jwt.decode(token, self._key, algorithms=["RS256"], options={"verify_exp": False, "verify_iat": False})
        except jwt.PyJWTError:
            return Refusal(401, NOT_DECODED)
        now = self.now()
        issued, expires = claims.get("iat"), claims.get("exp")
        if not isinstance(issued, int) or issued > now:
            return Refusal(401, ISSUED_LATER)
        if not isinstance(expires, int) or expires <= now:
            return Refusal(401, EXPIRED)
        if expires > now + JWT_MAX_SECONDS:
            return Refusal(401, TOO_LONG)
        return None

    def grant(self, installation: FakeInstallation) -> dict[str, Any]:
        """A new token of `installation`, as POST …/access_tokens answers it (201)."""
        token = "ghs_" + "".join(secrets.choice(_TOKEN_CHARACTERS) for _ in range(36))
        ends = self.now() + self.token_seconds
        self._tokens[token] = (installation.id, ends)
        return {
            "token": token,
            "expires_at": datetime.fromtimestamp(int(ends), UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "permissions": PERMISSIONS,
            "repository_selection": "all" if installation.repos is None else "selected",
        }

    def token_refused(self, authorization: str) -> bool:
        """Whether `authorization` carries an installation token GitHub would not take (unknown,
        revoked or past its hour); any other credential is not this App's to judge."""
        token = _token_of(authorization)
        if token is None:
            return False
        held = self._tokens.get(token)
        return held is None or held[1] <= self.now()

    def holder(self, authorization: str) -> FakeInstallation | None:
        """The installation whose (valid) token `authorization` carries, if it carries one."""
        token = _token_of(authorization)
        held = self._tokens.get(token) if token is not None else None
        return self.installations.get(held[0]) if held is not None else None

    def installation_of(self, repo: str) -> FakeInstallation | None:
        return next((each for each in self.installations.values() if each.holds(repo)), None)

    def installation_of_account(self, account: str) -> FakeInstallation | None:
        return next((each for each in self.installations.values() if each.account.lower() == account.lower()), None)

    # -- GitHub-shaped objects -----------------------------------------------------------------

    def app_object(self, api_url: str) -> dict[str, Any]:
        """GET /app."""
        return {
            "id": self.app_id,
            "slug": self.name,
            "node_id": f"A_{self.app_id}",
            "client_id": f"Iv1.{self.app_id:016x}",
            "name": self.name,
            "description": "",
            "external_url": "https://example.invalid/",
            "html_url": f"https://github.com/apps/{self.name}",
            "owner": {"login": "prdigest-dev", "id": 1, "type": "Organization"},
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
            "permissions": PERMISSIONS,
            "events": EVENTS,
            "installations_count": len(self.installations),
        }

    def installation_object(self, installation: FakeInstallation, api_url: str) -> dict[str, Any]:
        """One installation, as GET /app/installations lists it and /repos/{o}/{r}/installation answers."""
        account = installation.account
        return {
            "id": installation.id,
            "account": {"login": account, "id": _account_id(account), "type": "Organization"},
            "repository_selection": "all" if installation.repos is None else "selected",
            "access_tokens_url": f"{api_url}/app/installations/{installation.id}/access_tokens",
            "repositories_url": f"{api_url}/installation/repositories",
            "html_url": f"https://github.com/organizations/{account}/settings/installations/{installation.id}",
            "app_id": self.app_id,
            "app_slug": self.name,
            "target_id": _account_id(account),
            "target_type": "Organization",
            "permissions": PERMISSIONS,
            "events": EVENTS,
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
            "single_file_name": None,
            "suspended_at": None,
            "suspended_by": None,
        }


def _token_of(authorization: str) -> str | None:
    # GitHub takes an installation token after `token` or `Bearer`.
    scheme, _, token = authorization.partition(" ")
    return token if scheme.lower() in ("token", "bearer") and token.startswith("ghs_") else None


def _account_id(account: str) -> int:
    return sum(account.lower().encode()) * 7919 or 1


def _public_key(pem: bytes) -> RSAPublicKey:
    key = serialization.load_pem_public_key(pem)
    if not isinstance(key, RSAPublicKey):
        raise TypeError("a GitHub App's key is an RSA key")
    return key
