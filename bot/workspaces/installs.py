"""InstallStarts: how many "Add to Slack" flows may start, from one client, one network and in all.

Each start is an unauthenticated GET that makes Bolt write an OAuth state to Redis, kept for the
state's lifetime so that Slack's redirect can finish it. Starts are counted in fixed windows:
ADDRESS_STARTS per client (an IPv4 address, an IPv6 /64) a minute, NETWORK_STARTS per network (an
IPv4 address, an IPv6 /48) and MAX_OUTSTANDING_STATES / 2 in all per state lifetime, so that no
more than MAX_OUTSTANDING_STATES states (this window's and the last one's) are outstanding, whoever
asks; the last RESERVED_STATES of a window are for networks that have not started in it yet.
Counting only: the surface answers a refusal with 429.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from bot.core.addresses import counted_as
from bot.store.kv import KV

# Someone installing loads the page once or twice, a reload or a second workspace more: ten in a
# minute leaves room for that, and makes one client's flood cost ten states a minute.
ADDRESS_STARTS = 10
ADDRESS_WINDOW_SECONDS = 60
# One IPv6 subscriber is given a /64 at least and a site a /48 at most (RFC 6177, RIPE-690): a
# client changing addresses within its /64, or its /64 within its /48, is counted once.
CLIENT_PREFIX = 64
NETWORK_PREFIX = 48
# One site starts a few installs in ten minutes: 25 leave room for a team trying several
# workspaces, and hold a network's flood (65,536 /64s of a /48, or one IPv4 address all window
# long) to 25 states rather than the window's 500.
NETWORK_STARTS = 25
# A state is about 230 bytes in Redis (its key, value and expiry): a thousand is under 250 kB.
MAX_OUTSTANDING_STATES = 1000
# The cap in all bounds Redis whoever asks, so 16 networks spending their 25 could still shut out
# everyone else. Its last 100 are for a network's first start in the window (one install needs
# one), so a client whose network has used none of its share gets in after the flood has spent the
# rest, until 100 more networks have each started once. A reserve needs no count of clients, as a
# share that shrinks with the number asking would.
RESERVED_STATES = 100


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
        wait_window = _seconds_left(now, self._state_seconds)
        in_all = f"oauth_states_issued:{window}"
        in_network = f"install_starts_network:{counted_as(address, NETWORK_PREFIX)}:{window}"
        per_window = MAX_OUTSTANDING_STATES // 2
        # Read first: a start the cap in all or its network's refuses writes nothing, so a flood
        # from new addresses past either costs Redis no new key.
        issued, used = int(self._kv.get(in_all) or 0), int(self._kv.get(in_network) or 0)
        if issued >= per_window or used >= NETWORK_STARTS or (used and issued >= per_window - RESERVED_STATES):
            return wait_window
        slot = int(now // ADDRESS_WINDOW_SECONDS)
        in_client = f"install_starts:{counted_as(address, CLIENT_PREFIX)}:{slot}"
        if self._kv.incr(in_client, ADDRESS_WINDOW_SECONDS * 1000) > ADDRESS_STARTS:
            return _seconds_left(now, ADDRESS_WINDOW_SECONDS)
        if self._kv.incr(in_network, self._state_seconds * 1000) > NETWORK_STARTS:
            return wait_window
        if self._kv.incr(in_all, self._state_seconds * 1000) > per_window:
            return wait_window
        return None


def _seconds_left(now: float, window_seconds: int) -> int:
    """Whole seconds until the fixed window holding `now` ends (at least 1)."""
    return max(1, math.ceil(window_seconds - now % window_seconds))
