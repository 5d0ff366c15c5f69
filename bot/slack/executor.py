"""A thread pool that knows when it has nothing left to do.

Listeners acknowledge Slack at once and hand their work to pools; `idle()` says whether every
task handed over has finished, so shutdown and tests can wait for the app to settle instead of
sleeping and hoping. Each task runs in a copy of its submitter's context (the request id).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from bot.ops.logs import carried

P = ParamSpec("P")
T = TypeVar("T")


class CountingExecutor(ThreadPoolExecutor):
    def __init__(self, max_workers: int, thread_name_prefix: str) -> None:
        super().__init__(max_workers=max_workers, thread_name_prefix=thread_name_prefix)
        self._lock = threading.Lock()
        self._pending = 0

    def submit(self, fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> Future[T]:
        with self._lock:
            self._pending += 1
        try:
            # The submitter's context goes along (the request id of the Slack request whose work
            # this is: bot/ops/logs.py); Bolt hands its listeners over through here too.
            future = super().submit(carried(fn), *args, **kwargs)
        except BaseException:
            self._done()
            raise
        future.add_done_callback(lambda _future: self._done())
        return future

    def prestart(self) -> None:
        """Start every thread now. A pool starts its threads one per submit while none is idle,
        and each start waits for the new thread to take the interpreter lock: the first burst of
        requests after a start paid for thirty of them. Each task below holds its thread until
        all are running, so every submit starts one."""
        barrier = threading.Barrier(self._max_workers + 1)
        for _ in range(self._max_workers):
            super().submit(barrier.wait)
        barrier.wait()

    def _done(self) -> None:
        with self._lock:
            self._pending -= 1

    def idle(self) -> bool:
        """True when every task submitted so far has finished (or was cancelled)."""
        with self._lock:
            return self._pending == 0
