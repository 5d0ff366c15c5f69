"""PyGithub's and requests' errors as ours: the one place that reads GithubException and its kin.

Used by GitHubSource and by doctor's GitHub check. Messages name what we were doing and GitHub's
status, or the transport failure's kind; never the library's text (it quotes GitHub's JSON, and
requests' may quote a URL with its credentials). A host that answers with web pages instead of
the API's JSON is told as such (SourceNotAPI), whatever PyGithub tripped over.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime
from http import HTTPStatus
from typing import Any

import requests
from github import GithubException
from github.GithubException import RateLimitExceededException, UnknownObjectException
from github.GithubObject import GithubObject

from bot.core.strings.patterns import lazy
from bot.errors import NotFound, RateLimited, SourceError, SourceNotAPI, SourceRefused, SourceUnreachable
from bot.ops.logs import adopt

# PyGithub's import (above) gave its logger a stderr handler and the level INFO: take it back.
adopt("github")

# What PyGithub raises, or makes our reading of its objects raise, when a 2xx or 3xx answer was
# no JSON: it keeps such a body as {"data": "<html>…"} (Requester.__structuredFromJson), and a
# list page then yields the string "data" as an item (TypeError: string indices must be
# integers), an object comes out with every attribute unset (None.split, `for … in None`).
# They are told as "not GitHub's API" only when that body is found among the failing frames'
# values: any other TypeError is a bug, and goes through as one.
_READ_A_PAGE = (TypeError, AttributeError, KeyError)
# urllib3's ResponseError.SPECIFIC_ERROR, as a RetryError's text carries it.
_TOO_MANY = lazy(r"too many (\d{3}) error responses")


@contextmanager
def github_errors(what: str, *, api_url: str, authenticated: bool) -> Iterator[None]:
    """Raise our SourceError, from the original, for what PyGithub or requests raise inside.

    `api_url` is shown in messages: pass it through redact_url first.
    """
    try:
        yield
    except (GithubException, requests.RequestException) as exc:
        raise source_error(exc, what, api_url=api_url, authenticated=authenticated) from exc
    except _READ_A_PAGE as exc:
        if not _read_from_a_page(exc):
            raise
        raise SourceNotAPI.at(api_url) from exc


def source_error(
    exc: GithubException | requests.RequestException, what: str, *, api_url: str, authenticated: bool
) -> SourceError:
    # RateLimitExceededException first: GitHub sends a spent limit as a 403 (primary) or a 429.
    if isinstance(exc, RateLimitExceededException):
        return RateLimited(_reset_time(exc.headers), authenticated)
    if isinstance(exc, UnknownObjectException) or _unsearchable(exc):
        return NotFound("error.github_not_found", what=what)
    if isinstance(exc, GithubException):
        # A 4xx web page (github.com's own 404 page for /repos/…); a 5xx page is a proxy's
        # outage page in front of a real API, told as GitHub's status.
        if exc.status < HTTPStatus.INTERNAL_SERVER_ERROR and _is_web_page(exc):
            return SourceNotAPI.at(api_url)
        return SourceRefused(what, exc.status)
    status = _retried_status(exc)
    if status is not None:  # GitHub answered, with the same 5xx past every retry
        return SourceRefused(what, status)
    # ConnectionError, ReadTimeout, SSLError…
    return SourceUnreachable(what, api_url, type(exc).__name__)


def _retried_status(exc: requests.RequestException) -> int | None:
    """The status GitHub itself kept answering when urllib3's retries gave up on it (requests'
    RetryError wraps urllib3's "too many 500 error responses"); None for any other failure. A
    502, 503 or 504 is a gateway's word that GitHub did not answer: that is no answer."""
    if not isinstance(exc, requests.exceptions.RetryError):
        return None
    found = _TOO_MANY.search(str(exc))
    status = int(found.group(1)) if found else None
    return status if status is not None and status < HTTPStatus.BAD_GATEWAY else None


def _read_from_a_page(exc: BaseException) -> bool:
    """Whether a frame `exc` went through held what PyGithub makes of a body that was no JSON:
    the {"data": text} itself (a list page), or an object built from it."""
    trace = exc.__traceback__
    while trace is not None:
        for value in trace.tb_frame.f_locals.values():
            raw = value._rawData if isinstance(value, GithubObject) else value
            if _is_wrapped_text(raw):
                return True
        trace = trace.tb_next
    return False


def _is_wrapped_text(value: object) -> bool:
    # PyGithub adds the request's "url" to a GET's answer (Requester.__postProcess).
    return isinstance(value, dict) and isinstance(value.get("data"), str) and set(value) <= {"data", "url"}


def _is_web_page(exc: GithubException) -> bool:
    """An error answer whose body was no JSON (PyGithub keeps it as {"data": text})."""
    content_type = str((exc.headers or {}).get("content-type", ""))
    return _is_wrapped_text(exc.data) or content_type.startswith("text/html")


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
