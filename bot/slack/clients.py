"""The Slack Web API client: the one place a WebClient is made (the wiring calls it), and
where its calls and 429s are counted."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from slack_sdk import WebClient
from slack_sdk.http_retry import HttpRequest, HttpResponse, RetryHandler, RetryState
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler
from slack_sdk.web import SlackResponse

from bot.ops import telemetry

# token rotation): our own calls go through SlackWeb (slack/web.py), the one adapter that does.
SlackClient = WebClient

# 429s are waited out (Retry-After) in the posting thread, never on the ack path.
RATE_LIMIT_RETRIES = 5


class _Counted(RetryHandler):
    """Counts each attempt of a Web API call (slack_calls_total) and each 429
    (slack_ratelimited_total), by method, and never asks for a retry itself.

    slack_sdk shows every attempt's outcome to its retry handlers in turn, until one retries
    (BaseClient._perform_urllib_http_request), so the first handler sees them all: retries of
    429s by RateLimitErrorRetryHandler included.
    """

    def __init__(self) -> None:
        super().__init__(max_retry_count=0)

    def can_retry(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        # The method is the URL's last segment (chat.postMessage): names from our code, a bounded set.
        method = urlsplit(request.url).path.rsplit("/", 1)[-1] or "unknown"
        telemetry.count("slack_calls_total", method=method)
        if response is not None and response.status_code == 429:
            telemetry.count("slack_ratelimited_total", method=method)
        return False


class _WorkspaceClient(WebClient):
    """A workspace's client in OAuth mode: it asks for the token before every call, so a token
    rotated by any replica (Slack's expire after 12 hours) is used at once, and a workspace that
    uninstalled the app is refused before anything is sent."""

    def __init__(self, token_of: Callable[[], str], **options: Any) -> None:
        super().__init__(token=None, **options)
        self._token_of = token_of

    def api_call(self, api_method: str, **options: Any) -> SlackResponse:
        self.token = self._token_of()
        return super().api_call(api_method, **options)


def build_web_client(token: str | Callable[[], str] | None, base_url: str, *, timeout: float = 30.0) -> WebClient:
    """A client with a fixed token, a token looked up at each call, or none (OAuth's own calls)."""
    options: dict[str, Any] = {
        "base_url": base_url,
        "timeout": int(timeout),
        "retry_handlers": [
            _Counted(),  # first: it sees every attempt, and lets the others decide
            ConnectionErrorRetryHandler(),
            RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES),
        ],
    }
    if callable(token):
        return _WorkspaceClient(token, **options)
    return WebClient(token=token, **options)
