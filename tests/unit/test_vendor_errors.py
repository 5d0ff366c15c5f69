"""Each vendor's errors, built as its library builds them, come out as ours: one helper per vendor.

Slack's through bot/slack/web.py, PyGithub's and requests' through bot/sources/github_errors.py,
redis-py's through bot/store/backends/redis_store.py. No sockets: the exceptions are made in place.
"""

from __future__ import annotations

import http.client
import ssl
import urllib.error
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
import redis
import requests
import urllib3
from github import GithubException
from github.GithubException import RateLimitExceededExceedsMaxWait
from github.Requester import Requester
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.web.internal_utils import _build_unexpected_body_error_message
from slack_sdk.web.slack_response import SlackResponse

from bot.errors import (
    NotFound,
    PublishError,
    RateLimited,
    SlackError,
    SourceError,
    SourceRefused,
    SourceUnreachable,
    StoreError,
)
from bot.slack.web import UNKNOWN, UNREADABLE, slack_error, slack_errors
from bot.sources.github_errors import github_errors, source_error
from bot.store.backends.redis_store import RedisKV, store_error

# -- Slack ----------------------------------------------------------------------------------------


def slack_refusal(body: dict[str, Any], *, status: int = 200, headers: dict[str, str] | None = None) -> SlackApiError:
    """The SlackApiError WebClient raises for this answer: SlackResponse.validate() builds it."""
    response = SlackResponse(
        client=None,
        http_verb="POST",
        api_url="https://slack.com/api/chat.postMessage",
        req_args={},
        data=body,
        headers=headers or {},
        status_code=status,
    )
    with pytest.raises(SlackApiError) as raised:
        response.validate()
    return raised.value


@pytest.mark.parametrize(
    "code", ["not_in_channel", "channel_not_found", "invalid_auth", "not_authed", "is_archived", "invalid_blocks"]
)
def test_a_slack_refusal_keeps_slacks_error_name(code: str) -> None:
    error = slack_error(slack_refusal({"ok": False, "error": code}))
    assert isinstance(error, PublishError)
    assert (error.code, error.kind, error.needed, error.retry_after) == (code, None, None, None)
    assert str(error) == f"Slack answered {code}"


def test_a_missing_scope_says_which_scope_is_needed() -> None:
    body = {"ok": False, "error": "missing_scope", "needed": "chat:write", "provided": "channels:read,users:read"}
    error = slack_error(slack_refusal(body))
    assert (error.code, error.needed) == ("missing_scope", "chat:write")
    assert str(error) == "Slack answered missing_scope (it needs the chat:write scope)"


def test_a_rate_limit_keeps_retry_after() -> None:
    # slack_sdk copies Retry-After into both spellings for a 429 (base_client.py).
    refusal = slack_refusal(
        {"ok": False, "error": "ratelimited"}, status=429, headers={"Retry-After": "30", "retry-after": "30"}
    )
    error = slack_error(refusal)
    assert (error.code, error.retry_after) == ("ratelimited", 30.0)


@pytest.mark.parametrize("value", ["soon", "-1", "nan", "inf"])
def test_a_retry_after_that_is_no_number_of_seconds_is_dropped(value: str) -> None:
    refusal = slack_refusal({"ok": False, "error": "ratelimited"}, status=429, headers={"Retry-After": value})
    assert slack_error(refusal).retry_after is None


def test_a_page_that_is_not_slacks_json_is_not_repeated() -> None:
    # What slack_sdk puts in `error` when a proxy answers with HTML (base_client.py).
    page = "<html><body>502 Bad Gateway: upstream at 10.0.0.7 with token xoxb-123</body></html>"
    refusal = slack_refusal({"ok": False, "error": _build_unexpected_body_error_message(page)}, status=502)
    error = slack_error(refusal)
    assert error.code == UNREADABLE
    assert "10.0.0.7" not in str(error) and "xoxb" not in str(error)


def test_an_answer_without_an_error_name_is_an_unknown_error() -> None:
    assert slack_error(slack_refusal({"ok": False}, status=500)).code == UNKNOWN


def test_a_scope_that_is_not_a_scope_name_is_not_kept() -> None:
    body = {"ok": False, "error": "missing_scope", "needed": "<b>chat:write</b>"}
    assert slack_error(slack_refusal(body)).needed is None


