"""The HTTP server under `prdigest serve --http` and every `--metrics-port`: waitress, with limits
for a port open to anyone.

Owns the body, header, connection and time limits, and a stop that any thread or a signal
handler may call. It knows nothing of Slack: it serves whatever WSGI app it is given. The
buffering proxy that should sit in front is in the README ("Behind a reverse proxy").
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from waitress import wasyncore
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer
from waitress.task import ThreadedTaskDispatcher

from bot.errors import ConfigError, quoted

# Requests are acknowledged in milliseconds; the threads only bound concurrent requests.
HTTP_THREADS = 32
# Slack's deliveries are far smaller: an event carrying a 40,000-character message (Slack's
# limit) in both its text and its blocks, or an interactivity payload carrying a view (at most
# 250 kB, Slack's view_too_large), is a few hundred kB even JSON-escaped and form-encoded.
# waitress refuses a larger body with 413 from its Content-Length alone, before reading it, and
# stops a chunked body once it grows past this (its own default is 1 GiB, read whole before the
# signature could be checked: 20 unsigned 10 MB bodies took 600 MB that stayed).
MAX_BODY_BYTES = 1024 * 1024
# Slack's request head is about 1 kB and a proxy adds a few headers; waitress allows 256 kB.
MAX_HEADER_BYTES = 16 * 1024
# A request must arrive whole within this many seconds of its first byte (or of the connection
# opening). Slack sends a delivery at once and gives up on it after 3 s, so a connection still
# trickling its head or body after 10 s holds a slot without delivering anything (slowloris).
# waitress itself only closes connections idle for channel_timeout, and a byte now and then
# keeps a connection from being idle.
REQUEST_READ_TIMEOUT = 10.0
# Connections held at once: 200 trickling must leave room for Slack and the health checks
# (waitress's default, 100, did not), and 500 stays under the usual limit of 1,024 open files.
CONNECTION_LIMIT = 500
# An idle keep-alive connection is closed after this many seconds: longer than the 60 s a proxy
# keeps idle upstream connections (nginx's keepalive_timeout), so the proxy closes first and
# never sends a request down a connection waitress is closing.
IDLE_TIMEOUT = 75
# Seconds between looks for idle and trickling connections (waitress's default is 30).
CLEANUP_INTERVAL = 1
# A body being received is held in memory up to this size, beyond it in a temporary file.
# Slack's usual deliveries are a few kB; waitress's 512 kB, times the connections above, would
# let slow senders hold 250 MB of memory.
BODY_MEMORY_BYTES = 64 * 1024

MAX_PORT = 65535  # TCP ports are 16 bits

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


class _Channel(HTTPChannel):  # type: ignore[misc]  # waitress has no type hints
    """waitress's connection, remembering since when it has owed a whole request."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # A new connection owes its first request; between requests a connection owes nothing
        # (None) and only the idle timeout applies.
        self.waiting_since: float | None = time.monotonic()

    def received(self, data: bytes) -> bool:
        if self.request is None and self.waiting_since is None:  # the first byte of a request
            self.waiting_since = time.monotonic()
        result = bool(super().received(data))
        if self.request is None:  # every request in `data` arrived whole
            self.waiting_since = None
        return result


class _Server(TcpWSGIServer):  # type: ignore[misc]
    channel_class = _Channel

    def maintenance(self, now: float) -> None:
        super().maintenance(now)  # connections idle for channel_timeout
        cutoff = time.monotonic() - REQUEST_READ_TIMEOUT
        for channel in self.active_channels.values():
            # A request being answered is left alone, as waitress's own maintenance does.
            if not channel.requests and channel.waiting_since is not None and channel.waiting_since < cutoff:
                channel.will_close = True  # the loop closes it on its next pass


class _Wakeup(wasyncore.dispatcher):  # type: ignore[misc]
    """One end of a socket pair in waitress's loop: a byte sent to the other end makes the loop
    return, by raising the one exception wasyncore lets out of a handler."""

    def __init__(self, socket_map: dict[int, Any]) -> None:
        reader, self._writer = socket.socketpair()
        self._writer.setblocking(False)
        super().__init__(reader, map=socket_map)

    def writable(self) -> bool:
        return False

    def handle_read(self) -> None:
        raise wasyncore.ExitNow

    def wake(self) -> None:
        # BlockingIOError: woken already; OSError on a closed socket: stopped already. A closed
        # Python socket holds no file descriptor, so a late wake never writes to a reused one.
        with contextlib.suppress(OSError):
            self._writer.send(b"x")

    def close(self) -> None:
        super().close()
        self._writer.close()


