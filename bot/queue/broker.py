"""CardQueue: card jobs on a Dramatiq broker, shared by every replica that runs a worker.

Dramatiq owns delivery: JSON messages, acknowledgement after the job, retries with exponential
backoff, and the jobs a dead worker had taken put back once its heartbeat stops. Ours are only
what Dramatiq does not know: that a (PR, language) is queued once, and whether any worker is
alive (so a digest waits for the queue instead of asking the model itself). Where the jobs and
those marks live is the backend's (queue/backends.py): Dramatiq's Redis broker on a single Redis,
or its RabbitMQ broker.

Redis keys, all under the configured namespace (`[queue] namespace`, docs/operations.md):
- {ns}:cards, {ns}:cards.msgs          Dramatiq's queue (message ids) and its messages
- {ns}:cards.DQ, {ns}:cards.DQ.msgs    jobs waiting for their retry (delayed)
- {ns}:cards.XQ, {ns}:cards.XQ.msgs    jobs that failed every retry (kept 7 days)
- {ns}:__heartbeats__, {ns}:__acks__.* Dramatiq's own: which broker holds which job
- {ns}:queued:…, {ns}:workers          the marks (queue/backends.py RedisBackend)
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import dramatiq
import dramatiq.errors
import redis

from bot.core.card_jobs import CardJob
from bot.errors import SourceError, StoreError
from bot.ops import telemetry
from bot.ops.logs import request_id
from bot.queue.backends import ALIVE_SECONDS, HEARTBEAT_SECONDS, QueueBackend

log = logging.getLogger(__name__)

# Retries: 2 s, 4 s, 8 s… up to 5 minutes apart, 6 tries in all (GitHub's rate limit, an outage).
MAX_RETRIES = 5
MIN_BACKOFF_MS = 2_000
MAX_BACKOFF_MS = 300_000
# A job runs no longer than this (the card's whole model budget fits well within it).
TIME_LIMIT_MS = 15 * 60_000


class RunningWorker:
    """A Dramatiq worker in this process, and its heartbeat; `stop()` finishes the jobs it holds."""

    def __init__(
        self, worker: dramatiq.Worker, threads: int, beat: Callable[[], None], forget: Callable[[], None]
    ) -> None:
        self.threads = threads
        self._worker = worker
        self._beat = beat
        self._forget = forget
        self._stopped = threading.Event()
        self._silent = False  # an outage already said
        self._thread = threading.Thread(target=self._beating, name="queue-heartbeat", daemon=True)

    def start(self) -> RunningWorker:
        """Starts even while Redis is away (serve must come up then too): Dramatiq's consumers
        retry their connection, and the heartbeat is written once Redis answers."""
        self._beat_once()
        self._worker.start()
        self._thread.start()
        return self

    @property
    def waiting_for_redis(self) -> bool:
        """Whether Redis did not answer the last heartbeat (the outage is logged once)."""
        return self._silent

    def _beating(self) -> None:
        while not self._stopped.wait(HEARTBEAT_SECONDS):
            self._beat_once()

    def _beat_once(self) -> None:
        try:
            self._beat()
        except StoreError as exc:
            if not self._silent:  # once per outage, not every beat
                log.warning("card worker waiting for Redis (%s): no card jobs until it answers", exc)
            self._silent = True
            return
        if self._silent:
            log.warning("Redis answers again: the card worker takes jobs")
        self._silent = False

    def stop(self, timeout_ms: int = 60_000) -> None:
        self._stopped.set()
        self._worker.stop(timeout=timeout_ms)
        with contextlib.suppress(StoreError):  # else the heartbeat simply ages out
            self._forget()


class CardQueue:
    def __init__(self, backend: QueueBackend, namespace: str, *, clock: Callable[[], float] = time.time) -> None:
        self.namespace = namespace
        self._backend = backend
        self._broker = backend.broker
        self._clock = clock
        self._handler: Callable[[CardJob], bool] | None = None
        self._actor: dramatiq.Actor[[dict[str, Any]], None] = dramatiq.Actor(
            self._perform,
            broker=self._broker,
            actor_name="card",
            queue_name=backend.queue_name,
            priority=0,
            options={
                "max_retries": MAX_RETRIES,
                "min_backoff": MIN_BACKOFF_MS,
                "max_backoff": MAX_BACKOFF_MS,
                "time_limit": TIME_LIMIT_MS,
            },
        )
        self._alive_at = -1.0
        self._alive = False
        self._alive_lock = threading.Lock()

    # -- asking ---------------------------------------------------------------------------

    def submit(self, job: CardJob) -> bool:
        """Queue the job unless the same (PR, language) is queued already; whether it was queued.
        Raises StoreError when the queue (or the store its marks are in) does not answer."""
        if not self._backend.claim(job.key):
            return False
        try:
            self._actor.send(job.to_json())
        except (redis.RedisError, dramatiq.errors.ConnectionError) as exc:
            self._backend.release(job.key)  # not queued: the next need of it may queue it
            raise StoreError(
                "error.queue_unreachable"
                if isinstance(exc, dramatiq.errors.ConnectionError)
                else "error.redis_unreachable",
                error=type(exc).__name__,
            ) from exc
        return True

    def workers_alive(self) -> bool:
        """Whether a worker has said it is alive in the last ALIVE_SECONDS (asked at most once a second)."""
        now = self._clock()
        with self._alive_lock:
            if now - self._alive_at < 1.0:
                return self._alive
            try:
                self._alive = self._backend.alive_since(now - ALIVE_SECONDS)
            except StoreError:
                self._alive = False  # no store, no queue: the asker does the work itself
            self._alive_at = now
            return self._alive

    def depth(self) -> int:
        """Jobs waiting: queued, or waiting for a retry."""
        return self._backend.depth()

    def oldest_age(self) -> float:
        """Seconds the oldest queued job has waited (0 when none waits); LookupError where the
        broker cannot say (RabbitMQ)."""
        return self._backend.oldest_age(self._clock())

    # -- working --------------------------------------------------------------------------

    def work(self, handler: Callable[[CardJob], bool], threads: int) -> RunningWorker:
        """Start a worker in this process: `threads` jobs at once, each given to `handler`, which
        says whether it did the job (False: dropped, as no retry would change it)."""
        self._handler = handler
        worker_id = uuid.uuid4().hex

        def beat() -> None:
            self._backend.beat(worker_id, self._clock())

        def forget() -> None:
            self._backend.forget(worker_id)

        worker = dramatiq.Worker(self._broker, queues={self._backend.queue_name}, worker_threads=threads)
        return RunningWorker(worker, threads, beat, forget).start()

    def _perform(self, payload: dict[str, Any]) -> None:
        try:
            job = CardJob.from_json(payload)
        except ValueError as exc:
            telemetry.count("jobs_total", outcome="dropped")
            log.warning("a card job prdigest did not write was dropped: %s", exc)
            return  # not ours: retrying would not make it ours
        handler = self._handler
        if handler is None:
            raise RuntimeError("card job delivered to a process that runs no worker")
        with request_id(f"job:{job.key}"):
            try:
                made = handler(job)
            except (SourceError, StoreError) as exc:
                # Expected (GitHub's or Redis' outage, a spent rate limit): one line, no traceback.
                # Retry is Dramatiq's way to be retried, within MAX_RETRIES, without logging one.
                telemetry.count("jobs_total", outcome="failed")
                log.warning("card job failed, tried again later: %s", exc)
                raise dramatiq.Retry(type(exc).__name__) from exc
            except BaseException:
                telemetry.count("jobs_total", outcome="failed")  # Dramatiq retries it, within MAX_RETRIES
                raise
            telemetry.count("jobs_total", outcome="done" if made else "dropped")
            log.debug("card job %s", "done" if made else "dropped")
            # Done: the card is in the store, and a later need of it may queue it again.
            self._backend.release(job.key)

    def close(self) -> None:
        self._backend.close()