@pytest.mark.parametrize(
    "failure",
    [
        # What urllib, http.client and ssl raise under WebClient when no answer comes.
        urllib.error.URLError(ConnectionRefusedError(111, "Connection refused")),
        TimeoutError("The read operation timed out"),
        ConnectionResetError(104, "Connection reset by peer"),
        http.client.RemoteDisconnected("Remote end closed connection without response"),
        http.client.IncompleteRead(b"{", 10),
        http.client.InvalidURL("nonnumeric port: 'hunter2@slack.example'"),
        ssl.SSLCertVerificationError(1, "certificate verify failed"),
        # slack_sdk's own refusal to send (base_client.py, a base_url that is not http or https).
        SlackRequestError("Invalid URL detected: ftp://hunter2@slack.example/api/auth.test"),
    ],
    ids=type,
)
def test_no_answer_from_slack_is_the_transport_kind(failure: Exception) -> None:
    with pytest.raises(SlackError) as raised, slack_errors():
        raise failure
    error = raised.value
    assert (error.code, error.kind) == (SlackError.TRANSPORT, type(failure).__name__)
    assert error.__cause__ is failure
    assert str(error) == f"Slack could not be reached ({type(failure).__name__})"
    assert "hunter2" not in str(error)


def test_slack_errors_maps_a_refusal_and_keeps_the_original_as_its_cause() -> None:
    refusal = slack_refusal({"ok": False, "error": "not_in_channel"})
    with pytest.raises(SlackError) as raised, slack_errors():
        raise refusal
    assert raised.value.code == "not_in_channel"
    assert raised.value.__cause__ is refusal


def test_slack_errors_lets_other_errors_through() -> None:
    with pytest.raises(KeyError), slack_errors():
        raise KeyError("ts")
    error = SlackError("not_in_channel")
    with pytest.raises(SlackError) as raised, slack_errors():
        raise error
    assert raised.value is error


# -- GitHub ---------------------------------------------------------------------------------------

API = "https://ghe.example.com/api/v3"
RESET = 1_786_000_000  # an X-RateLimit-Reset value: seconds since the epoch


def github_answer(status: int, message: str, headers: dict[str, str] | None = None) -> GithubException:
    """The exception PyGithub raises for this answer (Requester.createException picks the class)."""
    body = {"message": message, "documentation_url": "https://docs.github.com/rest"}
    return Requester.createException(status, headers or {}, body)


def mapped(exc: GithubException | requests.RequestException, *, authenticated: bool = True) -> SourceError:
    return source_error(exc, "acme/widgets", api_url=API, authenticated=authenticated)


def test_a_missing_repository_is_not_found() -> None:
    error = mapped(github_answer(404, "Not Found"))
    assert type(error) is NotFound
    assert str(error) == "acme/widgets: not found on GitHub (or the token cannot see it)"


@pytest.mark.parametrize("authenticated", [True, False])
def test_a_spent_rate_limit_says_when_it_resets(authenticated: bool) -> None:
    exc = github_answer(
        403, "API rate limit exceeded for 192.0.2.1.", {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(RESET)}
    )
    error = mapped(exc, authenticated=authenticated)
    assert isinstance(error, RateLimited)
    assert error.reset_at == datetime.fromtimestamp(RESET, UTC)
    assert ("GITHUB_TOKEN" in str(error)) is not authenticated


def test_a_rate_limit_longer_than_we_wait_is_rate_limited() -> None:
    # What GithubRetry raises when the reset is further away than max_rate_limit_wait.
    exc = RateLimitExceededExceedsMaxWait(
        403, {"message": "API rate limit exceeded"}, {"X-RateLimit-Reset": str(RESET)}, wait=3600.0
    )
    error = mapped(exc)
    assert isinstance(error, RateLimited) and error.reset_at == datetime.fromtimestamp(RESET, UTC)


@pytest.mark.parametrize(
    ("status", "message"),
    [
        (401, "Bad credentials"),  # BadCredentialsException
        (403, "Resource not accessible by personal access token"),
    ],
)
def test_a_refused_token_says_to_check_it(status: int, message: str) -> None:
    error = mapped(github_answer(status, message))
    assert isinstance(error, SourceRefused) and error.status == status
    assert str(error) == f"acme/widgets: GitHub refused the request ({status}); check GITHUB_TOKEN"
    assert message not in str(error)


