"""A fake Slack Web API (`/api/<method>`) and `response_url` endpoint for the real slack_sdk and Bolt.

Point clients at it with `WebClient(token="xoxb-test", base_url=fake.api_url)`. It stores what the
bot posts (messages, threads, ephemerals, Home views, response_url payloads), refuses what Slack
would refuse (Block Kit limits, unknown channels, per-channel pacing) and records each refusal in
`.rejections` and each "accepted but wrong" call in `.warnings`, so a test can assert both are empty.
It does not send events: Bolt is driven separately with signed requests.

Several workspaces: `bot_token` is T0TEST's; `.workspaces` (slack_oauth.py) hands out others'
through `oauth.v2.access`, and every call is answered as the workspace of its token. `.tokens(m)`
says which token each call of a method used.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import copy
import itertools
import json
import math
import threading
import time
from collections import defaultdict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import parse_qs
from zoneinfo import ZoneInfo

from devkit.fakes import slack_agent
from devkit.fakes.server import LoopbackServer, RecordedRequest, Response
from devkit.fakes.slack_oauth import OAuthRefusal, Workspaces
from devkit.fakes.slack_streams import StreamingMethods

API_PREFIX = "/api/"
RESPONSE_PREFIX = "/response/"
PERMALINK_BASE = "https://fake.slack"
TEAM_ID, TEAM_NAME = "T0TEST", "Fake Team"
BOT_NAME, BOT_USER_ID, BOT_ID, APP_ID = "prdigest", "UBOT", "BBOT", "AFAKE"
HUMAN_USER_ID = "UHUMAN"
# users.info always says a person's zone; Slack's own example answer is Los Angeles.
DEFAULT_TZ = "America/Los_Angeles"

# Block Kit limits: https://docs.slack.dev/reference/block-kit/blocks and the `*_max_length`
# attributes in slack_sdk/models/blocks/{blocks,block_elements}.py (the SDK checks them only for
# model objects, never for dict blocks, so the fake is where a dict that breaks them gets caught).
MAX_MESSAGE_BLOCKS = 50
MAX_VIEW_BLOCKS = 100  # modals and the Home tab
MAX_SECTION_TEXT = 3000
MAX_SECTION_FIELDS = 10
MAX_FIELD_TEXT = 2000
MAX_HEADER_TEXT = 150  # and plain_text only
MAX_CONTEXT_ELEMENTS = 10
MAX_CONTEXT_ACTIONS_ELEMENTS = 5
MAX_ACTIONS_ELEMENTS = 25
MAX_BUTTON_TEXT = 75
MAX_BUTTON_VALUE = 2000
MAX_BUTTON_URL = 3000
MAX_ACTION_ID = 255
MAX_BLOCK_ID = 255
MAX_INPUT_LABEL = 2000
# Undocumented aggregate: Slack answers msg_blocks_too_long from ~12-13k characters of text in one
# message's blocks (bolt-js#2509); 12,000 is the documented cap for markdown blocks.
MAX_BLOCKS_TOTAL_CHARS = 12_000
MAX_UPDATE_TEXT = 4000  # chat.update answers msg_too_long above this (chat.postMessage truncates at 40k)
# chat.update's arguments (https://docs.slack.dev/reference/methods/chat.update): no unfurl_links
# nor unfurl_media, which chat.postMessage takes. Slack ignores any other, so the fake warns. And
# team_id, which slack_sdk adds to every call of a client made for one team (Bolt's per request):
# "even if your token is a single-workspace installation, the extra parameter will be accepted"
# (https://api.slack.com/enterprise/apps/changes-apis).
CHAT_UPDATE_ARGUMENTS = frozenset(
    {
        "token", "channel", "ts", "as_user", "attachments", "unfurled_attachments", "blocks", "markdown_text",
        "metadata", "link_names", "parse", "text", "reply_broadcast", "file_ids", "team_id",
    }
)  # fmt: skip
MAX_PRIVATE_METADATA = 3000  # Home views: https://docs.slack.dev/reference/views/home-tab-views
RESPONSE_URL_USES = 5  # "up to 5 times within 30 minutes" (slash commands / interactivity docs)
# conversations.replies for commercially distributed non-Marketplace apps: limit default and max 15.
REPLIES_LIMIT = 15

# The block types slack_sdk 3.48 models (slack_sdk/models/blocks/blocks.py); anything else is a typo.
BLOCK_TYPES = frozenset(
    {
        "section", "divider", "image", "actions", "context", "context_actions", "input", "file", "call",
        "header", "markdown", "video", "rich_text", "table", "task_card", "plan", "alert", "card",
        "container", "carousel", "auth_provider",
    }
)  # fmt: skip
TEXT_TYPES = ("plain_text", "mrkdwn")
JSON_ARGS = ("blocks", "metadata", "view", "attachments")  # form bodies carry these as JSON strings
FIRST_TS_MICROS = 1_700_000_000_000_100  # "1700000000.000100"
TS_STEP_MICROS = 100


@dataclass(frozen=True)
class Problem:
    """A call Slack refused (in `.rejections`) or accepted although it is wrong (in `.warnings`)."""

    method: str
    error: str
    detail: str = ""


@dataclass(frozen=True)
class _Fault:
    status: int
    error: str
    headers: dict[str, str] = field(default_factory=dict)


class _Refused(Exception):
    """Raised inside a method handler; becomes `{"ok": false, "error": ...}` in one place (_refuse)."""

    def __init__(
        self, error: str, detail: str = "", *, status: int = 200, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(error)
        self.error, self.detail, self.status, self.headers = error, detail, status, headers or {}
        self.injected = False  # fail_next / rate_limit_next: the test asked for it, not a rejection


class FakeSlack(StreamingMethods, LoopbackServer):
    def __init__(self, *, latency: float = 0.0, port: int = 0, bot_token: str = "xoxb-test") -> None:
        super().__init__(latency=latency, port=port)
        self._bot_token = bot_token
        self.socket_url = ""  # what apps.connections.open hands out (a FakeSocketMode's url)
        self.app_token = "xapp-test"
        self._state_lock = threading.RLock()
        self._handlers: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
            "auth.test": self._auth_test,
            "chat.postMessage": self._post_message,
            "chat.update": self._update,
            "chat.postEphemeral": self._post_ephemeral,
            "chat.delete": self._delete,
            "chat.getPermalink": self._permalink,
            "conversations.replies": self._replies,
            "conversations.history": self._history,
            "conversations.info": self._info,
            "conversations.members": self._members,
            "users.info": self._user_info,
            "conversations.open": self._open,
            "assistant.threads.setStatus": self._set_status,
            "views.publish": self._publish_view,
            "views.open": self._open_view,
            "views.update": self._update_view,
            "reactions.add": lambda args: {},
            "assistant.threads.setSuggestedPrompts": self._set_prompts,
            "chat.unfurl": self._unfurl,
            "apps.connections.open": lambda args: {"url": self.socket_url},
            **self.stream_handlers(),  # chat.startStream / appendStream / stopStream (slack_streams.py)
        }
        self.reset()

    def reset(self) -> None:
        """Forget all state and settings (requests included), so one server can serve many tests."""
        with self._state_lock:
            self.bot_token = self._bot_token
            self.channels: set[str] = set()  # when non-empty, any other channel is channel_not_found
            self.not_in_channel: set[str] = set()  # channels the bot is not a member of
            self.channel_info: dict[str, dict[str, Any]] = {}  # channel → overrides for conversations.info
            self.members: dict[str, list[str]] = {}  # channel → user ids for conversations.members
            self.locales: dict[str, str] = {}  # user → Slack locale for users.info (default "en-US")
            self.zones: dict[str, str] = {}  # user → IANA time zone for users.info's tz (default DEFAULT_TZ)
            self.ims: dict[str, str] = {}  # user → the id of the bot's DM with them (conversations.open)
            self.enforce_pacing = False  # chat.postMessage ≈ 1 message/s/channel (docs.slack.dev rate limits)
            self.min_interval = 1.0
            self.replies_limit = REPLIES_LIMIT
            self.method_latency: dict[str, float] = {}
            self.rejections: list[Problem] = []
            self.warnings: list[Problem] = []
            self.ephemeral: list[dict[str, Any]] = []
            self.statuses: list[dict[str, Any]] = []  # assistant.threads.setStatus calls
            self._user_stops = False  # press_stop(): streams answer stopped_by_user
            self.home_views: dict[str, dict[str, Any]] = {}
            self.prompts: list[dict[str, Any]] = []  # assistant.threads.setSuggestedPrompts calls accepted
            # chat.unfurl: (channel, ts) or (unfurl_id, source) → the URL → unfurl map last set there
            self.unfurls: dict[tuple[str, str], dict[str, Any]] = {}
            self.modals: dict[str, dict[str, Any]] = {}  # view id → the modal opened (or updated)
            self._used_triggers: set[str] = set()
            self.responses: dict[str, list[dict[str, Any]]] = {}  # response_url id → payloads
            self._calls: list[tuple[str, dict[str, Any], str | None]] = []
            self.workspaces = Workspaces(app_id=APP_ID)
            self.workspaces.add(TEAM_ID, TEAM_NAME, bot_user_id=BOT_USER_ID, bot_id=BOT_ID)
            self._team = TEAM_ID  # the workspace of the call being answered
            self._messages: list[dict[str, Any]] = []  # every stored message, in posting order
            self._faults: defaultdict[str, deque[_Fault | None]] = defaultdict(deque)
            self._last_post: dict[str, float] = {}  # channel → monotonic time of the last accepted post
            self._response_uses: dict[str, int] = {}
            self._ts_counter = itertools.count()
            self._ids = itertools.count(1)
            self.errors.clear()
        self.reset_requests()

    @property
    def api_url(self) -> str:
        return self.url + API_PREFIX

    # -- setup and faults ------------------------------------------------------------------

    def new_response_url(self) -> str:
        """A fresh response_url, as Slack puts in slash command and interaction payloads."""
        with self._state_lock:
            hook_id = f"R{next(self._ids):04d}"
            self._response_uses[hook_id] = 0
            self.responses[hook_id] = []
        return f"{self.url}{RESPONSE_PREFIX}{hook_id}"

    def add_message(self, channel: str, text: str, *, user: str = HUMAN_USER_ID, thread_ts: str | None = None) -> str:
        """Seed a message from a person (no API call, no checks); returns its ts."""
        with self._state_lock:
            message = self._store(channel, {"text": text, "thread_ts": thread_ts}, user=user, bot_id=None)
        return str(message["ts"])

    def fail_next(
        self, method: str, error: str = "internal_error", times: int = 1, status: int = 200, *, after: int = 0
    ) -> None:
        """After `after` more calls of `method` go through, the next `times` answer
        `{"ok": false, "error": error}` with HTTP `status`."""
        self._queue(method, _Fault(status, error), times, after)

    def clear_faults(self) -> None:
        """Forget faults queued with fail_next / rate_limit_next that have not fired yet."""
        with self._state_lock:
            self._faults.clear()

    def rate_limit_next(self, method: str, times: int = 1, retry_after: int = 1, *, after: int = 0) -> None:
        self._queue(method, _Fault(429, "ratelimited", {"Retry-After": str(retry_after)}), times, after)

    def _queue(self, method: str, fault: _Fault, times: int, after: int) -> None:
        with self._state_lock:
            queue = self._faults[method]
            queue.extend(None for _ in range(after))  # None: this call goes through
            queue.extend(fault for _ in range(times))

    # -- inspection ------------------------------------------------------------------------

    def calls(self, method: str) -> list[dict[str, Any]]:
        """Parsed arguments of every call of `method` (accepted or not), oldest first; no token."""
        with self._state_lock:
            return [copy.deepcopy(args) for name, args, _ in self._calls if name == method]

    def all_calls(self) -> list[tuple[str, dict[str, Any]]]:
        """Every Web API call received (method, parsed arguments), oldest first; no token."""
        with self._state_lock:
            return [(name, copy.deepcopy(args)) for name, args, _ in self._calls]

    def tokens(self, method: str | None = None) -> list[str | None]:
        """The token each call of `method` (of any method: None) came with, oldest first."""
        with self._state_lock:
            return [token for name, _, token in self._calls if method is None or name == method]

    def install_code(self, team_id: str, *, scopes: tuple[str, ...] = ("chat:write", "commands")) -> str:
        """The `code` Slack puts in the redirect after someone of `team_id` clicks "Allow"."""
        with self._state_lock:
            return self.workspaces.code_for(team_id, scopes)

    def uninstall(self, team_id: str) -> None:
        """`team_id` removes the app: its tokens are revoked (Slack then sends app_uninstalled)."""
        with self._state_lock:
            self.workspaces.uninstall(team_id)

    def dms(self, user: str) -> list[dict[str, Any]]:
        """What the bot posted in its DM with `user` (none before conversations.open)."""
        dm = self.ims.get(user)
        return [] if dm is None else self.messages(dm)

    def messages(self, channel: str) -> list[dict[str, Any]]:
        """Top-level messages in `channel`, oldest first (broadcast replies stay in thread())."""
        return self._select(lambda m: m["channel"] == channel and m["thread_ts"] is None)

    def thread(self, channel: str, thread_ts: str) -> list[dict[str, Any]]:
        """Replies to `thread_ts`, oldest first, without the parent."""
        return self._select(lambda m: m["channel"] == channel and m["thread_ts"] == thread_ts)

    def all_messages(self) -> list[dict[str, Any]]:
        return self._select(lambda m: True)

    def message(self, channel: str, ts: str) -> dict[str, Any]:
        found = self._select(lambda m: m["channel"] == channel and m["ts"] == ts)
        if not found:
            raise KeyError((channel, ts))
        return found[0]

    def _select(self, keep: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        with self._state_lock:
            return [copy.deepcopy(m) for m in self._messages if keep(m)]

    # -- serving ---------------------------------------------------------------------------

    def handle(self, request: RecordedRequest) -> Response:
        if request.method == "POST" and request.path.startswith(RESPONSE_PREFIX):
            return self._response_url(request.path.removeprefix(RESPONSE_PREFIX), request)
        if not request.path.startswith(API_PREFIX):
            return Response(404, {"content-type": "text/plain"}, b"Not Found")
        method = request.path.removeprefix(API_PREFIX)
        try:
            args, token = _parse_args(request)
        except ValueError as exc:
            return self._refuse(method, _Refused("invalid_json", str(exc)))
        with self._state_lock:
            self._calls.append((method, copy.deepcopy(args), token))
        self.sleep(self.method_latency.get(method, 0.0))  # outside the lock: other calls proceed
        try:
            with self._state_lock:
                if method == "oauth.v2.access":  # client credentials, not a token
                    payload = self._oauth_access(args, request.headers.get("authorization", ""))
                else:
                    payload = self._call(method, args, token)
        except _Refused as refused:
            return self._refuse(method, refused)
        return Response.json({"ok": True, **payload})

    def _call(self, method: str, args: dict[str, Any], token: str | None) -> dict[str, Any]:
        if not token:
            raise _Refused("not_authed", "no token in the Authorization header or the body")
        # Socket Mode's apps.connections.open takes the app-level token, every other method a bot's.
        if method == "apps.connections.open":
            if token != self.app_token:
                raise _Refused("invalid_auth", "token does not match the fake's token for this method")
        elif token == self.bot_token:
            self._team = TEAM_ID
        else:
            try:
                self._team = self.workspaces.team_of(token)
            except OAuthRefusal as refusal:
                raise _Refused(refusal.error, refusal.detail) from None
        self._fault(method)
        handler = self._handlers.get(method)
        if handler is None:
            raise _Refused("unknown_method", method)
        return handler(args)

    def _oauth_access(self, args: dict[str, Any], authorization: str) -> dict[str, Any]:
        self._fault("oauth.v2.access")
        try:
            return self.workspaces.access(args, authorization)
        except OAuthRefusal as refusal:
            raise _Refused(refusal.error, refusal.detail) from None

    def _fault(self, method: str) -> None:
        faults = self._faults.get(method)
        fault = faults.popleft() if faults else None
        if fault is not None:
            refused = _Refused(fault.error, "injected", status=fault.status, headers=fault.headers)
            refused.injected = True
            raise refused

    def _refuse(self, method: str, refused: _Refused) -> Response:
        if not refused.injected:
            with self._state_lock:
                self.rejections.append(Problem(method, refused.error, refused.detail))
        body: dict[str, Any] = {"ok": False, "error": refused.error}
        if refused.detail and not refused.injected:
            # Slack explains invalid_blocks this way; slack_sdk shows it in SlackApiError's message.
            body["response_metadata"] = {"messages": [f"[ERROR] {refused.detail}"]}
        return Response.json(body, refused.status, refused.headers)

    def _refused(self, error: str, detail: str = "") -> Exception:
        return _Refused(error, detail)

    def _lock_of_state(self) -> Any:
        return self._state_lock

    def _blocks_problem(self, blocks: Any) -> tuple[str, str] | None:
        return check_blocks(blocks, max_blocks=MAX_MESSAGE_BLOCKS, max_total_chars=MAX_BLOCKS_TOTAL_CHARS)

    def _warn(self, method: str, error: str, detail: str) -> None:
        self.warnings.append(Problem(method, error, detail))

    # -- methods (called with the state lock held) -----------------------------------------

    def _auth_test(self, args: dict[str, Any]) -> dict[str, Any]:
        # Bolt reads user_id and bot_id to ignore the bot's own events (IgnoringSelfEvents).
        workspace = self.workspaces.known[self._team]
        return {
            "url": f"{PERMALINK_BASE}/",
            "team": workspace.name,
            "user": BOT_NAME,
            "team_id": workspace.team_id,
            "user_id": workspace.bot_user_id,
            "bot_id": workspace.bot_id,
            "is_enterprise_install": False,
        }

    def _post_message(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(args, "channel", member=True)
        self._check_pacing(channel)
        self._check_message("chat.postMessage", args)
        thread_ts = self._thread_root(channel, args.get("thread_ts"))
        bot = self.workspaces.known[self._team]  # the bot of the token's workspace
        message = self._store(channel, {**args, "thread_ts": thread_ts}, user=bot.bot_user_id, bot_id=bot.bot_id)
        self._last_post[channel] = message["posted_at"]
        return {"channel": channel, "ts": message["ts"], "message": self._wire(message)}

    def _update(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(args, "channel")
        message = self._find(channel, args.get("ts"))
        text = args.get("text")
        if isinstance(text, str) and len(text) > MAX_UPDATE_TEXT:
            raise _Refused("msg_too_long", f"text is {len(text)} characters (max {MAX_UPDATE_TEXT})")
        self.check_updatable(message)
        self._check_message("chat.update", args)
        unknown = sorted(set(args) - CHAT_UPDATE_ARGUMENTS)
        if unknown:
            self._warn("chat.update", "unknown_argument", ", ".join(unknown))
        for key in ("text", "blocks", "metadata"):  # what is not sent is kept, as Slack does
            if key in args:
                message[key] = args[key]
        return {"channel": channel, "ts": message["ts"], "text": message["text"], "message": self._wire(message)}

    def _post_ephemeral(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(args, "channel", member=True)
        if not args.get("user"):
            raise _Refused("user_not_found")
        self._check_message("chat.postEphemeral", args)
        ts = self._next_ts()
        self.ephemeral.append(
            {
                "channel": channel,
                "user": args["user"],
                "text": args.get("text"),
                "blocks": args.get("blocks"),
                "thread_ts": args.get("thread_ts"),
                "message_ts": ts,
                "posted_at": time.monotonic(),
            }
        )
        return {"message_ts": ts}

    def _delete(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(args, "channel")
        message = self._find(channel, args.get("ts"))
        self._messages.remove(message)  # replies stay, as in Slack (their parent becomes a tombstone)
        return {"channel": channel, "ts": message["ts"]}

    def _permalink(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(args, "channel")
        message = self._find(channel, args.get("message_ts"))
        ts = message["ts"]
        return {"channel": channel, "permalink": f"{PERMALINK_BASE}/archives/{channel}/p{ts.replace('.', '')}"}

    def _replies(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(args, "channel", member=True)
        anchor = self._find(channel, args.get("ts"), error="thread_not_found")
        root_ts = anchor["thread_ts"] or anchor["ts"]  # a reply's ts finds its whole thread
        thread = [m for m in self._messages if m["channel"] == channel and root_ts in (m["ts"], m["thread_ts"])]
        limit = min(_positive_int(args.get("limit"), self.replies_limit), self.replies_limit)
        start = _cursor_index(args.get("cursor"), thread)
        page, rest = thread[start : start + limit], thread[start + limit :]
        next_cursor = _encode_cursor(rest[0]["ts"]) if rest else ""
        return {
            "messages": [self._wire(m) for m in page],
            "has_more": bool(rest),
            "response_metadata": {"next_cursor": next_cursor},
        }

    def _history(self, args: dict[str, Any]) -> dict[str, Any]:
        """Top-level messages, newest first, as Slack's conversations.history returns them."""
        channel = self._channel(args, "channel", member=True)
        top = [m for m in reversed(self._messages) if m["channel"] == channel and not m["thread_ts"]]
        limit = _positive_int(args.get("limit"), 100)
        start = _cursor_index(args.get("cursor"), top)
        page, rest = top[start : start + limit], top[start + limit :]
        return {
            "messages": [self._wire(m) for m in page],
            "has_more": bool(rest),
            "response_metadata": {"next_cursor": _encode_cursor(rest[0]["ts"]) if rest else ""},
        }

    def _info(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(args, "channel")
        info = {
            "id": channel,
            "name": channel.lower(),
            "is_channel": True,
            "is_private": False,
            "is_shared": False,
            "is_ext_shared": False,
            "is_member": channel not in self.not_in_channel,
        }
        return {"channel": {**info, **self.channel_info.get(channel, {})}}

    def _members(self, args: dict[str, Any]) -> dict[str, Any]:
        """A channel's member ids, a page at a time; the cursor is the next index, opaque as Slack's."""
        channel = self._channel(args, "channel")
        members = self.members.get(channel, [])
        limit = min(_positive_int(args.get("limit"), 100), 1000)  # Slack: default 100, under 1,000
        start = _member_index(args.get("cursor"))
        page, rest = members[start : start + limit], members[start + limit :]
        next_cursor = base64.b64encode(f"member:{start + limit}".encode()).decode() if rest else ""
        return {"members": page, "response_metadata": {"next_cursor": next_cursor}}

    def _user_info(self, args: dict[str, Any]) -> dict[str, Any]:
        """A person; `locale` only when asked for with include_locale, as Slack does (users.info reference)."""
        user = args.get("user")
        if not isinstance(user, str) or not user:
            raise _Refused("user_not_found", "user is required")
        info: dict[str, Any] = {"id": user, "team_id": TEAM_ID, "name": user.lower(), "is_bot": False}
        zone = self.zones.get(user, DEFAULT_TZ)
        try:
            offset = datetime.now(ZoneInfo(zone)).utcoffset()
        except (ValueError, KeyError):  # a zone the test made up: Slack would not know it either
            offset = None
        # tz, tz_label, tz_offset (seconds east of UTC), as users.info returns them for every person.
        info |= {"tz": zone, "tz_label": zone, "tz_offset": int(offset.total_seconds()) if offset else 0}
        if _flag(args.get("include_locale")):
            info["locale"] = self.locales.get(user, "en-US")
        return {"user": info}

    def _open(self, args: dict[str, Any]) -> dict[str, Any]:
        """The bot's DM with one person (`users`), made on first use and the same ever after, as
        conversations.open answers it (`already_open` on later calls). A group DM is not faked."""
        users = args.get("users")
        if not isinstance(users, str) or not users:
            raise _Refused("users_list_not_supplied", "users is required")
        wanted = [user for user in users.split(",") if user]
        if len(wanted) != 1:
            raise _Refused("method_not_supported_for_channel_type", "the fake opens 1:1 DMs only")
        user = wanted[0]
        already = user in self.ims
        if not already:
            self.ims[user] = f"D{next(self._ids):08d}"
            if self.channels:
                self.channels.add(self.ims[user])
        return {"no_op": already, "already_open": already, "channel": {"id": self.ims[user]}}

    def _set_status(self, args: dict[str, Any]) -> dict[str, Any]:
        channel = self._channel(args, "channel_id")
        if not args.get("thread_ts") or "status" not in args:
            raise _Refused("invalid_arguments", "channel_id, thread_ts and status are required")
        self.statuses.append(
            {
                "channel_id": channel,
                "thread_ts": args["thread_ts"],
                "status": args["status"],
                "posted_at": time.monotonic(),
            }
        )
        return {}

    def _set_prompts(self, args: dict[str, Any]) -> dict[str, Any]:
        problem = slack_agent.prompts_problem(args)
        if problem:
            raise _Refused(*problem)
        self._channel(args, "channel_id")
        self.prompts.append(copy.deepcopy(args))
        return {}

    def _unfurl(self, args: dict[str, Any]) -> dict[str, Any]:
        """A later call for the same channel+ts (or unfurl_id+source) replaces the unfurls, as Slack's do."""
        target = slack_agent.unfurl_target(args)
        if len(target) == 2:
            raise _Refused(*target)
        problem = slack_agent.unfurls_problem(args.get("unfurls"))
        if problem:
            raise _Refused(*problem)
        unfurls: dict[str, Any] = args["unfurls"]
        for unfurl in unfurls.values():
            blocks_problem = check_blocks(unfurl["blocks"], max_blocks=MAX_MESSAGE_BLOCKS)
            if blocks_problem:
                raise _Refused(*blocks_problem)
        if target[0] == "ts":
            if self.channels and target[1] not in self.channels:
                raise _Refused("cannot_find_channel", target[1])
            message = self._find(target[1], target[2], "cannot_find_message")
            missing = [url for url in unfurls if url not in (message["text"] or "")]
            if missing:
                raise _Refused("cannot_unfurl_message", f"not in the message: {missing[0]}")
        self.unfurls[(target[1], target[2])] = copy.deepcopy(unfurls)
        return {}

    def _publish_view(self, args: dict[str, Any]) -> dict[str, Any]:
        view, user_id = args.get("view"), args.get("user_id")
        if not user_id:
            raise _Refused("invalid_arguments", "user_id is required")
        if not isinstance(view, dict) or view.get("type") != "home":
            raise _Refused("invalid_arguments", "view must be an object with type 'home'")
        if len(str(view.get("private_metadata", ""))) > MAX_PRIVATE_METADATA:
            raise _Refused("invalid_arguments", f"private_metadata exceeds {MAX_PRIVATE_METADATA} characters")
        problem = check_blocks(view.get("blocks", []), max_blocks=MAX_VIEW_BLOCKS)
        if problem:
            raise _Refused(*problem)
        self.home_views[user_id] = copy.deepcopy(view)
        return {"view": {"id": f"V{next(self._ids):08d}", "team_id": TEAM_ID, **view, "hash": self._next_ts()}}

    def _open_view(self, args: dict[str, Any]) -> dict[str, Any]:
        """A modal, as views.open takes it: a trigger_id used once (Slack also expires it after
        3 s: expired_trigger_id, not modelled), the view checked as Slack checks a modal."""
        trigger_id, view = args.get("trigger_id"), args.get("view")
        if not isinstance(trigger_id, str) or not trigger_id:
            raise _Refused("invalid_arguments", "trigger_id is required")
        if trigger_id in self._used_triggers:
            raise _Refused("invalid_trigger_id", "this trigger_id was used already")
        view = self._check_modal(view)
        self._used_triggers.add(trigger_id)
        view_id = f"V{next(self._ids):08d}"
        self.modals[view_id] = copy.deepcopy(view)
        return {"view": {"id": view_id, "team_id": TEAM_ID, **view, "hash": self._next_ts()}}

    def _update_view(self, args: dict[str, Any]) -> dict[str, Any]:
        view_id, view = args.get("view_id"), args.get("view")
        if view_id not in self.modals:
            raise _Refused("not_found", f"view_id={view_id!r}")
        view = self._check_modal(view)
        self.modals[view_id] = copy.deepcopy(view)
        return {"view": {"id": view_id, "team_id": TEAM_ID, **view, "hash": self._next_ts()}}

    def _check_modal(self, view: Any) -> dict[str, Any]:
        # Modal limits: title, submit and close are plain_text of at most 24 characters;
        # callback_id ≤ 255; private_metadata ≤ 3,000; 100 blocks (modal view reference).
        if not isinstance(view, dict) or view.get("type") != "modal":
            raise _Refused("invalid_arguments", "view must be an object with type 'modal'")
        for key in ("title", "submit", "close"):
            obj = view.get(key)
            if obj is None and key != "title":
                continue
            if not isinstance(obj, dict) or obj.get("type") != "plain_text" or len(str(obj.get("text", ""))) > 24:
                raise _Refused("invalid_arguments", f"{key} must be plain_text of at most 24 characters")
        if len(str(view.get("private_metadata", ""))) > MAX_PRIVATE_METADATA:
            raise _Refused("invalid_arguments", f"private_metadata exceeds {MAX_PRIVATE_METADATA} characters")
        if len(str(view.get("callback_id", ""))) > MAX_ACTION_ID:
            raise _Refused("invalid_arguments", "callback_id exceeds 255 characters")
        blocks = view.get("blocks", [])
        if any(isinstance(block, dict) and block.get("type") == "input" for block in blocks) and not view.get("submit"):
            raise _Refused("invalid_arguments", "a modal with input blocks needs a submit button")
        problem = check_blocks(blocks, max_blocks=MAX_VIEW_BLOCKS)
        if problem:
            raise _Refused(*problem)
        return view

    # -- response_url ----------------------------------------------------------------------

    def _response_url(self, hook_id: str, request: RecordedRequest) -> Response:
        # Webhooks answer in plain text: "ok", or the error code with a 4xx status.
        try:
            payload = json.loads(request.body or b"{}")
        except ValueError:
            payload = None
        with self._state_lock:
            if hook_id not in self._response_uses:
                return self._hook_error(hook_id, 404, "no_service", "unknown response_url")
            self._response_uses[hook_id] += 1
            if self._response_uses[hook_id] > RESPONSE_URL_USES:
                return self._hook_error(hook_id, 404, "used_url", f"more than {RESPONSE_URL_USES} uses")
            if not isinstance(payload, dict):
                return self._hook_error(hook_id, 400, "invalid_payload", "body is not a JSON object")
            try:
                if not payload.get("delete_original"):
                    self._check_message(f"response_url {hook_id}", payload)
            except _Refused as refused:
                return self._hook_error(hook_id, 400, refused.error, refused.detail)
            self.responses[hook_id].append(copy.deepcopy(payload))
        return Response(200, {"content-type": "text/plain"}, b"ok")

    def _hook_error(self, hook_id: str, status: int, error: str, detail: str) -> Response:
        self.rejections.append(Problem(f"response_url {hook_id}", error, detail))
        return Response(status, {"content-type": "text/plain"}, error.encode())

    # -- checks shared by the methods ------------------------------------------------------

    def _channel(self, args: dict[str, Any], name: str, *, member: bool = False) -> str:
        channel = args.get(name)
        if not isinstance(channel, str) or not channel or (self.channels and channel not in self.channels):
            raise _Refused("channel_not_found", f"{name}={channel!r}")
        if member and channel in self.not_in_channel:
            raise _Refused("not_in_channel", channel)
        return channel

    def _check_pacing(self, channel: str) -> None:
        if not self.enforce_pacing or channel not in self._last_post:
            return
        since = time.monotonic() - self._last_post[channel]
        if since < self.min_interval:
            wait = max(1, math.ceil(self.min_interval - since))  # Retry-After is whole seconds
            detail = f"{since:.3f}s after the previous post to {channel} (min {self.min_interval}s)"
            raise _Refused("ratelimited", detail, status=429, headers={"Retry-After": str(wait)})

    def _check_message(self, method: str, args: dict[str, Any]) -> None:
        """Raise what Slack would answer for this text/blocks/metadata; warn on a missing fallback."""
        text, blocks, markdown = args.get("text"), args.get("blocks"), args.get("markdown_text")
        if markdown is not None and (text is not None or blocks is not None):
            raise _Refused("markdown_text_conflict")
        has_text = (isinstance(text, str) and bool(text.strip())) or bool(markdown)
        if not blocks and not has_text and not args.get("attachments"):
            raise _Refused("no_text", "neither text nor blocks")
        if blocks is not None:
            problem = check_blocks(blocks, max_blocks=MAX_MESSAGE_BLOCKS, max_total_chars=MAX_BLOCKS_TOTAL_CHARS)
            if problem:
                raise _Refused(*problem)
        if blocks and not has_text:
            # Accepted by Slack, but notifications and screen readers only use the top-level text.
            self._warn(method, "missing_text", "blocks without a top-level text fallback")
        metadata = args.get("metadata")
        if metadata is not None and not (
            isinstance(metadata, dict)
            and isinstance(metadata.get("event_type"), str)
            and isinstance(metadata.get("event_payload"), dict)
        ):
            raise _Refused("invalid_metadata_format", "metadata needs event_type (str) and event_payload (object)")

    def _thread_root(self, channel: str, thread_ts: Any) -> str | None:
        if not thread_ts:
            return None
        parent = next((m for m in self._messages if m["channel"] == channel and m["ts"] == thread_ts), None)
        # An unknown parent is accepted silently: in Bolt-driven tests it is a user's message the
        # fake never saw (seed it with add_message when the thread's history matters).
        if parent is not None and parent["thread_ts"] is not None:
            # "Avoid using a reply's ts value; use its parent instead" (chat.postMessage docs).
            self._warn("chat.postMessage", "reply_ts_as_thread_ts", f"{thread_ts} is a reply in {parent['thread_ts']}")
            return str(parent["thread_ts"])
        return str(thread_ts)

    # -- storage ---------------------------------------------------------------------------

    def _next_ts(self) -> str:
        micros = FIRST_TS_MICROS + TS_STEP_MICROS * next(self._ts_counter)
        return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"

    def _store(self, channel: str, args: dict[str, Any], *, user: str, bot_id: str | None) -> dict[str, Any]:
        message = {
            "channel": channel,
            "ts": self._next_ts(),
            "thread_ts": args.get("thread_ts"),
            "text": args.get("text"),
            "blocks": copy.deepcopy(args.get("blocks")),
            "metadata": copy.deepcopy(args.get("metadata")),
            "user": user,
            "bot_id": bot_id,
            "reply_broadcast": _flag(args.get("reply_broadcast")),
            "unfurl_links": args.get("unfurl_links"),
            "unfurl_media": args.get("unfurl_media"),
            "posted_at": time.monotonic(),
        }
        self._messages.append(message)
        return message

    def _find(self, channel: str, ts: Any, error: str = "message_not_found") -> dict[str, Any]:
        for message in self._messages:
            if message["channel"] == channel and message["ts"] == ts:
                return message
        raise _Refused(error, f"no message {ts!r} in {channel}")

    def _wire(self, message: dict[str, Any]) -> dict[str, Any]:
        """A message as conversations.replies and chat.postMessage return it."""
        wire: dict[str, Any] = {"type": "message", "ts": message["ts"], "text": message["text"] or ""}
        wire["user"] = message["user"]
        if message["bot_id"]:
            wire |= {"bot_id": message["bot_id"], "app_id": APP_ID, "team": TEAM_ID}
        for key in ("blocks", "metadata"):
            if message[key] is not None:
                wire[key] = copy.deepcopy(message[key])
        if message["thread_ts"]:
            parent = next(
                (m for m in self._messages if (m["channel"], m["ts"]) == (message["channel"], message["thread_ts"])),
                None,
            )
            wire["thread_ts"] = message["thread_ts"]
            wire["parent_user_id"] = parent["user"] if parent else None
            if message["reply_broadcast"]:
                wire["subtype"] = "thread_broadcast"
            return wire
        replies = [m for m in self._messages if m["channel"] == message["channel"] and m["thread_ts"] == message["ts"]]
        if replies:
            wire |= {
                "thread_ts": message["ts"],
                "reply_count": len(replies),
                "reply_users": sorted({m["user"] for m in replies}),
                "latest_reply": replies[-1]["ts"],
            }
        return wire


# -- Block Kit validation (pure) -------------------------------------------------------------


def check_blocks(blocks: Any, *, max_blocks: int, max_total_chars: int | None = None) -> tuple[str, str] | None:
    """The (error, detail) Slack would answer for `blocks`, or None if it would accept them."""
    if not isinstance(blocks, list) or not all(isinstance(block, dict) for block in blocks):
        return "invalid_blocks_format", "blocks must be a JSON array of objects"
    if len(blocks) > max_blocks:
        return "invalid_blocks", f"msg_blocks_too_many: {len(blocks)} blocks (max {max_blocks})"
    problems = [f"blocks[{i}]: {p}" for i, block in enumerate(blocks) for p in _block_problems(block)]
    if problems:
        return "invalid_blocks", "; ".join(problems)
    total = _text_chars(blocks)
    if max_total_chars is not None and total > max_total_chars:
        return "msg_blocks_too_long", f"{total} characters of text in blocks (max {max_total_chars})"
    return None


def _block_problems(block: dict[str, Any]) -> list[str]:
    kind = block.get("type")
    if kind not in BLOCK_TYPES:
        return [f"unknown block type {kind!r}"]
    problems = _too_long(block.get("block_id"), MAX_BLOCK_ID, "block_id")
    if kind == "section":
        problems += _section_problems(block)
    elif kind == "header":
        problems += _text_problems(block.get("text"), "text", MAX_HEADER_TEXT, plain_only=True)
    elif kind == "context":
        problems += _count_problems(block.get("elements"), MAX_CONTEXT_ELEMENTS)
    elif kind == "input":
        # Input blocks (modals): a plain_text label of at most 2,000 characters and one element.
        problems += _text_problems(block.get("label"), "label", MAX_INPUT_LABEL, plain_only=True)
        if not isinstance(block.get("element"), dict):
            problems.append("an input block needs an element")
    elif kind == "context_actions":
        elements = block.get("elements")
        problems += _count_problems(elements, MAX_CONTEXT_ACTIONS_ELEMENTS)
        for i, element in enumerate(elements if isinstance(elements, list) else []):
            problems += _context_action_problems(element, f"elements[{i}]")
    elif kind == "actions":
        elements = block.get("elements")
        problems += _count_problems(elements, MAX_ACTIONS_ELEMENTS)
        for i, element in enumerate(elements if isinstance(elements, list) else []):
            problems += _element_problems(element, f"elements[{i}]")
    return problems


def _section_problems(block: dict[str, Any]) -> list[str]:
    text, fields, accessory = block.get("text"), block.get("fields"), block.get("accessory")
    if text is None and not fields:
        return ["a section needs text or fields"]
    problems = _text_problems(text, "text", MAX_SECTION_TEXT) if text is not None else []
    if fields is not None:
        problems += _count_problems(fields, MAX_SECTION_FIELDS, "fields")
        for i, item in enumerate(fields if isinstance(fields, list) else []):
            problems += _text_problems(item, f"fields[{i}]", MAX_FIELD_TEXT)
    if accessory is not None:
        problems += _element_problems(accessory, "accessory")
    return problems


def _element_problems(element: Any, where: str) -> list[str]:
    if not isinstance(element, dict):
        return [f"{where} must be an object"]
    problems = _too_long(element.get("action_id"), MAX_ACTION_ID, f"{where}.action_id")
    if element.get("type") == "button":
        problems += _text_problems(element.get("text"), f"{where}.text", MAX_BUTTON_TEXT, plain_only=True)
        problems += _too_long(element.get("value"), MAX_BUTTON_VALUE, f"{where}.value")
        problems += _too_long(element.get("url"), MAX_BUTTON_URL, f"{where}.url")
    return problems


def _context_action_problems(element: Any, where: str) -> list[str]:
    """A context_actions element: feedback_buttons (two buttons, each plain_text ≤ 75, value ≤ 2,000,
    accessibility_label ≤ 75) or icon_button (Block Kit: context actions block, feedback buttons element)."""
    if not isinstance(element, dict) or element.get("type") not in ("feedback_buttons", "icon_button"):
        return [f"{where} must be a feedback_buttons or icon_button element"]
    problems = _too_long(element.get("action_id"), MAX_ACTION_ID, f"{where}.action_id")
    if element["type"] == "icon_button":
        return problems + _text_problems(element.get("text"), f"{where}.text", MAX_BUTTON_TEXT, plain_only=True)
    for side in ("positive_button", "negative_button"):
        button = element.get(side)
        if not isinstance(button, dict) or not isinstance(button.get("value"), str):
            problems.append(f"{where}.{side} needs text and a value")
            continue
        problems += _text_problems(button.get("text"), f"{where}.{side}.text", MAX_BUTTON_TEXT, plain_only=True)
        problems += _too_long(button["value"], MAX_BUTTON_VALUE, f"{where}.{side}.value")
        problems += _too_long(button.get("accessibility_label"), MAX_BUTTON_TEXT, f"{where}.{side}.accessibility_label")
    return problems


def _text_problems(obj: Any, where: str, limit: int, *, plain_only: bool = False) -> list[str]:
    allowed = ("plain_text",) if plain_only else TEXT_TYPES
    if not isinstance(obj, dict) or obj.get("type") not in allowed or not isinstance(obj.get("text"), str):
        return [f"{where} must be a {' or '.join(allowed)} text object"]
    if not obj["text"]:
        return [f"{where}.text must be more than 0 characters"]
    return _too_long(obj["text"], limit, f"{where}.text")


def _count_problems(items: Any, limit: int, where: str = "elements") -> list[str]:
    if not isinstance(items, list):
        return [f"{where} must be an array"]
    return [f"{where} has {len(items)} items (max {limit})"] if len(items) > limit else []


def _too_long(value: Any, limit: int, where: str) -> list[str]:
    if value is None:
        return []
    size = len(str(value))
    return [f"{where} is {size} characters (max {limit})"] if size > limit else []


def _text_chars(node: Any) -> int:
    """Characters in every "text" string anywhere in the blocks (text objects, markdown blocks)."""
    if isinstance(node, list):
        return sum(_text_chars(item) for item in node)
    if isinstance(node, dict):
        own = len(node["text"]) if isinstance(node.get("text"), str) else 0
        return own + sum(_text_chars(value) for value in node.values() if isinstance(value, dict | list))
    return 0


# -- request parsing -------------------------------------------------------------------------


def _parse_args(request: RecordedRequest) -> tuple[dict[str, Any], str | None]:
    """The call's arguments (query string + JSON or form body) and its token.

    slack_sdk's sync WebClient POSTs every method, even those it declares as GET, with a form body
    (bools as "1"/"0") or, for chat.*/views.*/assistant.*, a JSON body; a token in the body counts too.
    """
    args: dict[str, Any] = dict(request.query)
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type == "application/json":
        body = json.loads(request.body or b"{}")
        if not isinstance(body, dict):
            raise ValueError("JSON body must be an object")
        args.update(body)
    elif request.body:
        form = parse_qs(request.body.decode(), keep_blank_values=True)
        args.update({key: values[0] for key, values in form.items()})
    for key in JSON_ARGS:
        if isinstance(args.get(key), str):
            # Left as a string if it is not JSON: validation answers invalid_blocks_format etc.
            with contextlib.suppress(ValueError):
                args[key] = json.loads(args[key])
    header = request.headers.get("authorization", "")
    token = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else None
    body_token = args.pop("token", None)
    return args, token or body_token


def _flag(value: Any) -> bool:
    return value is True or str(value).lower() in ("1", "true")


def _positive_int(value: Any, default: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return default
    return number if number > 0 else default


def _encode_cursor(ts: str) -> str:
    # Slack's cursors are base64 of "next_ts:<ts>"; opaque to clients, stable while messages arrive.
    return base64.b64encode(f"next_ts:{ts}".encode()).decode()


def _cursor_index(cursor: Any, thread: list[dict[str, Any]]) -> int:
    if not cursor:
        return 0
    try:
        ts = base64.b64decode(str(cursor), validate=True).decode().removeprefix("next_ts:")
    except (binascii.Error, UnicodeDecodeError) as exc:
        raise _Refused("invalid_cursor", str(cursor)) from exc
    for index, message in enumerate(thread):
        if message["ts"] >= ts:
            return index
    return len(thread)


def _member_index(cursor: Any) -> int:
    if not cursor:
        return 0
    try:
        return int(base64.b64decode(str(cursor), validate=True).decode().removeprefix("member:"))
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise _Refused("invalid_cursor", str(cursor)) from exc
