"""Slack's request signature (v0), computed as Slack computes it for what it sends to an app:
HMAC-SHA256 of `v0:{timestamp}:{body}` with the signing secret
(https://api.slack.com/authentication/verifying-requests-from-slack). The bot verifies it with
slack_sdk's SignatureVerifier; this side signs, for the tests, the benchmark and the scripts."""

from __future__ import annotations

import hashlib
import hmac
import time


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """`v0=<hex digest>` over the raw bytes. slack_sdk's generator decodes the body as UTF-8 first,
    so it cannot sign a body that is not UTF-8, which the tests of bad input need."""
    digest = hmac.new(secret.encode(), b"v0:" + timestamp.encode() + b":" + body, hashlib.sha256).hexdigest()
    return f"v0={digest}"


def signed_headers(secret: str, body: bytes, content_type: str, *, timestamp: int | None = None) -> dict[str, str]:
    """The headers of a request Slack signed at `timestamp` (Unix seconds; default now). Slack
    rejects, and so does the bot, a timestamp more than five minutes from the receiver's clock."""
    stamp = str(int(time.time()) if timestamp is None else timestamp)
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": stamp,
        "X-Slack-Signature": signature(secret, stamp, body),
    }
