"""`prdigest serve`: the Slack app over HTTP (waitress, many threads) or Socket Mode, with the
daily scheduler running beside it in every replica.

HTTP mode serves POST /slack/events (events, commands, interactivity) and GET /healthz for
load balancers and container health checks.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterable
from typing import Any

from slack_bolt.adapter.wsgi import SlackRequestHandler

from bot.slack.app import SlackParts

log = logging.getLogger(__name__)

# Requests are acknowledged in milliseconds; the threads only bound concurrent connections.
HTTP_THREADS = 32
EVENTS_PATH = "/slack/events"

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


def wsgi_app(parts: SlackParts) -> WsgiApp:
    slack = SlackRequestHandler(parts.app, path=EVENTS_PATH)

    def application(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == "/healthz":
            start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "3")])
            return [b"ok\n"]
        return slack(environ, start_response)

    return application


def http_server(parts: SlackParts, host: str, port: int) -> Any:
    """A waitress server for the app (port 0 picks a free one: see `.effective_port`)."""
    from waitress import create_server

    return create_server(wsgi_app(parts), host=host, port=port, threads=HTTP_THREADS, ident="prdigest")


class _Shutdown(Exception):
    """Raised in the main thread by SIGTERM/SIGINT to leave waitress's loop."""


def _raise_shutdown() -> None:
    raise _Shutdown


def serve_http(parts: SlackParts, host: str, port: int, *, on_ready: Callable[[str], None] | None = None) -> None:
    server = http_server(parts, host, port)
    parts.scheduler.start()
    # Closing the socket under waitress's select() breaks it; unwinding the loop does not.
    _stop_on_signals(_raise_shutdown)
    if on_ready:
        on_ready(f"http://{host}:{server.effective_port}{EVENTS_PATH}")
    try:
        server.run()
    except _Shutdown:
        pass
    finally:
        server.close()
        parts.scheduler.stop()


def serve_socket(parts: SlackParts, app_token: str) -> None:
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    handler = SocketModeHandler(parts.app, app_token)
    parts.scheduler.start()
    stopped = threading.Event()
    _stop_on_signals(stopped.set)
    handler.connect()  # type: ignore[no-untyped-call]
    try:
        stopped.wait()
    finally:
        handler.close()  # type: ignore[no-untyped-call]
        parts.scheduler.stop()


def _stop_on_signals(stop: Callable[[], None]) -> None:
    if threading.current_thread() is not threading.main_thread():
        return  # tests run servers in threads; signals belong to the main thread

    def handler(signum: int, frame: object) -> None:
        log.warning("stopping on signal %s", signum)
        stop()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
