"""Timing: the clocks, retries and durations handed to what the wiring builds.

The defaults are production's; tests and the benchmark shorten them here instead of reaching
into private attributes.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from bot.core.pacing import Pacing, utc_now


@dataclass(frozen=True)
class Timing:
    """None means "the component's own default" (kept beside the behaviour it tunes)."""

    now: Callable[[], datetime] = utc_now
    # The clock and the sleep of waits measured in seconds (posting pace, card leases).
    monotonic: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    github_retries: int = 4
    github_backoff: float = 0.5
    github_rate_limit_wait: float | None = None
    # Seconds a card (or an answer) may wait for the model, retries included; None: the config's.
    model_timeout: float | None = None
    model_retries: int | None = None
    slack_timeout: float = 30.0
    # Seconds between two posts in one channel (Slack allows about one a second).
    pace: float | None = None
    post_lease_seconds: float | None = None
    scheduler_tick: float | None = None

    @property
    def pacing(self) -> Pacing:
        """The monotonic clock and the sleep, as the services that wait take them."""
        return Pacing(self.monotonic, self.sleep)
