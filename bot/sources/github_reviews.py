"""The review comments of a batch of PRs, read from the repository's listing in a few pages.

A digest is told which PRs it will fetch (`GitHubSource.expect`); their review comments then come
from GET /repos/{owner}/{repo}/pulls/comments ("List review comments in a repository":
sort=updated, direction=asc, since=the window's start less REVIEW_LEAD), read once for the batch
and handed to each PR by its pull_request_url, instead of one request per PR. Comments last
updated more than REVIEW_LEAD before the window opened (a long-running PR's early review) are not
in that listing; a PR fetched on its own (`card`, `/pr`) still reads all of its own.
Without a token, one request is kept for the files of each PR not read yet: the comment pages
take what is left of the hour.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from itertools import islice
from typing import Any

from github.PullRequestComment import PullRequestComment

from bot.errors import SourceError
from bot.models import Comment, PRRef, Window
from bot.ops.logs import carried
from bot.sources.github_clients import ClientPerThread
from bot.sources.github_pages import Pages, first_url, next_url, numbered_after

log = logging.getLogger(__name__)

# Most review happens in the day before a merge; a longer lead costs every digest more pages
# (vLLM gets a few hundred review comments a day, 100 a page).
REVIEW_LEAD = timedelta(days=1)
# A batch is one digest's: after this it is dropped, and its PRs are fetched one by one again.
BATCH_SECONDS = 600.0
# GitHub's largest page (docs: "per_page ... max 100").
PER_PAGE = 100
# With a token, a batch's review comments stop after this many pages (10,000 comments).
MAX_REVIEW_PAGES = 100
# With a token, the pages after the first are asked this many at a time: within the source's few
# requests at once (each takes one of its slots), and at most this less one asked past the window.
AHEAD_PAGES = 3


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
            # A batch already read serves a digest of the same window that starts a moment later
            # (ten channels are never started at exactly once): its listing has their PRs too.
            batch = self._batches.get((repo.lower(), window))
            if batch is None:
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


class Reviews:
    """The batches of one source and the reading of their review comments. `guard(what)` is the
    source's: one of its few requests at a time, errors translated into ours."""

    def __init__(
        self,
        clients: ClientPerThread,
        pages: Pages,
        *,
        authenticated: bool,
        guard: Callable[[str], AbstractContextManager[None]],
    ) -> None:
        self._clients = clients
        self._pages = pages
        self._authenticated = authenticated
        self._guard = guard
        self._batches = Batches()
        self._lock = threading.Lock()
        self._remaining: tuple[int, int] | None = None  # (reset, lowest X-RateLimit-Remaining seen)

    def expect(self, repo: str, window: Window, numbers: Iterable[int]) -> None:
        self._batches.expect(repo, window, numbers)

    def take(self, ref: PRRef) -> Batch | None:
        return self._batches.take(ref)

    def read(self, batch: Batch | None) -> None:
        """A PR's files are in (or failed): its request no longer needs keeping."""
        self._batches.read(batch)
        self._note_remaining()

    def comments(self, batch: Batch) -> dict[int, tuple[Comment, ...]]:
        """The batch's review comments by PR number, read on first use (once per batch)."""
        with batch.lock:
            if batch.comments is None:
                batch.comments = self._read(batch)
            return batch.comments

    def _read(self, batch: Batch) -> dict[int, tuple[Comment, ...]]:
        """As many pages as the budget allows: a digest without review comments is complete,
        one without files is not. A failure keeps what was read."""
        parameters = {
            "sort": "updated",
            "direction": "asc",
            "since": batch.since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "per_page": str(PER_PAGE),
        }
        found: dict[int, list[tuple[datetime, Comment]]] = {}
        what = f"{batch.repo} review comments"
        url: str | None = first_url(f"/repos/{batch.repo}/pulls/comments", parameters)
        read = 0
        try:
            # Every card of the batch waits for these pages: with a token, those after the first
            # are asked a few at a time (GitHub numbers them), and read in order as before.
            if self._authenticated and url is not None:
                body, link = self._one(what, url)
                read = 1
                if not isinstance(body, list) or not self._file(body, batch.window, found):
                    return _by_number(found)
                if rest := numbered_after(link):
                    return self._ahead(what, rest, batch.window, found)
                url = next_url(link)  # not numbered (a cursor): one page after another
            while url is not None and self._may_read(read):
                body, link = self._one(what, url)
                read += 1
                if not isinstance(body, list) or not self._file(body, batch.window, found):
                    break
                url = next_url(link)
        except SourceError as exc:
            log.warning("review comments of %s stopped after %d pages: %s", batch.repo, read, type(exc).__name__)
        return _by_number(found)

    def _one(self, what: str, url: str) -> tuple[Any, str]:
        with self._guard(what):
            page = self._pages.page(url)
        self._note_remaining()
        return page

    def _ahead(
        self, what: str, urls: list[str], window: Window, found: dict[int, list[tuple[datetime, Comment]]]
    ) -> dict[int, tuple[Comment, ...]]:
        """The pages at `urls`, AHEAD_PAGES asked at once, filed in order until one passes the
        window (at most AHEAD_PAGES - 1 asked for nothing) or MAX_REVIEW_PAGES are read."""
        wanted = iter(urls[: MAX_REVIEW_PAGES - 1])
        pool = ThreadPoolExecutor(max_workers=AHEAD_PAGES, thread_name_prefix="comments")
        read = 1
        try:
            pending = deque(pool.submit(carried(self._one), what, url) for url in islice(wanted, AHEAD_PAGES))
            while pending:
                body, _ = pending.popleft().result()
                read += 1
                if not isinstance(body, list) or not self._file(body, window, found):
                    break
                if (url := next(wanted, None)) is not None:
                    pending.append(pool.submit(carried(self._one), what, url))
        except SourceError as exc:
            log.warning("review comments stopped after %d pages: %s", read, type(exc).__name__)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
        return _by_number(found)

    def _file(self, page: list[Any], window: Window, found: dict[int, list[tuple[datetime, Comment]]]) -> bool:
        """File a page's comments under their PR numbers; False once the listing passed the window."""
        for raw in page:
            item = self._clients.get().create_from_raw_data(PullRequestComment, raw)
            updated = _utc(item.updated_at) if item.updated_at else window.start
            if updated >= window.end:
                return False  # sorted by update: every later one was updated after the window
            number = _number_of(item.pull_request_url)
            if number is not None:
                created = _utc(item.created_at) if item.created_at else updated
                found.setdefault(number, []).append((created, comment_of(item)))
        return len(page) >= PER_PAGE

    def _may_read(self, read: int) -> bool:
        if self._authenticated:
            return read < MAX_REVIEW_PAGES
        # One request must be left for the files of each PR not read yet. A fetch in flight has
        # either been counted by GitHub already (its answer not seen yet) or not been sent: one
        # request, not two.
        self._note_remaining()
        with self._lock:
            remaining = self._remaining
        return remaining is None or remaining[1] - self._batches.unread() > 0

    def _note_remaining(self) -> None:
        """Keep the lowest X-RateLimit-Remaining of this reset: answers read by several threads
        may be processed out of order, and the last one seen is not always the latest."""
        remaining, limit, reset = self._clients.rate_limiting()
        if limit < 0:
            return
        with self._lock:
            if self._remaining is None or self._remaining[0] != reset or remaining < self._remaining[1]:
                self._remaining = (reset, remaining)


def _by_number(found: dict[int, list[tuple[datetime, Comment]]]) -> dict[int, tuple[Comment, ...]]:
    return {number: tuple(c for _, c in sorted(items, key=lambda x: x[0])) for number, items in found.items()}


def comment_of(item: Any) -> Comment:
    """A PyGithub review comment as ours."""
    return Comment(author=item.user.login if item.user else "ghost", body=item.body or "", path=item.path)


def _number_of(url: str | None) -> int | None:
    """The PR number at the end of a comment's pull_request_url (…/pulls/{number})."""
    tail = (url or "").rstrip("/").rpartition("/")[2]
    return int(tail) if tail.isdigit() else None


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
