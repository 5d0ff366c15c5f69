"""Scheduler: posts each configured channel's digest at its local time, in every replica.

Every replica runs one; the post lease and the ledger make sure exactly one of them posts a
given (channel, day). A replica that starts after post time still posts that day's digest.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from bot.errors import PrdigestError
from bot.slack.channels import ChannelPlan
from bot.slack.digests import ChannelDigests

log = logging.getLogger(__name__)

# Digests are due at minute granularity; checking twice a minute is prompt and costs a few
# Redis reads per channel.
TICK_SECONDS = 30.0
PARALLEL_CHANNELS = 4
# After a failed run (GitHub or Slack down), try that channel again this much later.
RETRY_SECONDS = 600.0


class Scheduler:
    def __init__(self, plans: tuple[ChannelPlan, ...], digests: ChannelDigests, *, tick: float = TICK_SECONDS) -> None:
        self._plans = plans
        self._digests = digests
        self._tick = tick
        self._stop = threading.Event()
        self._running: set[str] = set()
        self._retry_at: dict[str, float] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(max_workers=PARALLEL_CHANNELS, thread_name_prefix="digest")
        self._thread = threading.Thread(target=self._loop, name="scheduler", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _loop(self) -> None:
        while not self._stop.is_set():
            self.tick()
            self._stop.wait(self._tick)

    def tick(self) -> None:
        for plan in self._plans:
            with self._lock:
                if plan.id in self._running or time.monotonic() < self._retry_at.get(plan.id, 0.0):
                    continue
            try:
                due = self._digests.due(plan)
            except Exception:  # a bad tick must not end the loop
                log.exception("could not check whether %s is due", plan.id)
                continue
            if due:
                with self._lock:
                    self._running.add(plan.id)
                self._pool.submit(self._run, plan)

    def _run(self, plan: ChannelPlan) -> None:
        try:
            result = self._digests.run_scheduled(plan)
            if result is not None:
                log.info("digest for %s: %d messages posted, %d already there", plan.id, result.posted, result.already)
        except PrdigestError as exc:
            log.warning("digest for %s failed, retrying in %.0f s: %s", plan.id, RETRY_SECONDS, exc)
            self._retry_at[plan.id] = time.monotonic() + RETRY_SECONDS
        except Exception:
            log.exception("digest for %s failed", plan.id)
            self._retry_at[plan.id] = time.monotonic() + RETRY_SECONDS
        finally:
            with self._lock:
                self._running.discard(plan.id)
