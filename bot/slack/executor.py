"""Where Slack's listeners run: in the request's thread when they acknowledge themselves, and
their work on pools that know when they have nothing left to do.

Listeners acknowledge Slack at once and hand their work to pools; `idle()` says whether every
task handed over has finished, so shutdown and tests can wait for the app to settle instead of
sleeping and hoping. Each task runs in a copy of its submitter's context (the request id).

Listeners that acknowledge themselves (commands, actions, views) run in the request's thread
(`ack_in_place`). Bolt, with process_before_response off, hands every listener to its executor. For an event it
acknowledges first (auto-acknowledgement), so the HTTP answer never waits. For a slash command,
a button or a view submission the listener calls ack() itself, and the request's thread polls
for it every 10 ms (slack_bolt/listener/thread_runner.py): two thread hand-offs and a polling
loop, each needing the interpreter lock. Under load that made commands the slow half of the acks
(p99 with 20 at a time and a cold digest running: 265 ms for commands, 150 ms for mentions).

Our ack()-calling listeners only parse, ack and hand their work to a pool (slack/listeners), so
they run here as Bolt runs them with process_before_response on: in place, then the response.
Events keep Bolt's way: acknowledged at once, their listener (which reads Redis) in the pool.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, ParamSpec, TypeVar

from slack_bolt import App, BoltRequest, BoltResponse
from slack_bolt.listener import Listener
from slack_bolt.listener.thread_runner import ThreadListenerRunner

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


class AckInPlace(ThreadListenerRunner):
    def run(
        self,
        request: BoltRequest,
        response: BoltResponse,
        listener_name: str,
        listener: Listener,
        starting_time: float | None = None,
    ) -> BoltResponse | None:
        if listener.auto_acknowledgement or request.lazy_only:
            return super().run(request, response, listener_name, listener, starting_time)
        # A copy per request: the handlers stay shared (app.error sets them on the runner).
        in_place = copy.copy(self)
        in_place.process_before_response = True
        return ThreadListenerRunner.run(in_place, request, response, listener_name, listener, starting_time)


def ack_in_place(app: App) -> None:
    """Make `app` run its ack()-calling listeners in the request's thread (before app.error)."""
    runner = app.listener_runner
    fields: dict[str, Any] = {
        "logger": runner.logger,
        "process_before_response": runner.process_before_response,
        "listener_error_handler": runner.listener_error_handler,
        "listener_start_handler": runner.listener_start_handler,
        "listener_completion_handler": runner.listener_completion_handler,
        "listener_executor": runner.listener_executor,
        "lazy_listener_runner": runner.lazy_listener_runner,
    }
    app._listener_runner = AckInPlace(**fields)  # slack-bolt is pinned to 1.30.x (pyproject.toml)
