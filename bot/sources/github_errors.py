"""PyGithub's and requests' errors as ours: the one place that reads GithubException and its kin.

Used by GitHubSource and by doctor's GitHub check. Messages name what we were doing and GitHub's
status, or the transport failure's kind; never the library's text (it quotes GitHub's JSON, and
requests' may quote a URL with its credentials).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import requests
from github import GithubException
from github.GithubException import RateLimitExceededException, UnknownObjectException

from bot.errors import NotFound, RateLimited, SourceError, SourceRefused, SourceUnreachable


@contextmanager
def github_errors(what: str, *, api_url: str, authenticated: bool) -> Iterator[None]:
    """Raise our SourceError, from the original, for what PyGithub or requests raise inside.

    `api_url` is shown in messages: pass it through redact_url first.
    """
    try:
        yield
    except (GithubException, requests.RequestException) as exc:
        raise source_error(exc, what, api_url=api_url, authenticated=authenticated) from exc


def source_error(
    exc: GithubException | requests.RequestException, what: str, *, api_url: str, authenticated: bool
) -> SourceError:
    # RateLimitExceededException first: GitHub sends a spent limit as a 403 (primary) or a 429.
    if isinstance(exc, RateLimitExceededException):
        return RateLimited(_reset_time(exc.headers), authenticated)
    if isinstance(exc, UnknownObjectException) or _unsearchable(exc):
        return NotFound("error.github_not_found", what=what)
    if isinstance(exc, GithubException):
        return SourceRefused(what, exc.status)
    # ConnectionError, ReadTimeout, SSLError, RetryError…
    return SourceUnreachable(what, api_url, type(exc).__name__)


def _unsearchable(exc: GithubException | requests.RequestException) -> bool:
    """Search's answer for a `repo:` it cannot show (GitHub: 422, "The listed users and
    repositories cannot be searched either because the resources do not exist or you do not have
    permission to view them."): the repository is not found, as GET /repos would say."""
    if not isinstance(exc, GithubException) or exc.status != 422 or not isinstance(exc.data, dict):
        return False
    errors = exc.data.get("errors")
    return isinstance(errors, list) and any(
        isinstance(error, dict) and "cannot be searched" in str(error.get("message", "")) for error in errors
    )


def _reset_time(headers: Mapping[str, Any] | None) -> datetime | None:
    value = (headers or {}).get("x-ratelimit-reset") or (headers or {}).get("X-RateLimit-Reset")
    if value and str(value).isdigit():
        return datetime.fromtimestamp(int(value), UTC)
    return None
