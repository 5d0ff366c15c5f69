"""Pacing: the clock and the sleep a service waits by, as one value; and the wall clock every
part reads "now" from by default (kept here, at the bottom, so nothing calls up for it).

Every service that waits (for a lease, for the queue's workers, for Slack's pace) takes one, so a
test hands in a clock that stands still and a sleep that only records, and production the real
ones. Pure: no I/O beyond the two callables it holds.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(frozen=True)
class Pacing:
    """Seconds on a monotonic clock, and the sleep that lets them pass (production's by default)."""

    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep


# Production's clock and sleep: the default of every service that waits.
REAL_TIME = Pacing()


def utc_now() -> datetime:
    """The wall clock (tests and the benchmark hand their own)."""
    return datetime.now(UTC)
