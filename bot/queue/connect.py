"""The card queue, made only by a process that has a queue to use (QUEUE_URL, or REDIS_URL's).

dramatiq and redis-py take about 60 ms to import, a fifth of a terminal digest that needs no
queue. So they are imported here, when the queue is made, as llm/lazy.py does for the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.store.kv import KV

if TYPE_CHECKING:
    from bot.queue.broker import CardQueue

# QUEUE_URL's schemes for Dramatiq's RabbitMQ broker; every other URL is a Redis one.
AMQP_SCHEMES = ("amqp://", "amqps://")


def card_queue(url: str, namespace: str, kv: KV) -> CardQueue:
    """The card jobs every replica shares, at `url` (the caller closes it): a single Redis, or
    RabbitMQ (amqp://), whose marks are kept in `kv`, the store every replica shares."""
    from bot.queue.backends import QueueBackend, RabbitmqBackend, RedisBackend
    from bot.queue.broker import CardQueue

    backend: QueueBackend
    backend = RabbitmqBackend(url, namespace, kv) if url.startswith(AMQP_SCHEMES) else RedisBackend(url, namespace)
    return CardQueue(backend, namespace)
