"""The Slack Web API client: the one place a WebClient is made (the builder calls it)."""

from __future__ import annotations

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler, RateLimitErrorRetryHandler

# The client's type, for code outside slack/ that hands it on (the builder) without importing slack_sdk.
SlackClient = WebClient

# 429s are waited out (Retry-After) in the posting thread, never on the ack path.
RATE_LIMIT_RETRIES = 5


def build_web_client(token: str, base_url: str, *, timeout: float = 30.0) -> WebClient:
    return WebClient(
        token=token,
        base_url=base_url,
        timeout=int(timeout),
        retry_handlers=[ConnectionErrorRetryHandler(), RateLimitErrorRetryHandler(max_retry_count=RATE_LIMIT_RETRIES)],
    )
