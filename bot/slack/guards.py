"""What a signed command or click must also pass before the app acts on it.

- Its response_url is Slack's: Bolt's respond() posts wherever the payload says, so any other
  URL (another host, another port, a local service) gets nothing; the request is acknowledged
  and dropped with a warning (`ResponseUrlGuard`, a global Bolt middleware).
- It is handled once: a signed payload replayed within Slack's 5-minute signature window is
  the same trigger_id, remembered in Redis by every replica (`first_time`).
Nothing here talks to Slack; `first_time` asks Redis and fails closed (StoreError).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

from slack_bolt import BoltRequest, BoltResponse
from slack_bolt.middleware import Middleware

from bot.errors import one_line

log = logging.getLogger(__name__)

Origin = tuple[str, str, int]

# Where Slack's response_urls point (slash-command and interactivity docs: https://hooks.slack.com/…),
# on https's default port only.
SLACK_HOOKS: Origin = ("https", "hooks.slack.com", 443)
_DEFAULT_PORTS = {"https": 443, "http": 80}
# Slack's trigger_ids are ~50 characters; anything far longer was not written by Slack, and
# would otherwise become a Redis key of any size.
MAX_TRIGGER_ID = 255
# How much of a refused URL a warning repeats (it is whatever the payload said).
MAX_LOGGED_URL = 120


def origin(url: str) -> Origin | None:
    """(scheme, host, port) of an absolute http(s) URL, or None for anything else.

    URLs with credentials, whitespace, control characters or backslashes are refused outright:
    parsers disagree on them, and Slack never sends them.
    """
    if any(char.isspace() or ord(char) < 0x20 or char in "\\\x7f" for char in url):
        return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:  # a port that is not a number, or out of range
        return None
    scheme, host = parts.scheme, parts.hostname
    if scheme not in _DEFAULT_PORTS or not host or parts.username is not None or parts.password is not None:
        return None
    return scheme, host, port if port is not None else _DEFAULT_PORTS[scheme]


def response_origins(slack_api_url: str) -> frozenset[Origin]:
    """Slack's hooks, plus the exact origin of the configured SLACK_API_URL (a fake in tests)."""
    api = origin(slack_api_url)
    return frozenset({SLACK_HOOKS} if api is None else {SLACK_HOOKS, api})


class ResponseUrlGuard(Middleware):
    """Drops a request whose response_url is not one of `origins`: 200, no listener runs."""

    def __init__(self, origins: frozenset[Origin]) -> None:
        self._origins = origins

    def allows(self, url: object) -> bool:
        return isinstance(url, str) and origin(url) in self._origins

    def process(self, *, req: BoltRequest, resp: BoltResponse, next: Callable[[], BoltResponse]) -> BoltResponse | None:
        url = req.context.response_url
        if url is None or self.allows(url):
            return next()
        # Slack only ever names its own hooks: this payload was made by someone holding the
        # signing secret, or a test pointed elsewhere. Not following it is the whole point;
        # doing the rest of the request (a share, a card) for them is not wanted either.
        log.warning("ignored a Slack request whose response_url is not Slack's: %s", _shown(url))
        return BoltResponse(status=200, body="")


class Deliveries(Protocol):
    """Who remembers which payloads were seen (store/threads.py's ThreadStore)."""

    def first_delivery(self, key: str) -> bool: ...


def first_time(threads: Deliveries, body: dict[str, Any]) -> bool:
    """Whether this command or click is seen for the first time, by any replica.

    Keyed by Slack's trigger_id (one per command and per click), else the action's timestamp.
    A payload with neither was not sent by Slack: never acted on. Raises StoreError when Redis
    cannot be reached (then nobody can tell a replay from a first delivery).
    """
    key = _payload_key(body)
    if key is None:
        log.warning("ignored a Slack command or action without a trigger_id")
        return False
    return threads.first_delivery(key)


def _payload_key(body: dict[str, Any]) -> str | None:
    trigger_id = body.get("trigger_id")
    if isinstance(trigger_id, str) and 0 < len(trigger_id) <= MAX_TRIGGER_ID:
        return f"trigger:{trigger_id}"
    actions = body.get("actions")
    action = actions[0] if isinstance(actions, list) and actions else None
    action_ts = action.get("action_ts") if isinstance(action, dict) else None
    user = body.get("user")
    user_id = user.get("id") if isinstance(user, dict) else None
    if isinstance(action_ts, str) and isinstance(user_id, str) and 0 < len(action_ts + user_id) <= MAX_TRIGGER_ID:
        return f"action:{user_id}:{action_ts}"
    return None


def _shown(url: object) -> str:
    text = one_line(str(url))
    return text if len(text) <= MAX_LOGGED_URL else text[: MAX_LOGGED_URL - 1] + "…"
