"""A GitHub App's own client and its installations' tokens, through PyGithub.

- `build_github_app`: the App's client (PyGithub's GithubIntegration), each request signed with a
  JWT from the App's private key (PyGithub's AppAuth: RS256, issued 60 s back, 5 minutes long;
  GitHub refuses one that ends more than 10 minutes ahead of its clock).
- `InstallationToken`: what authorises one installation's client: a token from
  `POST /app/installations/{id}/access_tokens`, which lasts an hour, kept until TOKEN_MARGIN
  before it ends. PyGithub's AppInstallationAuth does the same with 20 s to spare but without a
  lock, so four workers starting together would each ask for a token; here one asks, the others
  wait for it.
- `app_errors`: GitHub's answers to a JWT it refuses, as AppRefused; every other failure as any
  request's (sources/github_errors.py).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from http import HTTPStatus

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from github import Auth, GithubException, GithubIntegration, GithubRetry

from bot.errors import AppRefused, ConfigError
from bot.sources.github_errors import github_errors

# Ask for a new installation token this long before the old one ends: a digest's pages never go
# out with a token about to die, and a host clock a few minutes behind GitHub's is no matter.
TOKEN_MARGIN = timedelta(minutes=5)
# The messages GitHub answers a JWT it refuses with (401), and an `iss` that names no App (404):
# GitHub's docs on generating a JWT for a GitHub App, and the answers apps report meeting.
_NOT_THE_KEY = "A JSON web token could not be decoded"
_CLOCK = ("'Expiration time' claim", "'Issued at' claim")
_NO_SUCH_APP = "Integration not found"


def check_key(private_key: str, key_from: str) -> None:
    """ConfigError naming `key_from` (the variable it came from) unless `private_key` is an RSA
    private key: GitHub signs with nothing else, and PyJWT would fail on it inside a request."""
    try:
        key = serialization.load_pem_private_key(private_key.encode("ascii"), password=None)
    except (ValueError, TypeError, UnicodeEncodeError, UnsupportedAlgorithm):
        key = None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ConfigError(
            f"{key_from} is not an RSA private key GitHub could take (its PEM text does not read as one); "
            "generate a new private key on the App's settings page"
        )


def build_github_app(
    api_url: str, app_id: int, private_key: str, *, retry: GithubRetry, timeout: float = 15.0
) -> GithubIntegration:
    """The App's client: what it asks (its installations, their tokens) is signed with its key."""
    return GithubIntegration(
        base_url=api_url,
        auth=Auth.AppAuth(app_id, private_key),
        timeout=int(timeout),
        retry=retry,
        lazy=True,
        # PyGithub spaces writes a second apart by default; a token request is the only write.
        seconds_between_requests=None,
        seconds_between_writes=None,
    )


@contextmanager
def app_errors(what: str, *, app_id: int, api_url: str) -> Iterator[None]:
    """Raise AppRefused when GitHub refuses the App's JWT; any other failure as github_errors does.
    `api_url` is shown in messages: pass it through redact_url first."""
    with github_errors(what, api_url=api_url, authenticated=True):
        try:
            yield
        except GithubException as exc:
            reason = _refusal(exc)
            if reason is None:
                raise
            raise AppRefused(reason, app_id) from exc


def _refusal(exc: GithubException) -> str | None:
    message = exc.data.get("message") if isinstance(exc.data, dict) else None
    if not isinstance(message, str):
        return None
    if exc.status == HTTPStatus.UNAUTHORIZED and message.startswith(_NOT_THE_KEY):
        return "key"
    if exc.status == HTTPStatus.UNAUTHORIZED and message.startswith(_CLOCK):
        return "clock"
    if exc.status == HTTPStatus.NOT_FOUND and message == _NO_SUCH_APP:
        return "app"
    return None


class InstallationToken(Auth.Auth):
    """The `Authorization` of one installation's client (PyGithub reads `token` per request)."""

    def __init__(
        self,
        app: GithubIntegration,
        installation: int,
        *,
        api_url: str,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._app = app
        self._app_id = int(app.auth.app_id)
        self.installation = installation
        self._api_url = api_url
        # GitHub's expiry is a moment, not a day's date: the machine's clock, not a test's `now`.
        self._clock = clock
        self._lock = threading.Lock()
        self._token: str | None = None
        self._expires_at = datetime.min.replace(tzinfo=UTC)

    @property
    def token_type(self) -> str:
        return "token"

    @property
    def token(self) -> str:
        with self._lock:
            if self._token is None or self._clock() >= self._expires_at - TOKEN_MARGIN:
                what = f"the GitHub App's installation {self.installation}"
                with app_errors(what, app_id=self._app_id, api_url=self._api_url):
                    granted = self._app.get_access_token(self.installation)
                expires_at = granted.expires_at
                self._token = granted.token
                self._expires_at = expires_at if expires_at.tzinfo else expires_at.replace(tzinfo=UTC)
            return self._token

    def forget(self) -> None:
        """Drop the token GitHub no longer takes (revoked, or its clock is past ours): the next
        request asks for a new one."""
        with self._lock:
            self._token = None

    @property
    def _masked_token(self) -> str:
        return "token (installation token removed)"
