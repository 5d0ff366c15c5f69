"""A tiny threaded HTTP server on 127.0.0.1 that real client libraries can talk to.

Subclasses implement `handle(request) -> Response`; the base records every request, adds the
optional latency and takes care of a clean shutdown. It is shared by the GitHub, OpenAI and
(later) Slack fakes, so it knows nothing about any of them.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

JSON_CONTENT_TYPE = "application/json; charset=utf-8"


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str  # without the query string
    query: dict[str, str]  # first value of each parameter
    headers: dict[str, str]  # names lower-cased, as HTTP header names are case-insensitive
    body: bytes = b""
    raw_query: str = ""
    # When it arrived, on time.monotonic(): the clock a test shares with the fakes it runs, and on
    # Linux with the processes it starts (a test counts what arrived after it sent a signal).
    at: float = field(default_factory=time.monotonic)

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


@dataclass
class Response:
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    # Sent instead of `body`, piece by piece with chunked transfer encoding (server-sent events):
    # each piece is flushed as it comes, so a client reads it before the next is made.
    stream: Iterable[bytes] | None = None

    @classmethod
    def json(cls, payload: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
        return cls(status, {"content-type": JSON_CONTENT_TYPE, **(headers or {})}, json.dumps(payload).encode())


class LoopbackServer:
    """Base class: `with FakeX() as fake: ... fake.url ...` or `fake.start()` / `fake.stop()`."""

    def __init__(self, *, latency: float = 0.0, port: int = 0) -> None:
        self.latency = latency  # seconds slept before answering each request
        self.errors: list[str] = []  # tracebacks of exceptions raised by handle(): bugs in a fake
        self._port = port
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        self._httpd = _Server(("127.0.0.1", self._port), _Handler, owner=self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, name=type(self).__name__, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()  # wakes handlers parked in self.sleep()
        httpd.shutdown()
        httpd.close_connections()
        httpd.server_close()
        httpd.wait_closed(timeout=1.0)
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError(f"{type(self).__name__} is not started")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    # -- recorded requests -----------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot: safe to iterate while requests keep arriving."""
        with self._lock:
            return list(self._requests)

    def reset_requests(self) -> None:
        with self._lock:
            self._requests.clear()

    def count(self, match: str | Callable[[RecordedRequest], bool] | None = None) -> int:
        """Requests whose path matches a regex (re.search), or that satisfy a predicate; all if None."""
        if match is None:
            return len(self.requests)
        if isinstance(match, str):
            pattern = re.compile(match)
            return sum(1 for r in self.requests if pattern.search(r.path))
        return sum(1 for r in self.requests if match(r))

    # -- for subclasses --------------------------------------------------------------------

    def handle(self, request: RecordedRequest) -> Response:
        raise NotImplementedError

    def sleep(self, seconds: float) -> None:
        """Sleep that stop() interrupts, so a 'hanging' handler never delays shutdown."""
        if seconds > 0:
            self._stopping.wait(seconds)

    def latency_of(self, request: RecordedRequest) -> float:
        """Seconds this request waits before its answer; fakes whose endpoints differ override it."""
        return self.latency

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _respond(self, request: RecordedRequest) -> Response:
        self._record(request)
        self.sleep(self.latency_of(request))
        try:
            return self.handle(request)
        except Exception:  # any bug in a fake becomes a visible 500 (and .errors), not a hung client
            self.errors.append(traceback.format_exc())
            return Response.json({"message": "fake server error (see .errors)"}, status=500)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    # Do not join handler threads on close: one may be sleeping to simulate a hung upstream.
    block_on_close = False
    # slack_sdk opens a connection per call; the default backlog of 5 drops bursts (1 s stalls).
    request_queue_size = 128

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], *, owner: LoopbackServer):
        self.owner = owner
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        # Keep-alive connections park their handler thread in a blocking read; shutting the
        # socket down ends that read, so the thread exits and closes its socket itself.
        with self._open_lock:
            sockets = list(self._open)
        for sock in sockets:
            with contextlib.suppress(OSError):  # already closed by the client
                sock.shutdown(socket.SHUT_RDWR)

    def wait_closed(self, timeout: float) -> None:
        # Best effort: a handler stuck in user code may outlive this; its thread is a daemon.
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._open_lock:
                if not self._open:
                    return
            time.sleep(0.005)

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A client that gave up (timeout) makes our late write fail: expected, not worth a traceback.
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle on, the client's delayed ACK adds ~40 ms
    # to every keep-alive request.
    disable_nagle_algorithm = True
    server: _Server

    def _dispatch(self) -> None:
        split = urlsplit(self.path)
        request = RecordedRequest(
            method=self.command,
            path=split.path,
            query={k: v[0] for k, v in parse_qs(split.query, keep_blank_values=True).items()},
            headers={k.lower(): v for k, v in self.headers.items()},
            body=self._read_body(),
            raw_query=split.query,
        )
        response = self.server.owner._respond(request)
        if response.stream is not None:
            self._send_stream(response, response.stream)
            return
        self.send_response(response.status, _reason(response.status))
        for name, value in response.headers.items():
            if name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(response.body)

    def _send_stream(self, response: Response, pieces: Iterable[bytes]) -> None:
        self.send_response(response.status, _reason(response.status))
        for name, value in response.headers.items():
            if name.lower() not in ("content-length", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        # A client that closes the stream (a cancelled answer) makes a write fail: the generator
        # is closed here, so its `finally` can record how far it got.
        iterator = iter(pieces)
        try:
            for piece in iterator:
                if piece:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                    self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
        except OSError:
            self.close_connection = True
        finally:
            close = getattr(iterator, "close", None)
            if close is not None:
                close()

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while size := int(self.rfile.readline().split(b";")[0], 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            while self.rfile.readline() not in (b"\r\n", b"\n", b""):  # trailers
                pass
            return b"".join(chunks)
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = _dispatch

    def log_message(self, format: str, *args: Any) -> None:
        pass


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Status"
