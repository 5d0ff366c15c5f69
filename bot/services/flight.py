"""One fetch for many askers: the first takes a lease and does the work, the others wait for its
result in the store. Across threads and processes alike, since the lease lives in the KV."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

T = TypeVar("T")

WAIT_STEP_SECONDS = 0.05


class Leases(Protocol):
    def try_lock(self, name: str, ttl_seconds: float) -> str | None: ...

    def release(self, name: str, token: str) -> None: ...

    def lock_held(self, name: str) -> bool: ...


def once(
    leases: Leases,
    name: str,
    lease_seconds: float,
    cached: Callable[[], T | None],
    make: Callable[[], T],
    *,
    sleep: Callable[[float], None],
    clock: Callable[[], float],
) -> T:
    """`cached()` when someone already made it, else `make()` by whoever holds the lease `name`.

    `make` must store what it makes where `cached` finds it. A holder that lets go without a
    result (its fetch failed) leaves the work to the next taker; a holder that outlives its
    lease is not waited for any longer.
    """
    deadline = clock() + lease_seconds
    while True:
        token = leases.try_lock(name, lease_seconds)
        if token is not None:
            try:
                # Another taker may have finished between our look-up and our lease.
                found = cached()
                return found if found is not None else make()
            finally:
                leases.release(name, token)
        while leases.lock_held(name) and clock() < deadline:
            sleep(WAIT_STEP_SECONDS)
            if (found := cached()) is not None:
                return found
        if (found := cached()) is not None:
            return found
        if clock() >= deadline:
            return make()
