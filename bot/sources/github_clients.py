"""ClientPerThread: one PyGithub client for each thread that asks GitHub.

PyGithub's client is not safe to share between threads: its connection object keeps the request
being made on itself (`request()` stores the verb and URL, `getresponse()` sends whatever is stored
then), so two threads asking at once may each get the other's answer, a PR's files under another
PR's number (PyGithub #2052, still open). Each thread gets its own client, all made alike; a
client is closed when its thread is gone, and every one left by `close()`. What GitHub last said
of the rate limit is read across all of them.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable

from github import Github


class ClientPerThread:
    def __init__(self, make: Callable[[], Github]) -> None:
        self._make = make
        self._local = threading.local()
        self._lock = threading.Lock()
        self._open: dict[int, Github] = {}
        self._closed = False
        # (reset, remaining, limit) of the newest reset any client has seen, lowest remaining.
        self._said: tuple[int, int, int] | None = None

    def get(self) -> Github:
        """This thread's client (made at its first request)."""
        client: Github | None = getattr(self._local, "client", None)
        if client is None:
            client = self._make()
            self._local.client = client
            with self._lock:
                self._open[id(client)] = client
            # A pool's threads end with their digest: their clients' sockets are closed then,
            # not left to the garbage collector.
            weakref.finalize(threading.current_thread(), self._drop, client)
        return client

    def rate_limiting(self) -> tuple[int, int, int]:
        """(remaining, limit, reset) as GitHub last said it to any client: the lowest remaining of
        the newest reset; limit -1 before any response said it."""
        with self._lock:
            clients = list(self._open.values())
            said = self._said
        for client in clients:
            said = _lower(said, client)
        if said is None:
            return -1, -1, 0
        reset, remaining, limit = said
        return remaining, limit, reset

    def close(self) -> None:
        with self._lock:
            self._closed = True
            clients, self._open = list(self._open.values()), {}
        for client in clients:
            client.close()

    def _drop(self, client: Github) -> None:
        with self._lock:
            self._said = _lower(self._said, client)
            still_open = self._open.pop(id(client), None) is not None
        if still_open:
            client.close()


def _lower(said: tuple[int, int, int] | None, client: Github) -> tuple[int, int, int] | None:
    requester = client.requester
    remaining, limit = requester.rate_limiting
    if limit < 0:
        return said
    reset = requester.rate_limiting_resettime
    if said is None or reset > said[0] or (reset == said[0] and remaining < said[1]):
        return reset, remaining, limit
    return said
