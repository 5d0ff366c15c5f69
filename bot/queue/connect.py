"""The card queue, made only by a process that has REDIS_URL.

dramatiq and redis-py take about 60 ms to import, a fifth of a terminal digest that needs no
queue. So they are imported here, when the queue is made, as llm/lazy.py does for the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.queue.broker import CardQueue


def card_queue(url: str, namespace: str) -> CardQueue:
    """The card jobs every replica shares, in Redis at `url` (the caller closes it)."""
    from bot.queue.broker import CardQueue

    return CardQueue(url, namespace)
