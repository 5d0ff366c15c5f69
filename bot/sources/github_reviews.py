"""The review comments of a batch of PRs, read from the repository's listing in a few pages.

A digest is told which PRs it will fetch (`GitHubSource.expect`); their review comments then come
from GET /repos/{owner}/{repo}/pulls/comments ("List review comments in a repository":
sort=updated, direction=asc, since=the window's start less REVIEW_LEAD), read once for the batch
and handed to each PR by its pull_request_url, instead of one request per PR. Comments last
updated more than REVIEW_LEAD before the window opened (a long-running PR's early review) are not
in that listing; a PR fetched on its own (`card`, `/pr`) still reads all of its own.
This module holds the batches; the source reads the pages.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bot.models import Comment, PRRef, Window

# Most review happens in the day before a merge; a longer lead costs every digest more pages
# (vLLM gets a few hundred review comments a day, 100 a page).
REVIEW_LEAD = timedelta(days=1)
# A batch is one digest's: after this it is dropped, and its PRs are fetched one by one again.
BATCH_SECONDS = 600.0


@dataclass
class Batch:
    """PRs of one repository and window whose review comments are read together."""

    repo: str
    window: Window
    pending: set[int]  # PRs not fetched yet: keyless, their files come before any comment page
    born: float
    lock: threading.Lock = field(default_factory=threading.Lock)
    comments: dict[int, tuple[Comment, ...]] | None = None  # None until the listing is read

    @property
    def since(self) -> datetime:
        return self.window.start - REVIEW_LEAD


class Batches:
    """Which batch each expected PR belongs to, for BATCH_SECONDS."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._of: dict[tuple[str, int], Batch] = {}
        self._batches: dict[tuple[str, Window], Batch] = {}
        self._reading = 0  # fetches of batch PRs between `take` and `read`

    def expect(self, repo: str, window: Window, numbers: Iterable[int]) -> None:
        """`numbers` join the batch of (repo, window): ten channels' digests of one repository
        and day, built at once, read its review comments once."""
        with self._lock:
            self._drop_old()
            batch = self._batches.get((repo.lower(), window))
            if batch is None or batch.comments is not None:
                batch = Batch(repo, window, set(), self._clock())
                self._batches[(repo.lower(), window)] = batch
            for number in numbers:
                known = self._of.get((repo.lower(), number))
                if known is batch and number not in batch.pending:
                    continue  # fetched already, by another digest of this batch
                batch.pending.add(number)
                self._of[(repo.lower(), number)] = batch

    def take(self, ref: PRRef) -> Batch | None:
        """The batch `ref` belongs to, its fetch started (call `read` once its files are in);
        None: on its own."""
        with self._lock:
            self._drop_old()
            batch = self._of.get((ref.repo.lower(), ref.number))
            if batch is not None:
                batch.pending.discard(ref.number)
                self._reading += 1
            return batch

    def read(self, batch: Batch | None) -> None:
        """A fetch `take` started has its files (or failed)."""
        if batch is not None:
            with self._lock:
                self._reading -= 1

    def unread(self) -> int:
        """PRs of every live batch whose files are not in yet: not asked for, or in flight."""
        with self._lock:
            return self._reading + sum(len(batch.pending) for batch in self._batches.values())

    def _drop_old(self) -> None:
        now = self._clock()
        for key in [key for key, batch in self._of.items() if now - batch.born > BATCH_SECONDS]:
            del self._of[key]
        for name in [name for name, batch in self._batches.items() if now - batch.born > BATCH_SECONDS]:
            del self._batches[name]
