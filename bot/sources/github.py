"""GitHubSource: merged PRs from the GitHub REST API (through PyGithub) as our own values.

Owns the request budget. A day costs its list pages (pulls list, or issue search for older days),
one files request per PR (more only past 100 files), and a few pages of the repository's review
comments for the PRs a digest said it would fetch (sources/github_reviews.py); a PR fetched on its
own reads its review comments in one more request. Without a token, every PR's files come before
any review-comment page, which take what is left of the hour's 60. List pages go out with the
ETag of the page last seen (sources/github_pages.py): a 304 costs an authorized client nothing.
A search result carries no merge SHA: such a PR's cards and snapshots are keyed by its head SHA,
which its files give (their contents_url's ref), instead of one more GET per PR.
Reads only attributes that list items carry, since any other one costs a hidden GET.
Every PyGithub and requests error becomes one of bot.errors through `_translated`, which maps
them with sources/github_errors.py and remembers a spent rate limit.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

from github import Auth, Github, GithubRetry
from github.Issue import Issue
from github.PullRequest import PullRequest

from bot.errors import NotFound, RateLimited
from bot.models import GITHUB_FILE_LIST_CAP, FileChange, PRListing, PRRef, PRSnapshot, Window
from bot.ops import telemetry
from bot.ops.redact import redact_url
from bot.sources.github_clients import ClientPerThread
from bot.sources.github_errors import github_errors
from bot.sources.github_pages import PageMemory, Pages
from bot.sources.github_releases import GitHubReleases
from bot.sources.github_reviews import Reviews, comment_of

# GitHub's largest page (docs: "per_page ... max 100").
PER_PAGE = 100
# The pulls list is walked from the newest update backwards; past this age the search API
# finds a day's merges in one or two requests instead of tens of list pages.
RECENT_WINDOW = timedelta(days=3)
# How long a rate limit may make us wait before we give up and say when it resets.
MAX_RATE_LIMIT_WAIT = 60.0
# GitHub's best practice is few concurrent requests; its secondary limit starts at 100.
DEFAULT_CONCURRENCY = 4
# Callers keep a repository's visibility in the store for longer (access/visibility.py); this
# only joins the threads that ask at one moment, so that one request answers them all.
VISIBILITY_MEMO = 10.0  # seconds


class _CountedRetry(GithubRetry):
    """GithubRetry that counts each response from GitHub in github_requests_total.

    PyGithub has no request hook; its retry policy is the one object it hands to requests'
    transport (urllib3), which asks `is_retry` exactly once per response it receives
    (HTTPConnectionPool.urlopen): retried ones, and those of pages PyGithub reads unasked, included.
    """

    def is_retry(self, method: str, status_code: int, has_retry_after: bool = False) -> bool:
        telemetry.count("github_requests_total")
        return super().is_retry(method, status_code, has_retry_after)


def counted_retry(retries: int, backoff: float, max_rate_limit_wait: float) -> GithubRetry:
    """The retry policy of every client: waits out short rate limits, retries 429 and 5xx."""
    return _CountedRetry(
        total=retries,
        backoff_factor=backoff,
        max_rate_limit_wait=max_rate_limit_wait,
        status_forcelist=[429, 500, 502, 503, 504],
    )


def build_github(
    api_url: str,
    credentials: str | Auth.Auth | None,
    *,
    timeout: float = 15.0,
    retries: int = 4,
    backoff: float = 0.5,
    max_rate_limit_wait: float = MAX_RATE_LIMIT_WAIT,
) -> Github:
    """A client: one for the process with a token (or none), one per installation of a GitHub
    App (`credentials` then its installation token, sources/github_app.py)."""
    auth = (Auth.Token(credentials) if credentials else None) if isinstance(credentials, str) else credentials
    return Github(
        base_url=api_url,
        auth=auth,
        per_page=PER_PAGE,
        timeout=int(timeout),
        retry=counted_retry(retries, backoff, max_rate_limit_wait),
        lazy=True,  # get_repo and get_pull cost nothing until a page is read
        # Pacing is done by our own concurrency limit; PyGithub's default 0.25 s gap would
        # make a 150-PR day take minutes on sleeps alone.
        seconds_between_requests=None,
    )


def _utc(moment: datetime) -> datetime:
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class GitHubSource:
    def __init__(
        self,
        clients: ClientPerThread,
        *,
        authenticated: bool,
        api_url: str,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
        concurrency: int = DEFAULT_CONCURRENCY,
        pages: PageMemory | None = None,
    ) -> None:
        self._clients = clients
        self._pages = Pages(clients.get, pages, api_url=api_url)
        self._reviews = Reviews(clients, self._pages, authenticated=authenticated, guard=self._guarded)
        self._authenticated = authenticated
        self._api_url = redact_url(api_url)  # only ever shown in messages: no credentials in them
        self._now = now
        self._slots = threading.BoundedSemaphore(concurrency)
        # Once the limit is spent, further requests would only be refused: fail them here
        # until the reset, so that concurrent workers stop at once.
        self._exhausted: RateLimited | None = None
        self._visibility_lock = threading.Lock()
        self._visibility: dict[str, threading.Lock] = {}
        self._visible: dict[str, tuple[bool, float]] = {}

    @contextlib.contextmanager
    def _translated(self, what: str) -> Iterator[None]:
        """Map PyGithub and transport errors to ours, naming what we were doing."""
        exhausted = self._exhausted
        if exhausted is not None:
            if exhausted.reset_at is None or self._now() < exhausted.reset_at:
                raise RateLimited(exhausted.reset_at, exhausted.authenticated)
            self._exhausted = None
        try:
            with github_errors(what, api_url=self._api_url, authenticated=self._authenticated):
                yield
        except RateLimited as exc:
            self._exhausted = exc
            raise

    @contextlib.contextmanager
    def _guarded(self, what: str) -> Iterator[None]:
        """One of the few requests at a time, its errors translated."""
        with self._slots, self._translated(what):
            yield

    def rate_limit(self) -> tuple[int, int]:
        """Requests left this hour, and the hour's limit (free: /rate_limit does not count)."""
        with self._translated("rate limit"):
            core = self._clients.get().get_rate_limit().resources.core
        return core.remaining, core.limit

    def rate_limit_remaining(self) -> int:
        """Requests left as GitHub's last response said (X-RateLimit-Remaining, which PyGithub
        keeps); LookupError before any response said it. Costs no request: a gauge reads it."""
        remaining, limit, _reset = self._clients.rate_limiting()
        if limit < 0:
            raise LookupError("GitHub has not said its rate limit yet")
        return remaining

    def close(self) -> None:
        self._clients.close()

    def releases(self) -> GitHubReleases:
        """The release endpoints, through this source's client (its pool and its retries)."""
        return GitHubReleases(self._clients.get, authenticated=self._authenticated, api_url=self._api_url)

    # -- discovery -------------------------------------------------------------------------

    def list_merged(self, repo: str, window: Window) -> list[PRListing]:
        """PRs of `repo` merged inside `window`, newest first. Closed-unmerged never appear."""
        with self._slots, self._translated(repo):
            if window.start >= self._now() - RECENT_WINDOW:
                return self._list_recent(repo, window)
            return self._search(repo, window)

    def _list_recent(self, repo: str, window: Window) -> list[PRListing]:
        # Merging updates a PR, so updated_at >= merged_at: walking by update time, newest
        # first, we may stop at the first PR last updated before the window opened.
        parameters = {"state": "closed", "sort": "updated", "direction": "desc", "per_page": str(PER_PAGE)}
        pulls = self._pages.items(PullRequest, f"/repos/{repo}/pulls", parameters)
        found: list[PRListing] = []
        for pr in pulls:
            updated_at = pr.updated_at
            if updated_at is not None and _utc(updated_at) < window.start:
                break
            merged_at = pr.merged_at
            if merged_at is not None and window.contains(_utc(merged_at)):
                found.append(self._listing_from_pull(_full_name(pr, repo), pr))
        return found

    def _search(self, repo: str, window: Window) -> list[PRListing]:
        # A repository that does not exist (or that this client may not see) is answered 422,
        # which github_errors reports as not found: a typo is not taken for a quiet day.
        start = window.start.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        end = window.end.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        query = f"repo:{repo} is:pr is:merged merged:{start}..{end}"
        parameters = {"q": query, "per_page": str(PER_PAGE)}
        found: list[PRListing] = []
        for issue in self._pages.items(Issue, "/search/issues", parameters, key="items"):
            merged_at = issue.pull_request.merged_at if issue.pull_request else None
            # GitHub's range is inclusive at both ends; our window is half-open.
            if merged_at is not None and window.contains(_utc(merged_at)):
                # GitHub's spelling of the name (its repository_url), for every key of these PRs.
                named = _same_repo((issue.repository_url or "").rpartition("/repos/")[2] or None, repo)
                # No merge SHA in a search result: fetch() takes the head SHA from the files.
                found.append(_listing(named, issue, merged_at=_utc(merged_at), merge_sha=None, head_sha=None))
        found.sort(key=lambda item: item.merged_at or window.end, reverse=True)
        return found

    def _listing_from_pull(self, repo: str, pr: Any) -> PRListing:
        merged_at = pr.merged_at
        return _listing(
            repo,
            pr,
            merged_at=_utc(merged_at) if merged_at else None,
            merge_sha=pr.merge_commit_sha if merged_at else None,
            head_sha=pr.head.sha if pr.head else None,
        )

    def is_private(self, repo: str) -> bool:
        """The repository's visibility as GitHub states it (1 request). Asked at once by several
        threads (ten channels of one repository posting at their common time), it is asked once."""
        with self._visibility_lock:
            asking = self._visibility.setdefault(repo.lower(), threading.Lock())
        with asking:
            known = self._visible.get(repo.lower())
            # The process's own clock: an injected `now` may stand still in a test or a replay.
            if known is not None and time.monotonic() - known[1] < VISIBILITY_MEMO:
                return known[0]
            with self._slots, self._translated(repo):
                private = bool(self._clients.get().get_repo(repo).private)
            self._visible[repo.lower()] = (private, time.monotonic())
            return private

    def user_name(self, login: str) -> str | None:
        """The display name on `login`'s profile (1 request: GET /users/{login}).

        None when the profile has no name, or GitHub knows no such account (404): a PR's author
        may have been deleted since ("ghost"). Any other failure is a SourceError.
        """
        try:
            with self._slots, self._translated(f"user {login}"):
                # get_user completes the user at once (its one GET); reading .name costs nothing more.
                name = self._clients.get().get_user(login).name
        except NotFound:
            return None
        return name or None  # an empty name is no name

    # -- one PR ----------------------------------------------------------------------------

    def get_listing(self, ref: PRRef) -> PRListing:
        """One PR by number (1 request), merged or not."""
        with self._slots, self._translated(str(ref)):
            pr = self._clients.get().get_repo(ref.repo).get_pull(ref.number)
            return self._listing_from_pull(_full_name(pr, ref.repo), pr)

    def expect(self, window: Window, listings: Iterable[PRListing]) -> None:
        """A digest of `window` is about to fetch these PRs: read their review comments together,
        a few pages of the repository's listing instead of one request per PR. Costs nothing now."""
        by_repo: dict[str, tuple[str, list[int]]] = {}
        for listing in listings:
            by_repo.setdefault(listing.repo.lower(), (listing.repo, []))[1].append(listing.number)
        for repo, numbers in by_repo.values():
            self._reviews.expect(repo, window, numbers)

    def fetch(self, listing: PRListing) -> PRSnapshot:
        """Files with patches and review comments: one request for the files of most PRs, and the
        review comments from the batch's listing (`expect`), or one more request for a PR alone."""
        ref = listing.ref
        batch = self._reviews.take(ref)
        try:
            with self._translated(str(ref)), self._slots:
                pr = self._clients.get().get_repo(ref.repo).get_pull(ref.number)  # lazy: no request
                head: str | None = None
                files: list[FileChange] = []
                for item in pr.get_files():
                    head = head or _ref_of(item.contents_url)
                    files.append(_file_change(item))
                reported: int | None = None
                if len(files) >= GITHUB_FILE_LIST_CAP:
                    # GitHub stops listing at 3,000 files; the PR itself says how many there are.
                    reported = pr.changed_files
                comments = None if batch is not None else tuple(comment_of(c) for c in pr.get_review_comments())
        finally:
            self._reviews.read(batch)
        if batch is not None:
            comments = self._reviews.comments(batch).get(ref.number, ())
        if listing.merge_sha is None and listing.merged_at is not None and listing.head_sha is None:
            # A search result: its cards are keyed by the head commit the files were read at.
            listing = replace(listing, head_sha=head)
        return PRSnapshot(listing=listing, files=tuple(files), comments=comments or (), files_reported=reported)


