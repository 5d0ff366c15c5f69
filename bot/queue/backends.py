"""Where the card queue's jobs and its own marks live: Dramatiq's Redis broker with the marks beside
its keys, or Dramatiq's RabbitMQ broker with the marks in the store (REDIS_URL, a cluster maybe).

The marks are what Dramatiq does not keep: a (PR, language) queued once, and each worker's last
heartbeat. Each backend also says how many jobs wait and, where the broker can tell, how long the
oldest has waited.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from typing import Protocol, TypeVar

import dramatiq
import redis
from dramatiq.middleware import AgeLimit, Callbacks, Pipelines, Retries, ShutdownNotifications, TimeLimit

from bot.errors import StoreError
from bot.store.backends.redis_store import store_error
from bot.store.kv import KV

T = TypeVar("T")

QUEUE = "cards"
# A queued card is not queued again for this long; a job done (or given up) lets go sooner.
JOB_DEDUPE_SECONDS = 3600
# A worker says it is alive this often; silent for three beats, it is taken for dead.
HEARTBEAT_SECONDS = 5.0
ALIVE_SECONDS = 3 * HEARTBEAT_SECONDS
# Dramatiq puts a dead worker's jobs back during its maintenance, run with this chance (in a
# million) on each queue command. A worker asks for jobs only when a thread is free (about once a
# second when idle), so at 5% a dead worker's jobs waited minutes; at 25% they are back within a
# few asks of its heartbeat_timeout. Maintenance is a few sorted-set reads.
MAINTENANCE_CHANCE = 250_000
HEARTBEAT_TIMEOUT_MS = 30_000


def middleware() -> list[dramatiq.Middleware]:
    """Dramatiq's middleware, named here (no Prometheus exporter of its own)."""
    return [AgeLimit(), TimeLimit(), ShutdownNotifications(), Callbacks(), Pipelines(), Retries()]


class QueueBackend(Protocol):
    broker: dramatiq.Broker
    queue_name: str

    def claim(self, key: str) -> bool:
        """Mark a card queued unless it is; True when this call marked it. StoreError when away."""

    def release(self, key: str) -> None:
        """Forget the mark (the job is done); best effort: else it expires."""

    def beat(self, worker: str, now: float) -> None:
        """The worker is alive at `now`. StoreError when away."""

    def forget(self, worker: str) -> None:
        """The worker stopped. StoreError when away."""

    def alive_since(self, since: float) -> bool:
        """Whether any worker beat since `since`. StoreError when away."""

    def depth(self) -> int:
        """Jobs waiting, retries included. StoreError when away."""

    def oldest_age(self, now: float) -> float:
        """Seconds the oldest waiting job has waited; LookupError where the broker cannot say."""

    def close(self) -> None: ...


