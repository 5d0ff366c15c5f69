"""GitHub, connected at its first request.

Importing PyGithub (and requests under it) takes a good part of a second; a digest of a past day
whose listing, snapshots and cards are all in the store asks GitHub nothing, so it must not pay
for the import either. This is where that laziness lives, as llm/lazy.py does for the model: the
wiring builds a GitHubOnFirstUse like any other part, and sources/github.py is imported when the
first request needs it. No vendor is imported here but for type checking.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

from bot.errors import SourceUnreachable
from bot.models import PRListing, PRRef, PRSnapshot, Window
from bot.ops.redact import redact_url

if TYPE_CHECKING:
    from github.Auth import Auth

    from bot.ports.releases import ReleaseSource
    from bot.sources.github import GitHubSource
    from bot.sources.github_app_source import AppSource, InstallationMemory
    from bot.sources.github_pages import PageMemory

    Connected = GitHubSource | AppSource


@dataclass(frozen=True)
class GitHubAppKey:
    """A GitHub App: its id, its private key (PEM) and the variable the key was read from."""

    app_id: int
    private_key: str = field(repr=False)
    key_from: str


@dataclass(frozen=True)
class GitHubEndpoint:
    """Where GitHub is and how it is asked: what `connect` needs to make the client."""

    api_url: str
    token: str | None = field(repr=False)
    retries: int
    backoff: float
    rate_limit_wait: float | None  # None: the source's own (sources/github.py MAX_RATE_LIMIT_WAIT)
    now: Callable[[], datetime]
    pages: PageMemory | None = None  # list pages kept with their ETags (store/repos/pages.py), or none
    # A GitHub App: its installations' tokens read the repositories it is installed on, and
    # `token` (if any) the others; `installations` keeps which installation holds which.
    app: GitHubAppKey | None = None
    installations: InstallationMemory | None = None


def connect(endpoint: GitHubEndpoint) -> Connected:
    """The source over PyGithub's client for `endpoint` (imports PyGithub: call it at the first
    request): one client, or with a GitHub App one per installation (sources/github_app_source.py)."""
    from github import Github

    from bot.sources.github import MAX_RATE_LIMIT_WAIT, GitHubSource, build_github, counted_retry
    from bot.sources.github_clients import ClientPerThread

    wait = MAX_RATE_LIMIT_WAIT if endpoint.rate_limit_wait is None else endpoint.rate_limit_wait

    def source(credentials: str | Auth | None) -> GitHubSource:
        def client() -> Github:
            return build_github(
                endpoint.api_url,
                credentials,
                retries=endpoint.retries,
                backoff=endpoint.backoff,
                max_rate_limit_wait=wait,
            )

        return GitHubSource(
            ClientPerThread(client),
            authenticated=credentials is not None,
            api_url=endpoint.api_url,
            now=endpoint.now,
            pages=endpoint.pages,
        )

    app = endpoint.app
    if app is None:
        return source(endpoint.token)
    from bot.sources.github_app import build_github_app, check_key
    from bot.sources.github_app_source import AppSource

    assert endpoint.installations is not None, "the wiring gives a GitHub App its installations' memory"
    check_key(app.private_key, app.key_from)
    retry = counted_retry(endpoint.retries, endpoint.backoff, wait)
    return AppSource(
        build_github_app(endpoint.api_url, app.app_id, app.private_key, retry=retry),
        connect=source,
        memory=endpoint.installations,
        fallback=source(endpoint.token) if endpoint.token is not None else None,
        api_url=endpoint.api_url,
    )


class GitHubOnFirstUse:
    """The source port (and the rate-limit gauge) over a GitHubSource (or a GitHub App's
    AppSource) made at the first request."""

    def __init__(self, connect: Callable[[], Connected], api_url: str = "GitHub") -> None:
        self._connect = connect
        self._api_url = api_url
        self._lock = threading.Lock()
        self._source: Connected | None = None
        self._closed = False

    @classmethod
    def of(cls, endpoint: GitHubEndpoint) -> GitHubOnFirstUse:
        return cls(lambda: connect(endpoint), redact_url(endpoint.api_url))

    def _connected(self) -> Connected:
        with self._lock:
            if self._closed:
                # The process has closed its clients. A request still made under it (a thread
                # that outlived its command) fails, as an unreachable GitHub would: reconnecting
                # would open sockets that nobody closes.
                raise SourceUnreachable("GitHub", self._api_url, "client closed")
            if self._source is None:
                self._source = self._connect()
            return self._source

    @property
    def connected(self) -> bool:
        """Whether a request was made (or asked for) in this process."""
        return self._source is not None

    def list_merged(self, repo: str, window: Window) -> list[PRListing]:
        return self._connected().list_merged(repo, window)

    def get_listing(self, ref: PRRef) -> PRListing:
        return self._connected().get_listing(ref)

    def expect(self, window: Window, listings: Iterable[PRListing]) -> None:
        expected = list(listings)
        if expected:  # nothing to fetch (every snapshot in the store): nothing to connect for
            self._connected().expect(window, expected)

    def fetch(self, listing: PRListing) -> PRSnapshot:
        return self._connected().fetch(listing)

    def is_private(self, repo: str) -> bool:
        return self._connected().is_private(repo)

    def user_name(self, login: str) -> str | None:
        return self._connected().user_name(login)

    def releases(self) -> ReleaseSource:
        """The release endpoints through the same client (made now: a release command asks at once)."""
        return self._connected().releases()

    def rate_limit_remaining(self) -> int:
        """As GitHubSource's; LookupError while nothing has been asked of GitHub (nothing said yet)."""
        source = self._source
        if source is None:
            raise LookupError("GitHub has not been asked anything yet")
        return source.rate_limit_remaining()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._source is not None:
                self._source.close()
                self._source = None
