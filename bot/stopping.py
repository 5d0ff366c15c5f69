"""Stop a long-running command (serve, worker) on SIGTERM or SIGINT, from the main thread only."""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


def stop_on_signals(stop: Callable[[], None]) -> None:
    if threading.current_thread() is not threading.main_thread():
        return  # tests run servers in threads; signals belong to the main thread

    def handler(signum: int, frame: object) -> None:
        log.warning("stopping on signal %s", signum)
        stop()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
