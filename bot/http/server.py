"""`prdigest serve`: the Slack app over HTTP (waitress, many threads) or Socket Mode, with the
daily scheduler running beside it in every replica.

HTTP mode serves POST /slack/events (events, commands, interactivity) and GET /healthz for
load balancers and container health checks. GET /metrics is not among them: that port is for
Slack, through a proxy, and the series are for Prometheus alone, on `--metrics-port` (see
`httpd.metrics_served`). Each Slack request gets a request id for its log lines (bot/ops/logs.py)
and its time to acknowledgement in ack_latency_seconds.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qsl

from slack_bolt import App, BoltContext, BoltRequest, BoltResponse
from slack_bolt.adapter.wsgi import SlackRequestHandler
from slack_bolt.adapter.wsgi.http_request import WsgiHttpRequest
from slack_bolt.request.internals import build_context  # private: slack-bolt is pinned to 1.30.x for it
from slack_sdk.signature import SignatureVerifier

from bot.http.httpd import HttpServer, StartResponse, WsgiApp
from bot.http.install_gate import INSTALL_PATH, refused
from bot.http.webhook import WEBHOOK_PATH
from bot.ops import telemetry
from bot.ops.logs import request_id
from bot.ops.stopping import stop_on_signals
from bot.slack.app import SlackParts

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"


def body_problem(body: bytes, content_type: str | None) -> str | None:
    """Why `body` is not something Slack posts to the events URL, or None when it is.

    Slack sends events as a JSON object, slash commands as a form with `command`, interactivity
    as a form whose `payload` is a JSON object, and `ssl_check=1` to test the certificate.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "the body is not UTF-8"
    if not text:
        return "the body is empty"
    # Bolt's rule for JSON, kept exactly so that both read a body the same way (parse_body in
    # slack_bolt/request/internals.py: the content type as sent, or a body opening with "{").
    if (content_type or "").split(";")[0] == "application/json" or text.startswith("{"):
        data = _json_object(text)
        if data is None:
            return "the body is not a JSON object"
        if "event" in data and not isinstance(data["event"], dict):
            return "event is not a JSON object"
        if data.get("type") == "event_callback" and "event" not in data:
            return "an event_callback without an event"
        return None
    form = dict(parse_qsl(text, keep_blank_values=True))
    if "payload" in form:
        payload = _json_object(form["payload"])
        if payload is None or not isinstance(payload.get("type"), str):
            return "payload is not a JSON object with a type"
        return None
    if "command" in form or form.get("ssl_check") == "1":
        return None
    return "a form body needs a command or a payload"


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: a few thousand nested brackets
        return None
    return data if isinstance(data, dict) else None


def request_kind(body: dict[str, Any]) -> str | None:
    """What Slack delivered, as ack_latency_seconds labels it (None: an ssl_check, not timed)."""
    if "command" in body:
        return "command"
    if isinstance(body.get("type"), str) and ("event" in body or body["type"] == "url_verification"):
        return "event"
    if "type" in body:  # an interactivity payload: block_actions, view_submission, shortcut…
        return "action"
    return None


def delivery_id(body: dict[str, Any], headers: dict[str, Any]) -> str:
    """The request id of a Slack delivery: its event_id when it has one (a retry keeps it), else
    a digest of its timestamp and signature (unique per request Slack signs; the signature
    itself is not written to any log)."""
    event_id = body.get("event_id")
    if isinstance(event_id, str) and event_id:
        return event_id[:64]
    signed = f"{headers.get('x-slack-request-timestamp')}:{headers.get('x-slack-signature')}"
    return "slack-" + hashlib.sha256(signed.encode()).hexdigest()[:16]


