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

    def expect(self, repo: str, window: Window, numbers: Iterable[int]) -> None:
        batch = Batch(repo, window, set(numbers), self._clock())
        with self._lock:
            self._drop_old()
            for number in batch.pending:
                self._of[(repo.lower(), number)] = batch

    def take(self, ref: PRRef) -> Batch | None:
        """The batch `ref` belongs to, no longer pending (its fetch starts now); None: on its own."""
        with self._lock:
            self._drop_old()
            batch = self._of.get((ref.repo.lower(), ref.number))
            if batch is not None:
                batch.pending.discard(ref.number)
            return batch

    def pending(self) -> int:
        """PRs of every live batch whose files have not been asked for yet."""
        with self._lock:
            return sum(len(batch.pending) for batch in {id(b): b for b in self._of.values()}.values())

    def _drop_old(self) -> None:
        now = self._clock()
        for key in [key for key, batch in self._of.items() if now - batch.born > BATCH_SECONDS]:
            del self._of[key]
