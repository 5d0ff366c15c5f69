"""PostLease: the right to post one channel's digest for one day, held by one process.

Short and renewed: a heartbeat extends it while the digest is built and posted, so a replica
that dies lets another take over within one lease time, and a live one keeps it however long
the model takes. A holder that loses it (it stalled past the lease) stops before its next post;
so does one that cannot reach Redis to renew it, since another replica may take it meanwhile.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import uuid
from types import TracebackType

from bot.errors import PublishError, StoreError
from bot.store.ledger import PostLedger

log = logging.getLogger(__name__)

# A dead poster's channel waits at most this long (plus a scheduler tick) for another replica.
POST_LEASE_SECONDS = 60.0


class LeaseLost(PublishError):
    """Another process took the lease over (or it could not be renewed): stop posting."""


class PostLease:
    def __init__(self, ledger: PostLedger, channel: str, day: str, ttl: float = POST_LEASE_SECONDS) -> None:
        self._ledger = ledger
        self._channel = channel
        self._day = day
        self._ttl = ttl
        self._token = uuid.uuid4().hex
        self._stop = threading.Event()
        self._lost = threading.Event()
        self._heartbeat = threading.Thread(target=self._beat, name=f"lease-{channel}", daemon=True)

    def acquire(self) -> bool:
        """Take the lease; False when another process holds it. StoreError when Redis is away."""
        if not self._ledger.take_lease(self._channel, self._day, self._token, self._ttl):
            return False
        self._heartbeat.start()
        return True

    def check(self) -> None:
        """Raise before posting if the lease went to someone else."""
        if self._lost.is_set():
            raise LeaseLost("error.lease_lost", channel=self._channel)

    def claim(self, name: str) -> None:
        """Mark `name` pending in the ledger, in one step with the check that the lease is still
        ours: a holder that stalled past its lease cannot post after whoever took it over."""
        self.check()
        if not self._ledger.claim(self._channel, self._day, name, self._token):
            self._lost.set()
            raise LeaseLost("error.lease_lost", channel=self._channel)

    def _beat(self) -> None:
        while not self._stop.wait(self._ttl / 3):
            try:
                renewed = self._ledger.renew_lease(self._channel, self._day, self._token, self._ttl)
            except StoreError:
                renewed = False
            if not renewed:
                log.warning("lost the posting lease of %s for %s", self._channel, self._day)
                self._lost.set()
                return

    def __enter__(self) -> PostLease:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._stop.set()
        if self._heartbeat.is_alive():
            self._heartbeat.join(timeout=5)
        if not self._lost.is_set() and self._heartbeat.ident is not None:
            with contextlib.suppress(StoreError):  # Redis away: it expires by itself within one lease time
                self._ledger.release_lease(self._channel, self._day, self._token)