def _ref_of(contents_url: str | None) -> str | None:
    """The commit a PR file's contents_url names (?ref=SHA): the PR's head."""
    refs = parse_qs(urlsplit(contents_url or "").query).get("ref")
    return refs[0] if refs else None


def _full_name(pr: Any, asked: str) -> str:
    """GitHub's spelling of the PR's repository, from its base (in the PR's own JSON: no request)."""
    base = pr.base
    repository = base.repo if base is not None else None
    return _same_repo(repository.full_name if repository is not None else None, asked)


def _same_repo(full_name: str | None, asked: str) -> str:
    """`full_name` when it names the repository asked for in another case, else `asked`.

    GitHub ignores case in owner and repository names (acme/widgets, ACME/Widgets are one
    repository), and every key (snapshot, card, lease) must see one spelling, or each spelling
    pays for its own GitHub requests and model call. A different name (a renamed repository,
    answered through a redirect) is not adopted: the channel's config names the repository,
    and its filters and access rules compare against that name.
    """
    if isinstance(full_name, str) and full_name.lower() == asked.lower():
        return full_name
    return asked


def _listing(
    repo: str, item: Any, *, merged_at: datetime | None, merge_sha: str | None, head_sha: str | None
) -> PRListing:
    """A listing from what a pulls-list item or a search result carries (no extra request)."""
    return PRListing(
        repo=repo,
        number=item.number,
        title=item.title or "",
        body=item.body or "",
        author=item.user.login if item.user else "ghost",
        author_is_bot=_is_bot(item.user),
        url=item.html_url,
        merged_at=merged_at,
        merge_sha=merge_sha,
        head_sha=head_sha,
        labels=tuple(label.name for label in item.labels),
    )


def _is_bot(user: Any) -> bool:
    if user is None:
        return False
    return bool(user.login.endswith("[bot]") or user.type == "Bot")


def _file_change(item: Any) -> FileChange:
    return FileChange(
        path=item.filename,
        status=item.status or "modified",
        additions=item.additions or 0,
        deletions=item.deletions or 0,
        patch=item.patch,
        previous_path=item.previous_filename,
    )
