"""The Slack Web API client: the one place a WebClient is made (the builder calls it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler
from slack_sdk.web import SlackResponse

# The client's type, for code outside slack/ that hands it on (the builder) without importing slack_sdk.
SlackClient = WebClient

# 429s are waited out (Retry-After) in the posting thread, never on the ack path.
RATE_LIMIT_RETRIES = 5


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
            ConnectionErrorRetryHandler(),
            RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES),
        ],
    }
    if callable(token):
        return _WorkspaceClient(token, **options)
    return WebClient(token=token, **options)
