"""InstallStarts: how many "Add to Slack" flows may start, from one client address and in all.

Each start is an unauthenticated GET that makes Bolt write an OAuth state to Redis, kept for the
state's lifetime so that Slack's redirect can finish it. Starts are counted in fixed windows:
ADDRESS_STARTS per address per ADDRESS_WINDOW_SECONDS, and MAX_OUTSTANDING_STATES / 2 in all per
state lifetime, so that no more than MAX_OUTSTANDING_STATES states (this window's and the last
one's) are outstanding, whoever asks. Counting only: the surface answers a refusal with 429.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from bot.store.kv import KV

# Someone installing loads the page once or twice, a reload or a second workspace more: ten in a
# minute leaves room for that, and makes one address's flood cost ten states a minute.
ADDRESS_STARTS = 10
ADDRESS_WINDOW_SECONDS = 60
# A state is about 230 bytes in Redis (its key, value and expiry): a thousand is under 250 kB.
MAX_OUTSTANDING_STATES = 1000


class InstallStarts:
    def __init__(self, kv: KV, state_seconds: int, *, clock: Callable[[], float] = time.time) -> None:
        # Strict: with Redis away no state could be written either, and a count we cannot read
        # must not let everyone through.
        self._kv = kv.strict()
        self._state_seconds = state_seconds
        self._clock = clock

    def admit(self, address: str) -> int | None:
        """None when a start from `address` may write its state now; else the seconds until one
        may (for Retry-After). Raises StoreError when Redis does not answer."""
        now = self._clock()
        window = int(now // self._state_seconds)
        in_all = f"oauth_states_issued:{window}"
        wait_all = _seconds_left(now, self._state_seconds)
        per_window = MAX_OUTSTANDING_STATES // 2
        # Read first: once the cap is reached, a flood from new addresses writes nothing more.
        if int(self._kv.get(in_all) or 0) >= per_window:
            return wait_all
        slot = int(now // ADDRESS_WINDOW_SECONDS)
        if self._kv.incr(f"install_starts:{address}:{slot}", ADDRESS_WINDOW_SECONDS * 1000) > ADDRESS_STARTS:
            return _seconds_left(now, ADDRESS_WINDOW_SECONDS)
        if self._kv.incr(in_all, self._state_seconds * 1000) > per_window:
            return wait_all
        return None


def _seconds_left(now: float, window_seconds: int) -> int:
    """Whole seconds until the fixed window holding `now` ends (at least 1)."""
    return max(1, math.ceil(window_seconds - now % window_seconds))
