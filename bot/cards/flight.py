"""One fetch for many askers: the first takes a lease and does the work, the others wait for its
result in the store. Across threads and processes alike, since the lease lives in the KV.

A lease is short and renewed while its holder works (`Keeper`): a holder that dies (a worker
SIGKILLed mid-card) lets go within LOCK_SECONDS, not after the longest a card may take.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol, TypeVar

from bot.core.pacing import Pacing

log = logging.getLogger(__name__)

T = TypeVar("T")

WAIT_STEP_SECONDS = 0.05
# A held lease lives this long unless renewed; it is renewed every third of it.
LOCK_SECONDS = 30.0


class Leases(Protocol):
    def try_lock(self, name: str, ttl_seconds: float) -> str | None: ...

    def release(self, name: str, token: str) -> None: ...

    def lock_held(self, name: str) -> bool: ...

    def renew(self, name: str, token: str, ttl_seconds: float) -> bool: ...


class Keeper:
    """Renews the leases this process holds, from one thread that runs while any is held."""

    def __init__(self, leases: Leases, ttl_seconds: float = LOCK_SECONDS) -> None:
        self._leases = leases
        self._ttl = ttl_seconds
        self._held: dict[str, str] = {}
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @contextlib.contextmanager
    def holding(self, name: str, token: str) -> Iterator[None]:
        with self._lock:
            self._held[name] = token
            if self._thread is None:
                self._thread = threading.Thread(target=self._renew, name="lease-keeper", daemon=True)
                self._thread.start()
        try:
            yield
        finally:
            with self._lock:
                self._held.pop(name, None)

    def _renew(self) -> None:
        stopped = threading.Event()
        while not stopped.wait(self._ttl / 3):
            if not self.renew_held():
                return

    def renew_held(self) -> bool:
        """Renew every lease held now; False (and the thread ends) when none is."""
        with self._lock:
            held = dict(self._held)
            if not held:
                self._thread = None
                return False
        for name, token in held.items():
            try:
                if not self._leases.renew(name, token, self._ttl) and self._still_held(name, token):
                    log.warning("lease %s was lost while held; another process may repeat its work", name)
            except Exception as exc:  # Redis away: the lease may lapse, the work is then done twice
                log.warning("lease %s not renewed: %s", name, exc)
        return True

    def _still_held(self, name: str, token: str) -> bool:
        """Whether the lease is still this process's: one released after the copy above was
        taken (its work done) cannot be renewed, and was not lost."""
        with self._lock:
            return self._held.get(name) == token


@dataclass(frozen=True)
class Lease:
    """The lease one piece of work is made under: its name in the KV, and the longest the work
    may take (a holder still working after `seconds` is not waited for any longer)."""

    name: str
    seconds: float


def once(
    leases: Leases,
    lease: Lease,
    cached: Callable[[], T | None],
    make: Callable[[], T],
    *,
    pacing: Pacing,
    keeper: Keeper | None = None,
) -> T:
    """`cached()` when someone already made it, else `make()` by whoever holds `lease`.

    `make` must store what it makes where `cached` finds it. A holder that lets go without a
    result (its fetch failed) leaves the work to the next taker; a holder still working after
    `lease.seconds` (the longest the work may take) is not waited for any longer. With a
    `keeper`, the lease is short and renewed while held, so a dead holder lets go sooner.
    """
    name, lease_seconds = lease.name, lease.seconds
    clock, sleep = pacing.clock, pacing.sleep
    deadline = clock() + lease_seconds
    while True:
        token = leases.try_lock(name, LOCK_SECONDS if keeper else lease_seconds)
        if token is not None:
            try:
                with keeper.holding(name, token) if keeper else contextlib.nullcontext():
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
