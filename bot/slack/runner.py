"""Listeners that acknowledge themselves (commands, actions, views) run in the request's thread.

Bolt, with process_before_response off, hands every listener to its executor. For an event it
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
from typing import Any

from slack_bolt import App, BoltRequest, BoltResponse
from slack_bolt.listener import Listener
from slack_bolt.listener.thread_runner import ThreadListenerRunner


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
