"""The model client's connections, kept so that a stop can cut those in flight.

A card's request waits for its whole answer (a minute on a local model) in a blocking read.
Closing the client does not end that read: close() on a socket another thread reads from leaves
the read waiting until the server answers; shutdown() ends it at once. So the connections the
openai client opens (through httpx2 and httpcore2) are made here, each kept until it is closed,
and `cancel()` shuts every one down and refuses new ones: a request in flight fails at once,
the server sees its client go (vLLM and OpenAI stop generating then), and none starts after.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import Iterable
from typing import Any

import httpcore2
import httpx2

# What the openai SDK's own client allows (openai/_constants.py, DEFAULT_CONNECTION_LIMITS).
LIMITS = httpx2.Limits(max_connections=1000, max_keepalive_connections=100)


class Connections(httpcore2.NetworkBackend):
    """httpcore's network backend, keeping every connection it opens until it is closed."""

    def __init__(self) -> None:
        self._backend = httpcore2.SyncBackend()
        self._lock = threading.Lock()
        self._open: set[_Kept] = set()
        self._cancelled = False

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore2.NetworkStream:
        self._refuse_if_cancelled()
        return self._kept(self._backend.connect_tcp(host, port, timeout, local_address, socket_options))

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore2.NetworkStream:
        self._refuse_if_cancelled()
        return self._kept(self._backend.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)

    def cancel(self) -> None:
        """Shut down every open connection (a read waiting on one ends at once) and refuse new ones."""
        with self._lock:
            self._cancelled = True
            kept = list(self._open)
        for stream in kept:
            stream.shut()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def open_count(self) -> int:
        with self._lock:
            return len(self._open)

    def _refuse_if_cancelled(self) -> None:
        if self._cancelled:
            raise httpcore2.ConnectError("the model client was stopped")

    def _kept(self, stream: httpcore2.NetworkStream) -> _Kept:
        kept = _Kept(stream, self)
        with self._lock:
            self._open.add(kept)
            cancelled = self._cancelled
        if cancelled:  # cancelled while this one connected: it is shut like the others
            kept.shut()
        return kept

    def _forget(self, stream: _Kept) -> None:
        with self._lock:
            self._open.discard(stream)


class _Kept(httpcore2.NetworkStream):
    """A connection as httpcore uses it, which the backend can shut down from another thread."""

    def __init__(self, stream: httpcore2.NetworkStream, owner: Connections) -> None:
        self._stream = stream
        self._owner = owner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, timeout)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, timeout)

    def close(self) -> None:
        if self._owner.cancelled:
            # A stopped command closes its clients while cancel() may still be shutting their
            # connections down: a socket closed first would leave its reader waiting.
            self.shut()
        self._owner._forget(self)
        self._stream.close()

    def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore2.NetworkStream:
        # TLS wraps the same socket (the plain one is detached), so this stream stays the kept one.
        self._stream = self._stream.start_tls(ssl_context, server_hostname, timeout)
        return self

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)

    def shut(self) -> None:
        sock = self._stream.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):  # already closed, or never connected
                sock.shutdown(socket.SHUT_RDWR)


class Transport(httpx2.HTTPTransport):
    """httpx's transport for the model client, over connections a stop can cut (`Connections`)."""

    def __init__(self, connections: Connections, limits: httpx2.Limits = LIMITS) -> None:
        super().__init__(limits=limits)
        # httpx2 builds its pool with no way to hand it a network backend: the same pool, with ours.
        self._pool = httpcore2.ConnectionPool(
            ssl_context=httpx2.create_ssl_context(),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=connections,
        )
