"""Deliveries: which of Slack's deliveries one workspace has already handled, by any replica.

Slack retries an event it thinks was not received, sends a mention twice (app_mention and
message), and a signed command or click can be replayed within the signature's five minutes.
Each is acted on once: the first replica to mark its key (in Redis) handles it. When Redis
cannot be reached nobody can tell a retry from a first delivery, so these fail closed.
"""

from __future__ import annotations

import logging

from bot.errors import StoreError
from bot.store.threads import ThreadStore

log = logging.getLogger(__name__)


class Deliveries:
    def __init__(self, threads: ThreadStore) -> None:
        self._threads = threads

    def first(self, key: str) -> bool:
        """Whether `key` (a trigger, an action, an event) is seen for the first time. Raises
        StoreError when Redis cannot be reached: the caller says what failing closed means."""
        return self._threads.first_delivery(key)

    def first_message(self, event_id: object, channel: object, ts: object) -> bool:
        """A person's message, delivered once as an event and once as its twin: the first of
        them only. False without Redis: nothing is answered rather than some questions twice
        (the outage is logged once, by the store)."""
        try:
            if isinstance(event_id, str) and event_id and not self.first(f"event:{event_id}"):
                return False
            return self.first(f"message:{channel}:{ts}")
        except StoreError:
            return False

    def first_event(self, event_id: object) -> bool:
        """An event retried by Slack is handled once; one without an id, or without Redis, not at all."""
        try:
            return isinstance(event_id, str) and bool(event_id) and self.first(f"event:{event_id}")
        except StoreError:
            return False