class HttpServer:
    """waitress serving `app` on host:port: `run()` serves until `stop()`, then closes everything.

    The sockets waitress watches are closed by the thread that ran the loop, once the loop has
    returned. Closing them from another thread while select()/poll() waits on them (what
    waitress's `server.close()` does when called from outside) is the EBADF that failed the
    tests' teardown one run in two.
    """

    def __init__(self, app: WsgiApp, host: str, port: int) -> None:
        if not 0 <= port <= MAX_PORT:  # waitress would take 99999 modulo 65536 and serve on 34463
            raise ConfigError(f"{port} is not a port; use 1 to {MAX_PORT}, or 0 for any free port")
        try:
            self._adj = Adjustments(
                host=host,
                port=port,
                threads=HTTP_THREADS,
                ident="prdigest",
                max_request_body_size=MAX_BODY_BYTES,
                max_request_header_size=MAX_HEADER_BYTES,
                inbuf_overflow=BODY_MEMORY_BYTES,
                connection_limit=CONNECTION_LIMIT,
                channel_timeout=IDLE_TIMEOUT,
                cleanup_interval=CLEANUP_INTERVAL,
                # select() cannot watch a descriptor numbered 1,024 or more; poll() can.
                asyncore_use_poll=True,
                # waitress trusts one proxy address (or all); ours change (a pod's), so X-Forwarded-For
                # reaches the app and bot/core/addresses.py decides whose entry to believe.
                clear_untrusted_proxy_headers=False,
            )
        except ValueError:  # getaddrinfo found nothing, or the port is out of range
            raise ConfigError(f"cannot serve on {quoted(host)}: not an address or a host name that resolves") from None
        self._map: dict[int, Any] = {}
        self._tasks = ThreadedTaskDispatcher()
        try:
            # One server per address the host resolves to ("localhost": 127.0.0.1 and ::1), as
            # waitress's create_server does; they share one loop and one pool of threads.
            self._servers = [
                _Server(app, self._map, dispatcher=self._tasks, adj=self._adj, sockinfo=info)
                for info in self._adj.listen
            ]
        except OSError as exc:
            self._close_sockets()
            raise _bind_error(exc, host, port) from None
        self._wakeup = _Wakeup(self._map)
        self._tasks.set_thread_count(HTTP_THREADS)
        self.effective_port: int = self._servers[0].effective_port  # the port picked for port 0

    def run(self) -> None:
        try:
            wasyncore.loop(timeout=self._adj.asyncore_loop_timeout, use_poll=True, map=self._map)
        except wasyncore.ExitNow:
            pass
        finally:
            # Requests being answered finish first (waitress waits up to 5 s), then the sockets close.
            self._tasks.shutdown()
            self._close_sockets()

    def stop(self) -> None:
        """Make `run()` return. Safe from any thread and from a signal handler: it takes no lock
        (a handler that raised instead could land inside a waitress callback, which would log the
        exception as that connection's error and go on serving)."""
        self._wakeup.wake()

    def _close_sockets(self) -> None:
        for dispatcher in list(self._map.values()):
            if isinstance(dispatcher, HTTPChannel):
                if dispatcher.request is not None:
                    dispatcher.request.close()  # a body being received may be in a temporary file
                dispatcher.handle_close()  # its output buffers, then its socket
            else:
                dispatcher.close()
        self._map.clear()


@contextlib.contextmanager
def metrics_served(exposition: Callable[[], bytes], host: str, port: int) -> Iterator[int]:
    """GET /metrics and /healthz on host:port (`serve` and `worker --metrics-port`) while inside;
    yields the port (0 picks a free one). The same waitress server and limits as the Slack port, so
    it binds every address `--host` names and a port in use is one clear line, not a traceback."""
    from bot.ops.metrics import metrics_app  # prometheus_client: only for a process that exports

    server = HttpServer(metrics_app(exposition), host, port)
    thread = threading.Thread(target=server.run, name="metrics", daemon=True)
    thread.start()
    try:
        yield server.effective_port
    finally:
        server.stop()
        thread.join()


def _bind_error(exc: OSError, host: str, port: int) -> ConfigError:
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    reasons = {
        errno.EADDRINUSE: f"port {port} is in use by another process",
        errno.EADDRNOTAVAIL: f"{host} is not an address of this host",
        errno.EACCES: f"port {port} needs privileges (ports below 1024 do)",
    }
    reason = reasons.get(exc.errno or 0) or (os.strerror(exc.errno) if exc.errno else "the socket cannot be opened")
    return ConfigError(f"cannot serve on {where}: {reason}")
