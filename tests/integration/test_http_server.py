"""The HTTP server under `prdigest serve --http`, attacked as an outsider would on loopback:
bodies too large to read, connections that trickle, and a stop that must never break.

Every bound here is Slack's 3 s: a request Slack sends must be answered within it."""

from __future__ import annotations

import socket
import threading
import time
import urllib.parse
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from bot.http import httpd
from bot.http.httpd import MAX_BODY_BYTES, HttpServer
from tests.integration.slack_harness import SlackHarness, wait_for

SLACK_TIMEOUT = 3.0  # Slack's own bound for an answer
TEN_MB = 10 * 1024 * 1024


def ok_app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "3")])
    return [b"ok\n"]


@pytest.fixture
def served() -> Iterator[HttpServer]:
    """A bare server on loopback, stopped as every test stops it: from another thread."""
    server = HttpServer(ok_app, "127.0.0.1", 0)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    yield server
    server.stop()
    thread.join(timeout=10)
    assert not thread.is_alive()


def port_of(url: str) -> int:
    return int(urllib.parse.urlsplit(url).port or 0)


def connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=SLACK_TIMEOUT)


def read_response(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (or Slack's 3 s run out)."""
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except TimeoutError:
        pass
    return b"".join(chunks)


def health_on(sock: socket.socket) -> bytes:
    """GET /healthz on a kept-alive connection: the whole response (head and body may come apart)."""
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    response = b""
    while not response.endswith(b"\r\n\r\nok\n") and (chunk := sock.recv(4096)):
        response += chunk
    return response


def slack_calls(harness: SlackHarness) -> int:
    return len(harness.slack.requests)


# -- bodies ---------------------------------------------------------------------------------------


def test_an_oversized_unsigned_body_is_refused_from_its_length_before_it_is_sent(harness: SlackHarness) -> None:
    before = slack_calls(harness)
    with connect(port_of(harness.events_url)) as sock:
        # Only the head: a server that meant to read 10 MB first would wait here for the body.
        sock.sendall(
            b"POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + f"Content-Length: {TEN_MB}\r\n\r\n".encode()
        )
        answer = read_response(sock)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert slack_calls(harness) == before
    assert harness.model.calls == 0


def test_a_chunked_body_is_refused_once_it_passes_the_cap(harness: SlackHarness) -> None:
    before = slack_calls(harness)
    chunk = b"x" * 65536
    stream = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(2 * MAX_BODY_BYTES // len(chunk)))
    with connect(port_of(harness.events_url)) as sock:
        sock.sendall(
            b"POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        # Exactly the cap and no more, so the server has read everything sent when it answers (bytes
        # left unread would make its close a reset, which can discard the answer before it is read).
        sock.sendall(stream[:MAX_BODY_BYTES])
        answer = read_response(sock)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert slack_calls(harness) == before


def test_a_body_below_the_cap_still_reaches_the_signature_check(harness: SlackHarness) -> None:
    body = b'{"type": "event_callback", "event": {"text": "' + b"x" * (MAX_BODY_BYTES // 2) + b'"}}'
    response = requests.post(
        harness.events_url, data=body, headers={"Content-Type": "application/json"}, timeout=SLACK_TIMEOUT
    )
    assert response.status_code == 401


# -- slow connections -----------------------------------------------------------------------------


def trickling(port: int, count: int) -> list[socket.socket]:
    """`count` connections that have sent the start of a request head and are sending the rest slowly."""
    socks = []
    for index in range(count):
        sock = connect(port)
        sock.sendall(b"POST /slack/events HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow-" + str(index).encode())
        socks.append(sock)
    return socks


def test_health_and_a_signed_ack_answer_while_200_connections_trickle_headers(harness: SlackHarness) -> None:
    socks = trickling(port_of(harness.events_url), 200)
    try:
        for sock in socks:  # a byte more each: they are trickling, not idle
            sock.sendall(b"x")
        health = requests.get(harness.events_url.replace("/slack/events", "/healthz"), timeout=SLACK_TIMEOUT)
        assert health.status_code == 200
        _hook, ack = harness.command("help")
        assert ack.status_code == 200
    finally:
        for sock in socks:
            sock.close()


def test_a_connection_that_trickles_its_request_is_closed(served: HttpServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(httpd, "REQUEST_READ_TIMEOUT", 0.5)
    (slow,) = trickling(served.effective_port, 1)
    with slow, connect(served.effective_port) as prompt:
        assert health_on(prompt).startswith(b"HTTP/1.1 200 ")

        def dropped() -> bool:
            try:
                slow.sendall(b"x")
                return slow.recv(1) == b""
            except TimeoutError:
                return False
            except OSError:  # reset by the server
                return True

        slow.settimeout(0.1)
        wait_for(dropped, timeout=SLACK_TIMEOUT)
        # The connection that sent its request at once is idle now, which is allowed far longer.
        assert health_on(prompt).startswith(b"HTTP/1.1 200 ")


# -- stopping -------------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_server_starts_and_stops_100_times_without_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    errors: list[str] = []
    monkeypatch.setattr(threading, "excepthook", lambda args: errors.append(repr(args.exc_value)))
    for _ in range(100):
        server = HttpServer(ok_app, "127.0.0.1", 0)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        # A request in flight and a connection kept open: what the loop polls when it is stopped.
        with requests.Session() as session:
            assert session.get(f"http://127.0.0.1:{server.effective_port}/healthz", timeout=SLACK_TIMEOUT).ok
            server.stop()
            thread.join(timeout=10)
        assert not thread.is_alive()
    assert errors == []


def test_stop_before_run_and_twice_is_harmless() -> None:
    server = HttpServer(ok_app, "127.0.0.1", 0)
    server.stop()
    started = time.monotonic()
    server.run()  # returns at once: the stop is waiting for the loop
    server.stop()
    assert time.monotonic() - started < SLACK_TIMEOUT
