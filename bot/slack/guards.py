"""What a signed command or click must also pass before the app acts on it.

- Its response_url is Slack's: Bolt's respond() posts wherever the payload says, so any other
  URL (another host, another port, a local service) gets nothing; the request is acknowledged
  and dropped with a warning (`ResponseUrlGuard`, a global Bolt middleware).
- It is handled once: a signed payload replayed within Slack's 5-minute signature window is
  the same trigger_id, remembered in Redis by every replica (`ReplayGuard`, after the team's
  parts are found). A replay is acknowledged and goes no further. Without Redis nobody can tell
  a replay from a first request: the request is acknowledged, the person is asked to try again,
  and nothing else is done (fail closed).
Only the try-again sentence talks to Slack, through the response_url (Slack's, by then).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any, Protocol
from urllib.parse import urlsplit

from slack_bolt import BoltRequest, BoltResponse
from slack_bolt.middleware import Middleware
from slack_bolt.request.payload_utils import is_action, is_slash_command, is_view_submission

from bot.errors import StoreError, one_line
from bot.render.slack.replies import say
from bot.slack.deps import deps_of, id_of

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
    """Who remembers which payloads were seen (workspaces/deliveries.py)."""

    def first(self, key: str) -> bool: ...


class ReplayGuard(Middleware):
    """Acts on each command, click and view submission once (`first_time`); runs after
    TeamLookup (slack/deps.py), whose workspace remembers the payloads. Events are Slack's
    retries, not replays: their listeners keep them apart (workspaces/deliveries.py)."""

    def __init__(self, work: Executor) -> None:
        self._work = work  # where the try-again sentence is posted: never on the request's thread

    def process(self, *, req: BoltRequest, resp: BoltResponse, next: Callable[[], BoltResponse]) -> BoltResponse | None:
        body = req.body
        if not (is_slash_command(body) or is_action(body) or is_view_submission(body)):
            return next()
        tenant = deps_of(req.context).tenant
        try:
            if first_time(tenant.deliveries, body):
                return next()
        except StoreError:
            channel = str(body.get("channel_id") or id_of(body.get("channel")))
            sentence = say(tenant.directory.language(channel), "try_later")
            return self._try_later(req, body, sentence)
        # Slack never sends a command or a click twice: this is a replay of a signed payload.
        log.warning("a Slack command or action seen before; not acted on again")
        return BoltResponse(status=200, body="")

    def _try_later(self, req: BoltRequest, body: dict[str, Any], sentence: str) -> BoltResponse:
        if is_view_submission(body):
            # A modal has no response_url: the sentence is shown on its first field, and it stays open.
            values = (body.get("view") or {}).get("state", {}).get("values", {})
            first = next(iter(values), None) if isinstance(values, dict) else None
            if isinstance(first, str):
                errors = {"response_action": "errors", "errors": {first: sentence}}
                return BoltResponse(status=200, body=errors)
            return BoltResponse(status=200, body="")
        respond = req.context.respond
        if respond is not None:
            self._work.submit(_tell, respond, sentence)
        return BoltResponse(status=200, body="")


def _tell(respond: Callable[..., Any], sentence: str) -> None:
    try:
        respond(text=sentence, replace_original=False, response_type="ephemeral")
    except Exception:
        log.exception("the response_url refused the try-again sentence")


def first_time(deliveries: Deliveries, body: dict[str, Any]) -> bool:
    """Whether this command or click is seen for the first time, by any replica.

    Keyed by Slack's trigger_id (one per command and per click), else the action's timestamp.
    A payload with neither was not sent by Slack: never acted on. Raises StoreError when Redis
    cannot be reached (then nobody can tell a replay from a first delivery).
    """
    key = _payload_key(body)
    if key is None:
        log.warning("ignored a Slack command or action without a trigger_id")
        return False
    return deliveries.first(key)


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
