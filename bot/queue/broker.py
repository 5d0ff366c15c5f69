"""CardQueue: card jobs on Dramatiq's Redis broker, shared by every replica that runs a worker.

Dramatiq owns delivery: JSON messages, acknowledgement after the job, retries with exponential
backoff, and the jobs a dead worker had taken put back once its heartbeat stops. Ours are only
what Dramatiq does not know: that a (PR, language) is queued once, and whether any worker is
alive (so a digest waits for the queue instead of asking the model itself).

Keys, all under the configured namespace (`[queue] namespace`, README "Redis keys"):
- {ns}:cards, {ns}:cards.msgs          Dramatiq's queue (message ids) and its messages
- {ns}:cards.DQ, {ns}:cards.DQ.msgs    jobs waiting for their retry (delayed)
- {ns}:cards.XQ, {ns}:cards.XQ.msgs    jobs that failed every retry (kept 7 days)
- {ns}:__heartbeats__, {ns}:__acks__.* Dramatiq's own: which broker holds which job
- {ns}:queued:{repo}#{n}:{language}    JOB_DEDUPE_SECONDS: this card is queued; not again
- {ns}:workers                         a sorted set: worker id → its last heartbeat
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable
from typing import Any

import dramatiq
import redis
from dramatiq.brokers.redis import RedisBroker
from dramatiq.middleware import AgeLimit, Callbacks, Pipelines, Retries, ShutdownNotifications, TimeLimit

from bot.core.card_jobs import CardJob
from bot.errors import SourceError, StoreError
from bot.ops import telemetry
from bot.ops.logs import request_id
from bot.store.backends.redis_store import store_error

log = logging.getLogger(__name__)

QUEUE = "cards"
# A queued card is not queued again for this long; a job done (or given up) lets go sooner.
JOB_DEDUPE_SECONDS = 3600
# Retries: 2 s, 4 s, 8 s… up to 5 minutes apart, 6 tries in all (GitHub's rate limit, an outage).
MAX_RETRIES = 5
MIN_BACKOFF_MS = 2_000
MAX_BACKOFF_MS = 300_000
# A worker says it is alive this often; silent for three beats, it is taken for dead.
HEARTBEAT_SECONDS = 5.0
ALIVE_SECONDS = 3 * HEARTBEAT_SECONDS
# Dramatiq puts a dead worker's jobs back during its maintenance, run with this chance (in a
# million) on each queue command. A worker asks for jobs only when a thread is free (about once a
# second when idle), so at 5% a dead worker's jobs waited minutes; at 25% they are back within a
# few asks of its heartbeat_timeout. Maintenance is a few sorted-set reads.
MAINTENANCE_CHANCE = 250_000
HEARTBEAT_TIMEOUT_MS = 30_000
# A job runs no longer than this (the card's whole model budget fits well within it).
TIME_LIMIT_MS = 15 * 60_000


def build_broker(url: str, namespace: str) -> RedisBroker:
    """Dramatiq's Redis broker, with its middleware named here (no Prometheus exporter of its own)."""
    middleware = [AgeLimit(), TimeLimit(), ShutdownNotifications(), Callbacks(), Pipelines(), Retries()]
    return RedisBroker(  # type: ignore[no-untyped-call]
        url=url,
        namespace=namespace,
        middleware=middleware,
        heartbeat_timeout=HEARTBEAT_TIMEOUT_MS,
        maintenance_chance=MAINTENANCE_CHANCE,
    )


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
    def __init__(self, url: str, namespace: str, *, clock: Callable[[], float] = time.time) -> None:
        self.namespace = namespace
        self._broker = build_broker(url, namespace)
        self._client: redis.Redis = self._broker.client
        self._clock = clock
        self._handler: Callable[[CardJob], bool] | None = None
        self._actor: dramatiq.Actor[[dict[str, Any]], None] = dramatiq.Actor(
            self._perform,
            broker=self._broker,
            actor_name="card",
            queue_name=QUEUE,
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

    def _key(self, name: str) -> str:
        return f"{self.namespace}:{name}"

    # -- asking ---------------------------------------------------------------------------

    def submit(self, job: CardJob) -> bool:
        """Queue the job unless the same (PR, language) is queued already; whether it was queued.
        Raises StoreError when Redis does not answer."""
        try:
            if not self._client.set(self._key(f"queued:{job.key}"), b"1", nx=True, ex=JOB_DEDUPE_SECONDS):
                return False
            self._actor.send(job.to_json())
        except redis.RedisError as exc:
            raise store_error(exc) from exc
        return True

    def workers_alive(self) -> bool:
        """Whether a worker has said it is alive in the last ALIVE_SECONDS (asked at most once a second)."""
        now = self._clock()
        with self._alive_lock:
            if now - self._alive_at < 1.0:
                return self._alive
            try:
                self._alive = self._client.zcount(self._key("workers"), now - ALIVE_SECONDS, "+inf") > 0
            except redis.RedisError:
                self._alive = False  # no Redis, no queue: the asker does the work itself
            self._alive_at = now
            return self._alive

    def depth(self) -> int:
        """Jobs waiting: queued, or waiting for a retry."""
        try:
            return int(self._client.llen(self._key(QUEUE))) + int(self._client.zcard(self._key(f"{QUEUE}.DQ")))
        except redis.RedisError as exc:
            raise store_error(exc) from exc

    def oldest_age(self) -> float:
        """Seconds the oldest queued job has waited (0 when none waits)."""
        try:
            first = self._client.lindex(self._key(QUEUE), 0)
            raw = self._client.hget(self._key(f"{QUEUE}.msgs"), first) if first is not None else None
        except redis.RedisError as exc:
            raise store_error(exc) from exc
        if raw is None:
            return 0.0
        try:
            enqueued = float(json.loads(raw)["message_timestamp"]) / 1000
        except (ValueError, KeyError, TypeError):
            return 0.0
        return max(0.0, self._clock() - enqueued)

    # -- working --------------------------------------------------------------------------

    def work(self, handler: Callable[[CardJob], bool], threads: int) -> RunningWorker:
        """Start a worker in this process: `threads` jobs at once, each given to `handler`, which
        says whether it did the job (False: dropped, as no retry would change it)."""
        self._handler = handler
        worker_id = uuid.uuid4().hex
        key = self._key("workers")

        def beat() -> None:
            now = self._clock()
            try:
                pipe = self._client.pipeline()
                pipe.zadd(key, {worker_id: now})
                pipe.zremrangebyscore(key, "-inf", now - 10 * ALIVE_SECONDS)  # the long dead
                pipe.execute()
            except redis.RedisError as exc:
                raise store_error(exc) from exc

        def forget() -> None:
            try:
                self._client.zrem(key, worker_id)
            except redis.RedisError as exc:
                raise store_error(exc) from exc

        worker = dramatiq.Worker(self._broker, queues={QUEUE}, worker_threads=threads)
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
            with contextlib.suppress(redis.RedisError):  # else the mark expires by itself
                self._client.delete(self._key(f"queued:{job.key}"))

    def close(self) -> None:
        self._broker.close()
        # Dramatiq's RedisBroker.close() does nothing, and redis-py leaves a pool it was handed
        # open when its client closes: the pool's connections would be left to the garbage
        # collector, which may finalize a socket before the connection that would have closed it.
        self._client.connection_pool.disconnect()