class _CheckedHandler(SlackRequestHandler):
    """Bolt's WSGI adapter, with the signature and the body checked before Bolt parses anything.

    Bolt parses the body before its middleware verifies the signature, and a body it cannot parse
    (not JSON, a `payload` that is not JSON, bytes that are not UTF-8) raises in the adapter: a
    500, signed or not. Bolt never rejects such a body, so there is nothing to validate "after
    Bolt rejects": each POST is checked here in the order Slack's docs give — signature (401),
    then shape (400) — and only then handed to Bolt, which verifies it again (one HMAC) and
    dispatches it as before. Verifying first, for every body, keeps one simple rule: without the
    signing secret nobody learns anything about how we parse. (Bolt answers `ssl_check` before
    verifying; here it needs a signature too, which Slack puts on every request it sends.)
    """

    def __init__(self, app: App, verifier: SignatureVerifier) -> None:
        super().__init__(app, path=EVENTS_PATH)
        self._verifier = verifier

    def dispatch(self, request: WsgiHttpRequest) -> BoltResponse:
        arrived = time.monotonic()
        # waitress has checked the length, and refused more than httpd.MAX_BODY_BYTES with 413.
        length = int(request.environ.get("CONTENT_LENGTH") or 0)
        body: bytes = request.environ["wsgi.input"].read(length) if length else b""
        headers = request.get_headers()
        if not self._signed(body, headers):
            return BoltResponse(status=401, body={"error": "invalid request"})  # Bolt's own answer
        problem = body_problem(body, str(headers.get("content-type") or ""))
        if problem is not None:
            return BoltResponse(status=400, body=problem)
        text = body.decode("utf-8")
        try:
            bolt_request = BoltRequest(body=text, query=request.query_string, headers=headers)
        except (TypeError, AttributeError, KeyError, IndexError):
            # Bolt reads team, user, channel… into its context assuming Slack's types.
            return BoltResponse(status=400, body="a field of the body has the wrong type")
        if "payload" in text and not bolt_request.body:
            # Bolt takes any form body that mentions "payload" for an interactivity payload and,
            # finding none, reads it as {} (parse_body): `/pr what is the payload` would vanish.
            form = dict(parse_qsl(text, keep_blank_values=True))
            bolt_request.body = form
            bolt_request.context = build_context(BoltContext(), form)
        kind = request_kind(bolt_request.body)
        with request_id(delivery_id(bolt_request.body, headers)):
            response = self.app.dispatch(bolt_request)
            if kind is not None:
                seconds = time.monotonic() - arrived
                telemetry.observe("ack_latency_seconds", seconds, kind=kind)
                log.debug("%s acknowledged (%d) in %.3f s", kind, response.status, seconds)
        return response

    def _signed(self, body: bytes, headers: dict[str, Any]) -> bool:
        timestamp, signature = headers.get("x-slack-request-timestamp"), headers.get("x-slack-signature")
        try:
            return self._verifier.is_valid(body, timestamp, signature)
        except (ValueError, OverflowError):  # a timestamp that is no number, a body that is not UTF-8
            return False


def wsgi_app(parts: SlackParts) -> WsgiApp:
    slack = _CheckedHandler(parts.app, parts.verifier)

    def application(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == "/healthz":
            # Still 200 while Redis is away: the process is alive and answers what it can; a
            # restart would not bring Redis back. The body says what is wrong, for operators.
            problem = parts.scheduler.problem
            health = f"degraded: {problem}\n".encode() if problem else b"ok\n"
            start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(health)))])
            return [health]
        if environ.get("PATH_INFO") == WEBHOOK_PATH:
            if parts.webhook is None:
                start_response("404 Not Found", [("Content-Type", "text/plain")])
                return [b"the GitHub webhook is off: set GITHUB_WEBHOOK_SECRET\n"]
            return parts.webhook(environ, start_response)
        if environ.get("PATH_INFO") == INSTALL_PATH and parts.install_starts is not None:
            refusal = refused(parts.install_starts, environ, start_response)
            if refusal is not None:
                return refusal
        return slack(environ, start_response)

    return application


def http_server(parts: SlackParts, host: str, port: int) -> HttpServer:
    """The app served on host:port (port 0 picks a free one: see `.effective_port`), bound but
    not yet serving: `run()` serves until `stop()` is called from another thread."""
    return HttpServer(wsgi_app(parts), host, port)


def serve_http(parts: SlackParts, host: str, port: int, *, on_ready: Callable[[str], None] | None = None) -> None:
    server = http_server(parts, host, port)
    parts.scheduler.start()
    stop_on_signals(server.stop)
    if on_ready:
        on_ready(f"http://{host}:{server.effective_port}{EVENTS_PATH}")
    try:
        server.run()
    finally:
        parts.scheduler.stop()


def serve_socket(parts: SlackParts, app_token: str, stopped: threading.Event | None = None) -> None:
    """Socket Mode until SIGTERM/SIGINT (or until `stopped` is set, for tests)."""
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    handler = SocketModeHandler(parts.app, app_token)
    parts.scheduler.start()
    stopped = stopped or threading.Event()
    stop_on_signals(stopped.set)
    handler.connect()  # type: ignore[no-untyped-call]
    try:
        stopped.wait()
    finally:
        handler.close()  # type: ignore[no-untyped-call]
        parts.scheduler.stop()