@pytest.mark.parametrize("status", [422, 500, 502])
def test_another_http_error_names_its_status(status: int) -> None:
    error = mapped(github_answer(status, "Validation Failed"))
    assert isinstance(error, SourceRefused) and error.status == status
    assert str(error) == f"acme/widgets: GitHub answered {status}"


def _no_connection() -> requests.RequestException:
    # As requests' HTTPAdapter raises it: urllib3's MaxRetryError inside, quoting the host.
    # urllib3 names the connection and the pool; neither is read by the mapping.
    reason = urllib3.exceptions.NewConnectionError(None, "Failed to establish a new connection: refused")  # type: ignore[arg-type]
    return requests.ConnectionError(urllib3.exceptions.MaxRetryError(None, "/repos/acme/widgets", reason))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "make",
    [
        _no_connection,
        lambda: requests.ConnectTimeout("connect timeout=15"),
        lambda: requests.ReadTimeout("read timeout=15"),
        lambda: requests.exceptions.SSLError("certificate verify failed"),
        lambda: requests.exceptions.RetryError("too many 502 error responses"),
        lambda: requests.exceptions.InvalidURL("Failed to parse: https://robot:hunter2@ghe.example.com:99999"),
    ],
)
def test_no_answer_from_github_names_the_kind_and_the_redacted_url(
    make: Callable[[], requests.RequestException],
) -> None:
    exc = make()
    error = mapped(exc)
    kind = type(exc).__name__
    assert isinstance(error, SourceUnreachable) and error.kind == kind
    assert str(error) == f"acme/widgets: cannot reach GitHub at {API} ({kind})"
    assert "hunter2" not in str(error)


def test_github_errors_raises_ours_from_the_original() -> None:
    exc = github_answer(404, "Not Found")
    with pytest.raises(NotFound) as raised, github_errors("acme/widgets#7", api_url=API, authenticated=True):
        raise exc
    assert raised.value.__cause__ is exc
    assert str(raised.value).startswith("acme/widgets#7: ")


def test_github_errors_lets_other_errors_through() -> None:
    with pytest.raises(AttributeError), github_errors("acme/widgets", api_url=API, authenticated=True):
        raise AttributeError("head")


# -- Redis ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "exc",
    [
        # As redis-py's connection raises them.
        redis.ConnectionError("Error 111 connecting to cache.internal:6379. Connection refused."),
        redis.TimeoutError("Timeout reading from cache.internal:6379"),
        redis.exceptions.AuthenticationError("invalid username-password pair or user is disabled."),
        redis.exceptions.BusyLoadingError("Redis is loading the dataset in memory"),
        redis.ResponseError("OOM command not allowed when used memory > 'maxmemory'."),
        redis.exceptions.ReadOnlyError("You can't write against a read only replica."),
    ],
    ids=type,
)
def test_a_redis_failure_is_a_store_error_naming_only_its_kind(exc: redis.RedisError) -> None:
    error = store_error(exc)
    assert isinstance(error, StoreError)
    assert str(error) == f"Redis cannot be reached ({type(exc).__name__})"
    assert "cache.internal" not in str(error)


class _FailingConnection:
    """Just enough of RedisConnection for RedisKV: reaching Redis raises `failure`."""

    clustered = None

    def __init__(self, failure: redis.RedisError) -> None:
        self.failure = failure

    def client(self) -> Any:
        raise self.failure

    def script(self, source: str) -> Any:
        raise self.failure


def test_the_strict_view_raises_store_error_and_the_open_one_answers_a_miss() -> None:
    failure = redis.ConnectionError("Error 111 connecting to cache.internal:6379.")
    kv = RedisKV(_FailingConnection(failure))  # type: ignore[arg-type]
    assert kv.get("card:x") is None
    with pytest.raises(StoreError, match=r"^Redis cannot be reached \(ConnectionError\)$") as raised:
        kv.strict().get("card:x")
    assert raised.value.__cause__ is failure


def test_a_500_past_every_retry_is_githubs_own_answer() -> None:
    # urllib3 gave up after GitHub answered 500 each time: GitHub answered, with an error of its own.
    error = mapped(requests.exceptions.RetryError("too many 500 error responses"))
    assert isinstance(error, SourceRefused) and error.status == 500