class RedisBackend:
    """Dramatiq's Redis broker at `url` (a single node), the marks under its namespace:
    - {ns}:queued:{repo}#{n}:{language}    JOB_DEDUPE_SECONDS: this card is queued; not again
    - {ns}:workers                         a sorted set: worker id → its last heartbeat
    """

    queue_name = QUEUE

    def __init__(self, url: str, namespace: str) -> None:
        from dramatiq.brokers.redis import RedisBroker

        self.namespace = namespace
        self.broker: dramatiq.Broker = RedisBroker(  # type: ignore[no-untyped-call]
            url=url,
            namespace=namespace,
            middleware=middleware(),
            heartbeat_timeout=HEARTBEAT_TIMEOUT_MS,
            maintenance_chance=MAINTENANCE_CHANCE,
        )
        self._client: redis.Redis = self.broker.client

    def _key(self, name: str) -> str:
        return f"{self.namespace}:{name}"

    def _call(self, action: Callable[[], T]) -> T:
        try:
            return action()
        except redis.RedisError as exc:
            raise store_error(exc) from exc

    def claim(self, key: str) -> bool:
        return bool(
            self._call(lambda: self._client.set(self._key(f"queued:{key}"), b"1", nx=True, ex=JOB_DEDUPE_SECONDS))
        )

    def release(self, key: str) -> None:
        with contextlib.suppress(redis.RedisError):  # else the mark expires by itself
            self._client.delete(self._key(f"queued:{key}"))

    def beat(self, worker: str, now: float) -> None:
        def write() -> None:
            pipe = self._client.pipeline()
            pipe.zadd(self._key("workers"), {worker: now})
            pipe.zremrangebyscore(self._key("workers"), "-inf", now - 10 * ALIVE_SECONDS)  # the long dead
            pipe.execute()

        self._call(write)

    def forget(self, worker: str) -> None:
        self._call(lambda: self._client.zrem(self._key("workers"), worker))

    def alive_since(self, since: float) -> bool:
        return int(self._call(lambda: self._client.zcount(self._key("workers"), since, "+inf"))) > 0

    def depth(self) -> int:
        waiting = self._call(
            lambda: (self._client.llen(self._key(QUEUE)), self._client.zcard(self._key(f"{QUEUE}.DQ")))
        )
        return int(waiting[0]) + int(waiting[1])

    def oldest_age(self, now: float) -> float:
        def read() -> bytes | str | None:
            first = self._client.lindex(self._key(QUEUE), 0)
            return self._client.hget(self._key(f"{QUEUE}.msgs"), first) if first is not None else None

        raw = self._call(read)
        if raw is None:
            return 0.0
        try:
            enqueued = float(json.loads(raw)["message_timestamp"]) / 1000
        except (ValueError, KeyError, TypeError):
            return 0.0
        return max(0.0, now - enqueued)

    def close(self) -> None:
        self.broker.close()
        # Dramatiq's RedisBroker.close() does nothing, and redis-py leaves a pool it was handed
        # open when its client closes: the pool's connections would be left to the garbage
        # collector, which may finalize a socket before the connection that would have closed it.
        self._client.connection_pool.disconnect()


class RabbitmqBackend:
    """Dramatiq's RabbitMQ broker at `url` (amqp://), its queue named after the namespace; the marks
    in the store, which every replica shares (a Redis Cluster too):
    - jobs_queued:{repo}#{n}:{language}    JOB_DEDUPE_SECONDS: this card is queued; not again
    - jobs_workers                         a hash: worker id → its last heartbeat
    """

    def __init__(self, url: str, namespace: str, kv: KV) -> None:
        from dramatiq.brokers.rabbitmq import RabbitmqBroker

        # Dramatiq's queue names are letters, digits, ".", "_" and "-": "prdigest:jobs" → "prdigest.jobs.cards".
        self.queue_name = f"{namespace.replace(':', '.')}.{QUEUE}"
        # confirm_delivery: a job is sent once RabbitMQ has it, and a queue deleted meanwhile is declared again.
        self.broker: dramatiq.Broker = RabbitmqBroker(url=url, middleware=middleware(), confirm_delivery=True)
        self._marks = kv.strict()

    def claim(self, key: str) -> bool:
        return self._marks.set_nx(f"jobs_queued:{key}", b"1", JOB_DEDUPE_SECONDS * 1000)

    def release(self, key: str) -> None:
        with contextlib.suppress(StoreError):  # else the mark expires by itself
            self._marks.delete(f"jobs_queued:{key}")

    def beat(self, worker: str, now: float) -> None:
        self._marks.hset("jobs_workers", worker, repr(now).encode(), ttl=int(10 * ALIVE_SECONDS))
        for other, seen in self._marks.hgetall("jobs_workers").items():
            if _seconds(seen) < now - 10 * ALIVE_SECONDS:
                self._marks.hdel("jobs_workers", other)  # the long dead

    def forget(self, worker: str) -> None:
        self._marks.hdel("jobs_workers", worker)

    def alive_since(self, since: float) -> bool:
        return any(_seconds(seen) >= since for seen in self._marks.hgetall("jobs_workers").values())

    def depth(self) -> int:
        from pika.exceptions import AMQPError  # type: ignore[import-untyped]

        try:
            ready, delayed, _dead = self.broker.get_queue_message_counts(self.queue_name)  # type: ignore[attr-defined]
        except AMQPError as exc:
            raise StoreError("error.queue_unreachable", error=type(exc).__name__) from exc
        return int(ready) + int(delayed)

    def oldest_age(self, now: float) -> float:
        raise LookupError("RabbitMQ does not say how long its oldest message has waited")

    def close(self) -> None:
        self.broker.close()


def _seconds(raw: bytes) -> float:
    try:
        return float(raw)
    except ValueError:
        return 0.0
