"""AppSource: the source port over a GitHub App, each repository read through the client of the
installation that holds it.

An installation is one account's (an organisation's or a user's): its token reads the
repositories that account gave the App, and its requests count against its own rate limit. Which
installation holds a repository is asked once (`GET /repos/{o}/{r}/installation`, signed with
the App's JWT) and kept (store/repos/app_installations.py); each installation has one GitHubSource,
its client authorised by its InstallationToken (sources/github_app.py). A repository the App is
not installed on is read with GITHUB_TOKEN when that is set (`fallback`), else refused with
AppNotInstalled. Clients are made by `connect`, handed in by sources/lazy.py.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http import HTTPStatus
from typing import Protocol, TypeVar

from github import GithubIntegration

from bot.errors import AppNotInstalled, NotFound, SourceError, SourceRefused
from bot.models import Commit, PRListing, PRRef, PRSnapshot, Release, Window
from bot.ops.redact import redact_url
from bot.sources.github import GitHubSource
from bot.sources.github_app import InstallationToken, app_errors
from bot.store.repos.app_installations import NOT_INSTALLED

T = TypeVar("T")


class InstallationMemory(Protocol):
    """Where each repository's installation is kept (store/repos/app_installations.py)."""

    def recall(self, repo: str) -> int | None: ...

    def remember(self, repo: str, installation: int) -> None: ...

    def forget(self, repo: str) -> None: ...


@dataclass(frozen=True)
class _Route:
    source: GitHubSource
    token: InstallationToken | None  # None: GITHUB_TOKEN's client, for a repository without the App


class AppSource:
    def __init__(
        self,
        app: GithubIntegration,
        *,
        connect: Callable[[InstallationToken], GitHubSource],
        memory: InstallationMemory,
        fallback: GitHubSource | None,
        api_url: str,
    ) -> None:
        self._app = app
        self._app_id = int(app.auth.app_id)
        self._connect = connect
        self._memory = memory
        self._fallback = fallback
        self._api_url = redact_url(api_url)
        # One look-up at a time: threads asking about one repository together ask GitHub once.
        self._looking = threading.Lock()
        self._lock = threading.Lock()
        self._routes: dict[int, _Route] = {}  # by installation id

    # -- the source port, each call through its repository's installation -------------------

    def list_merged(self, repo: str, window: Window) -> list[PRListing]:
        return self._through(repo, lambda source: source.list_merged(repo, window))

    def get_listing(self, ref: PRRef) -> PRListing:
        return self._through(ref.repo, lambda source: source.get_listing(ref))

    def expect(self, window: Window, listings: Iterable[PRListing]) -> None:
        by_repo: dict[str, list[PRListing]] = {}
        for listing in listings:
            by_repo.setdefault(listing.repo.lower(), []).append(listing)
        for group in by_repo.values():
            self._route(group[0].repo).source.expect(window, group)

    def fetch(self, listing: PRListing) -> PRSnapshot:
        return self._through(listing.repo, lambda source: source.fetch(listing))

    def is_private(self, repo: str) -> bool:
        return self._through(repo, lambda source: source.is_private(repo))

    def user_name(self, login: str) -> str | None:
        """Through any installation's client (a profile is the same to all of them)."""
        return self._any_source().user_name(login)

    def releases(self) -> AppReleases:
        return AppReleases(self)

    def rate_limit_remaining(self) -> int:
        """The fewest requests left of any installation (and GITHUB_TOKEN's) as GitHub last said:
        the one that runs out first stops its digests first. LookupError before any said it."""
        with self._lock:
            sources = [route.source for route in self._routes.values()]
        left: list[int] = []
        for source in [*sources, *([self._fallback] if self._fallback is not None else [])]:
            try:
                left.append(source.rate_limit_remaining())
            except LookupError:
                continue
        if not left:
            raise LookupError("GitHub has not said its rate limit yet")
        return min(left)

    def installed_on(self) -> tuple[str, list[str]]:
        """The App's name and the account of each of its installations (for `prdigest doctor`)."""
        with app_errors("the GitHub App", app_id=self._app_id, api_url=self._api_url):
            name = self._app.get_app().name
            return name, [installation.account.login for installation in self._app.get_installations()]

    def close(self) -> None:
        with self._lock:
            routes, self._routes = list(self._routes.values()), {}
        for route in routes:
            route.source.close()
        if self._fallback is not None:
            self._fallback.close()
        self._app.close()

    # -- routing ---------------------------------------------------------------------------

    def through(self, repo: str, call: Callable[[GitHubSource], T]) -> T:
        """`call` on the source that reads `repo` (for AppReleases)."""
        return self._through(repo, call)

    def _through(self, repo: str, call: Callable[[GitHubSource], T]) -> T:
        route = self._route(repo)
        try:
            try:
                return call(route.source)
            except SourceRefused as exc:
                if route.token is None or exc.status != HTTPStatus.UNAUTHORIZED:
                    raise
                # GitHub no longer takes the token (revoked, or its clock is past ours): a new one, once.
                route.token.forget()
                return call(route.source)
        except SourceRefused as exc:
            if route.token is None:
                raise
            raise SourceRefused(exc.what, exc.status, by_app=True) from exc
        except NotFound:
            if route.token is not None:
                # The repository may have left the installation (or the installation is gone):
                # asked again at the next request.
                self._memory.forget(repo)
            raise

    def _route(self, repo: str) -> _Route:
        with self._looking:
            installation = self._memory.recall(repo)
            if installation is None:
                installation = self._look_up(repo)
                self._memory.remember(repo, installation)
        if installation != NOT_INSTALLED:
            return self._installation(installation)
        if self._fallback is None:
            raise AppNotInstalled(repo)
        return _Route(self._fallback, None)

    def _look_up(self, repo: str) -> int:
        owner, _, name = repo.partition("/")
        try:
            with app_errors(f"the GitHub App on {repo}", app_id=self._app_id, api_url=self._api_url):
                return int(self._app.get_repo_installation(owner, name).id)
        except NotFound:  # GitHub's answer where the App is not installed (or no such repository)
            return NOT_INSTALLED

    def _installation(self, installation: int) -> _Route:
        with self._lock:
            route = self._routes.get(installation)
            if route is None:
                token = InstallationToken(self._app, installation, api_url=self._api_url)
                route = self._routes[installation] = _Route(self._connect(token), token)
            return route

    def _any_source(self) -> GitHubSource:
        with self._lock:
            made = next(iter(self._routes.values()), None)
        if made is not None:
            return made.source
        if self._fallback is not None:
            return self._fallback
        with app_errors("the GitHub App's installations", app_id=self._app_id, api_url=self._api_url):
            first = next(iter(self._app.get_installations()), None)
        if first is None:
            raise SourceError("error.github_app_installed_nowhere")
        return self._installation(int(first.id)).source


class AppReleases:
    """The release port (ports/releases.py), each repository through its installation's client."""

    def __init__(self, source: AppSource) -> None:
        self._source = source

    def releases(self, repo: str) -> list[Release]:
        return self._source.through(repo, lambda source: source.releases().releases(repo))

    def compare(self, repo: str, base: str, head: str) -> tuple[list[Commit], str]:
        return self._source.through(repo, lambda source: source.releases().compare(repo, base, head))

    def pulls_of_commit(self, repo: str, sha: str) -> list[int]:
        return self._source.through(repo, lambda source: source.releases().pulls_of_commit(repo, sha))
