"""The card queue port: what services need of the shared queue (queue/broker.py CardQueue).

Protocols only: no vendor, no service, no store here, so adapters and services may both import it.
"""

from __future__ import annotations

from typing import Protocol

from bot.core.card_jobs import CardJob


class CardJobs(Protocol):
    """The shared card queue (queue/broker.py CardQueue): workers in any replica make the cards."""

    def submit(self, job: CardJob) -> bool:
        """Queue the job unless it is queued already. Raises StoreError when the queue is away."""
        ...

    def workers_alive(self) -> bool: ...
