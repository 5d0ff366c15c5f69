"""What a long-running process pays before it serves: the model SDK and the pools' threads."""

from __future__ import annotations

import threading

from bot.llm.lazy import ModelOnFirstUse
from bot.slack.executor import CountingExecutor


class _Client:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


def test_warm_makes_the_client_once_and_asks_nothing() -> None:
    made: list[_Client] = []

    def connect() -> _Client:
        made.append(_Client())
        return made[-1]

    model = ModelOnFirstUse("gpt-4o-mini", connect)  # type: ignore[arg-type]  # a stand-in client
    model.warm()
    model.warm()
    assert len(made) == 1
    model.close()
    assert made[0].closed


def test_prestart_starts_every_thread_and_leaves_the_pool_idle_and_working() -> None:
    pool = CountingExecutor(8, "test")
    try:
        before = threading.active_count()
        pool.prestart()
        assert threading.active_count() - before == 8
        assert pool.idle()
        assert pool.submit(lambda: 41 + 1).result(timeout=5) == 42
        assert threading.active_count() - before == 8  # an idle thread took it
    finally:
        pool.shutdown(wait=True)
