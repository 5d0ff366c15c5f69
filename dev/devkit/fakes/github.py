"""A fake GitHub REST API, close enough that the real PyGithub client works against it.

Only what prdigest reads is emulated: repos, pull lists, single pulls, their files, review
comments (per PR, and for a whole repository with `since`) and reviews, issue search, public users
(/users/{login}) and /rate_limit, with GitHub's pagination (Link headers), its 3,000-file cap,
rate-limit headers and 403 when the budget runs out, and ETags: a GET that sends the ETag of an
unchanged answer in If-None-Match gets 304, free when the request carried a token. Objects carry
the fields the real API sends for each endpoint and no more: notably the pulls *list* has no
additions/deletions/changed_files/merged, so code that reads them there pays a request per PR, as
it would against github.com; and a PR's `user` has no display name, which only /users/{login}
gives. A GitHub App registered with `register_app` is served as GitHub serves one (/app, its
installations and their tokens: devkit/fakes/github_app.py); a request with one of its tokens is
checked, counted against its installation's rate limit, and refused a private repository the
installation was not given.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http import HTTPStatus
from typing import Any, TypeVar
from urllib.parse import quote, unquote, urlencode

from cryptography.hazmat.primitives.asymmetric.rsa import RSAPublicKey

from devkit.fakes.dataset import synth_patch
from devkit.fakes.github_app import BAD_CREDENTIALS, FakeApp, FakeInstallation, RateBudget
from devkit.fakes.github_releases import (
    UNPAGED_COMPARE_LIMIT,
    FakeRelease,
    History,
    HistoryCommit,
    commit_object,
    release_object,
)
from devkit.fakes.server import LoopbackServer, RecordedRequest, Response

T = TypeVar("T")

DOCS = "https://docs.github.com/rest"
USER_DOCS = "https://docs.github.com/rest/users/users#get-a-user"
ENTERPRISE_API = "/api/v3"
RATE_LIMIT_MESSAGE = (
    "API rate limit exceeded for 127.0.0.1. (But here's the good news: Authenticated requests get a higher "
    "rate limit. Check out the documentation for more details.)"
)
MAX_FILES = 3000  # GitHub lists at most this many files of a PR
MAX_SEARCH_RESULTS = 1000  # and at most this many search results
CORE_LIMIT, SEARCH_LIMIT = 5000, 30
# GitHub's primary limit for unauthenticated requests, per hour ("Rate limits for the REST API").
ANONYMOUS_LIMIT = 60
_DEFAULT_EPOCH = datetime(2026, 1, 1, tzinfo=UTC)


@dataclass
class _File:
    path: str
    additions: int
    deletions: int
    status: str
    patch: str | None
    previous_path: str | None


@dataclass
class _PR:
    repo: str
    number: int
    title: str
    body: str
    author: str
    author_type: str
    state: str
    created_at: datetime
    updated_at: datetime
    closed_at: datetime | None
    merged_at: datetime | None
    merge_commit_sha: str | None
    head_sha: str
    labels: list[str]
    files: list[_File]
    review_comments: list[dict[str, Any]]
    reviews: list[dict[str, Any]]


@dataclass
class _User:
    login: str
    name: str | None  # the profile's display name; many accounts leave it empty (null)
    kind: str  # "User", "Bot" or "Organization"


@dataclass
class _Repo:
    full_name: str
    private: bool
    pulls: dict[int, _PR] = field(default_factory=dict)


@dataclass
class _Fault:
    pattern: re.Pattern[str]
    status: int
    times: int
    headers: dict[str, str]
    body: dict[str, Any] | None


class FakeGitHub(LoopbackServer):
    def __init__(self, *, latency: float = 0.0, port: int = 0, enterprise: bool = False) -> None:
        super().__init__(latency=latency, port=port)
        # GitHub Enterprise Server: the REST API under /api/v3 of the server's host, and the PRs'
        # pages on that host (GitHub's docs, "REST API endpoints for GitHub Enterprise Server").
        self.enterprise = enterprise
        # The rate limit of requests without an App's token (`rate_limit`: requests left, None =
        # unlimited; `core_limit`: the hour's limit X-RateLimit-Limit states, GitHub's 60 after
        # `anonymous()`); each App installation has its own. `_budget`: the current request's.
        self._own = RateBudget(limit=CORE_LIMIT)
        self._budget = self._own
        self.rate_limit_reset_in: float = 3600.0
        self.app: FakeApp | None = None
        self._data_lock = threading.RLock()
        self._repos: dict[str, _Repo] = {}  # keyed by lower-cased full name: GitHub ignores case
        self._users: dict[str, _User] = {}  # keyed by lower-cased login: GitHub ignores case there too
        self._faults: list[_Fault] = []
        # Releases, pushes and merge-commit PRs per repository (lower-cased): the branch history
        # is built from them and the merged PRs (devkit/fakes/github_releases.py).
        self._releases: dict[str, list[tuple[str, datetime, bool, bool]]] = {}
        self._pushes: dict[str, list[tuple[datetime, str]]] = {}
        self._merge_commits: dict[str, set[int]] = {}

    @property
    def rate_limit(self) -> int | None:
        return self._own.remaining

    @rate_limit.setter
    def rate_limit(self, value: int | None) -> None:
        self._own.remaining = value

    @property
    def core_limit(self) -> int:
        return self._own.limit

    @core_limit.setter
    def core_limit(self, value: int) -> None:
        self._own.limit = value

    # -- data ------------------------------------------------------------------------------

    def add_repo(self, full_name: str, private: bool = False) -> None:
        if full_name.count("/") != 1:
            raise ValueError(f"repo must be 'owner/name', got {full_name!r}")
        with self._data_lock:
            existing = self._repos.get(full_name.lower())
            if existing is None:
                self._repos[full_name.lower()] = _Repo(full_name, private)
            else:
                existing.private = private

    def add_user(self, login: str, name: str | None = None, *, kind: str = "User") -> None:
        """Add (or rename) the account `login`, with its profile's display name (None: none set)."""
        with self._data_lock:
            self._users[login.lower()] = _User(login, name, kind)

    def add_pr(
        self,
        repo: str,
        number: int,
        *,
        title: str,
        body: str = "",
        author: str = "alice",
        author_type: str = "User",
        merged_at: datetime | None,
        closed_at: datetime | None = None,
        updated_at: datetime | None = None,
        created_at: datetime | None = None,
        merge_commit_sha: str | None = None,
        head_sha: str | None = None,
        labels: Sequence[str] = (),
        files: Sequence[dict[str, Any]] = (),
        review_comments: Sequence[dict[str, Any]] = (),
        reviews: Sequence[dict[str, Any]] = (),
        state: str = "closed",
    ) -> None:
        """Add (or replace) a PR. merged_at None with state "closed" is a closed-unmerged PR.

        files: {path, additions, deletions, status?, patch?, binary?, previous_path?}; a missing
        patch is synthesised, patch=None means GitHub sent none (diff too large).
        review_comments: {author, body, path, line?}; reviews: {author, body, state?}.
        """
        if state not in ("open", "closed"):
            raise ValueError(f"state must be 'open' or 'closed', got {state!r}")
        merged_at, closed_at, updated_at, created_at = (_utc(t) for t in (merged_at, closed_at, updated_at, created_at))
        if state == "open" and (merged_at or closed_at):
            raise ValueError("an open PR has no merged_at/closed_at")
        closed_at = closed_at or merged_at
        if state == "closed" and closed_at is None:
            raise ValueError("a closed PR needs merged_at or closed_at")
        updated_at = updated_at or closed_at or created_at or _DEFAULT_EPOCH
        created_at = created_at or min(updated_at, closed_at or updated_at) - timedelta(days=1)
        if merged_at and merge_commit_sha is None:
            merge_commit_sha = _fake_sha(f"{repo}#{number}:merge")
        with self._data_lock:
            # GitHub spells a repository one way (its full_name) whatever case it was asked in.
            repo = self._repo(repo, create=True).full_name
        pr = _PR(
            repo=repo,
            number=number,
            title=title,
            body=body,
            author=author,
            author_type=author_type,
            state=state,
            created_at=created_at,
            updated_at=updated_at,
            closed_at=closed_at,
            merged_at=merged_at,
            merge_commit_sha=merge_commit_sha,
            head_sha=head_sha or _fake_sha(f"{repo}#{number}:head"),
            labels=list(labels),
            files=[_make_file(f) for f in files],
            review_comments=[dict(c) for c in review_comments],
            reviews=[dict(r) for r in reviews],
        )
        with self._data_lock:
            self._repo(repo, create=True).pulls[number] = pr
            # A PR's author is an account GitHub can show; add_user gives it a display name.
            if author.lower() not in self._users:
                self._users[author.lower()] = _User(author, None, author_type)

    def add_release(self, repo: str, tag: str, at: datetime, *, draft: bool = False, prerelease: bool = False) -> None:
        """A release tagging the branch's newest commit at `at` (published then, unless a draft)."""
        with self._data_lock:
            self._repo(repo, create=True)
            self._releases.setdefault(repo.lower(), []).append((tag, _utc(at) or at, draft, prerelease))

    def add_push(self, repo: str, at: datetime, message: str) -> None:
        """A commit pushed to the branch directly, with no PR ("Bump the version to 0.12.0")."""
        with self._data_lock:
            self._pushes.setdefault(repo.lower(), []).append((_utc(at) or at, message))

    def merge_with_commit(self, repo: str, number: int) -> None:
        """PR `number` came in by a merge commit (its branch's two commits under it), not squashed."""
        with self._data_lock:
            self._merge_commits.setdefault(repo.lower(), set()).add(number)

    def history(self, repo: str) -> History:
        """The branch's commits and the releases on them, as the repository holds them now."""
        key = repo.lower()
        with self._data_lock:
            pulls = [pr for pr in self._repo(repo).pulls.values() if pr.merged_at is not None]
            entries: list[tuple[datetime, str, int | None, str]] = [
                (pr.merged_at, f"{pr.title} (#{pr.number})", pr.number, pr.merge_commit_sha or "")
                for pr in pulls
                if pr.merged_at is not None
            ]
            entries += [(at, message, None, "") for at, message in self._pushes.get(key, [])]
            entries.sort(key=lambda entry: (entry[0], entry[2] or 0))
            merged_by_commit = self._merge_commits.get(key, set())
            history = History()
            previous = _fake_sha(f"{key}:root")
            history.commits.append(HistoryCommit(previous, (), "Initial commit", _DEFAULT_EPOCH, None))
            for at, subject, number, merge_sha in entries:
                sha = merge_sha or _fake_sha(f"{key}:{at.isoformat()}:{subject}")
                message = subject
                parents: tuple[str, ...] = (previous,)
                if number is not None and number in merged_by_commit:
                    # The PR's own branch: two commits off the previous tip, under a merge commit.
                    first = HistoryCommit(_fake_sha(f"{sha}:b1"), (previous,), "Address review", at, None, False)
                    second = HistoryCommit(
                        _fake_sha(f"{sha}:b2"), (first.sha,), f"wip (#{number + 1})", at, None, False
                    )
                    history.commits += [first, second]
                    parents = (previous, second.sha)
                    message = f"Merge pull request #{number} from someone/branch-{number}\n\n{subject}"
                history.commits.append(HistoryCommit(sha, parents, message, at, number))
                previous = sha
            chain = history.first_parents()
            for index, (tag, at, draft, prerelease) in enumerate(self._releases.get(key, [])):
                tip = [commit for commit in chain if commit.at <= at] or chain[:1]
                release = FakeRelease(tag, tip[-1].sha, None if draft else at, draft, prerelease, 1000 + index)
                history.releases.append(release)
            return history

    def register_app(self, app_id: int, public_key: RSAPublicKey | bytes, *, name: str = "prdigest") -> FakeApp:
        """A GitHub App with this id and public key (its private key signs its JWTs); install it
        with `.install(account, repos)`."""
        with self._data_lock:
            self.app = FakeApp(app_id, public_key, name=name)
            return self.app

    def _repo(self, full_name: str, create: bool = False) -> _Repo:
        key = full_name.lower()
        if key not in self._repos:
            if not create:
                raise KeyError(full_name)
            self.add_repo(full_name)
        return self._repos[key]

    # -- faults ----------------------------------------------------------------------------

    def fail_next(
        self,
        path_regex: str,
        status: int,
        times: int = 1,
        headers: dict[str, str] | None = None,
        body: dict[str, Any] | None = None,
    ) -> None:
        """The next `times` requests whose path matches (re.search) answer `status` instead."""
        with self._data_lock:
            self._faults.append(_Fault(re.compile(path_regex), status, times, dict(headers or {}), body))

    @property
    def api_url(self) -> str:
        """What GITHUB_API_URL names: this server, or its /api/v3 when it is an Enterprise one."""
        return f"{self.url}{ENTERPRISE_API}" if self.enterprise else self.url

    @property
    def web_url(self) -> str:
        """Where the PRs' pages are: github.com, or the Enterprise server's own host."""
        return self.url if self.enterprise else "https://github.com"

    # -- introspection ---------------------------------------------------------------------

    @staticmethod
    def kind_of(path: str) -> str:
        """A short endpoint name for a request path, e.g. for request counts by kind."""
        for kind, pattern in _ROUTES:
            if pattern.fullmatch(path):
                return kind
        return "other"

    def counts_by_kind(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for request in self.requests:
            kind = self.kind_of(request.path.removeprefix(ENTERPRISE_API) if self.enterprise else request.path)
            counts[kind] = counts.get(kind, 0) + 1
        return counts

    # -- serving ---------------------------------------------------------------------------

    def anonymous(self) -> None:
        """GitHub as a client without a token sees it: 60 requests an hour, then 403 until the reset."""
        with self._data_lock:
            self.core_limit = ANONYMOUS_LIMIT
            self.rate_limit = ANONYMOUS_LIMIT

    def handle(self, request: RecordedRequest) -> Response:
        path = request.path
        if self.enterprise:
            if not path.startswith(ENTERPRISE_API + "/"):
                return self._not_found("core")  # the server's web pages, not its API
            path = path.removeprefix(ENTERPRISE_API)
        kind = self.kind_of(path)
        resource = "search" if kind == "search" else "core"
        with self._data_lock:
            app, installation = self.app, None
            if app is not None:
                if kind in _APP_KINDS:  # the App's own endpoints: its JWT, no rate limit counted here
                    return self._app_route(app, kind, path, request)
                authorization = request.headers.get("authorization", "")
                if app.token_refused(authorization):
                    return self._json({"message": BAD_CREDENTIALS, "documentation_url": DOCS}, resource, 401)
                installation = app.holder(authorization)
            self._budget = installation.budget if installation is not None else self._own
            try:
                return self._counted(kind, path, request, resource, installation)
            finally:
                self._budget = self._own

    def _counted(
        self, kind: str, path: str, request: RecordedRequest, resource: str, installation: FakeInstallation | None
    ) -> Response:
        """The answer, counted against the current request's rate limit (`_budget`)."""
        budget = self._budget
        if kind == "rate_limit":
            return self._json(self._rate_limit_body(), resource)
        if budget.remaining is not None:
            if budget.remaining <= 0:
                return self._rate_limited(resource)
            budget.remaining -= 1
        budget.used += 1
        if installation is not None and not self._may_read(installation, path):
            return self._not_found(resource)
        response = self._answer(kind, path, request, resource)
        if response.status == 200 and request.method == "GET":
            response = self._conditional(request, response)
        # GitHub's best practices ("Use conditional requests if appropriate"): "Making a
        # conditional request does not count against your primary rate limit if a 304
        # response is returned and the request was made while correctly authorized with an
        # Authorization header."
        if response.status == 304 and "authorization" in request.headers:
            if budget.remaining is not None:
                budget.remaining += 1
            budget.used -= 1
            response.headers.update(self._headers(resource))
        return response

    def _may_read(self, installation: FakeInstallation, path: str) -> bool:
        """An installation's token reads its own repositories and public ones; a private one of
        anybody else's is not found, as GitHub hides what a token may not see."""
        named = _REPO_PREFIX.match(path)
        if named is None:
            return True
        repo = self._repos.get(f"{named['owner']}/{named['name']}".lower())
        return repo is None or not repo.private or installation.holds(repo.full_name)

    def _app_route(self, app: FakeApp, kind: str, path: str, request: RecordedRequest) -> Response:
        refusal = app.jwt_refusal(request.headers.get("authorization", ""))
        if refusal is not None:
            return self._json({"message": refusal.message, "documentation_url": DOCS}, "core", refusal.status)
        params = _ROUTE_BY_KIND[kind].fullmatch(path)
        assert params is not None
        found: FakeInstallation | None = None
        if kind == "app" and request.method == "GET":
            return self._json(app.app_object(self.api_url), "core")
        if kind == "app_installations" and request.method == "GET":
            listed = sorted(app.installations.values(), key=lambda each: each.id)
            return self._page(listed, lambda each: app.installation_object(each, self.api_url), request, "core")
        if kind == "repo_installation" and request.method == "GET":
            if f"{params['owner']}/{params['name']}".lower() in self._repos:
                found = app.installation_of(f"{params['owner']}/{params['name']}")
        elif kind == "org_installation" and request.method == "GET":
            found = app.installation_of_account(unquote(params["org"]))
        elif kind == "access_tokens" and request.method == "POST":
            installation = app.installations.get(int(params["id"]))
            if installation is not None:
                return self._json(app.grant(installation), "core", 201)
            return self._not_found("core")
        if found is None:
            return self._not_found("core")
        return self._json(app.installation_object(found, self.api_url), "core")

    def _answer(self, kind: str, path: str, request: RecordedRequest, resource: str) -> Response:
        fault = self._take_fault(path)
        if fault is not None:
            body = fault.body or {"message": _reason(fault.status), "documentation_url": DOCS}
            return self._json(body, resource, fault.status, fault.headers)
        if request.method != "GET":
            return self._not_found(resource)
        match = _ROUTE_BY_KIND[kind].fullmatch(path) if kind != "other" else None
        if match is None:
            return self._not_found(resource)
        return self._route(kind, match.groupdict(), request, resource)

    def _conditional(self, request: RecordedRequest, response: Response) -> Response:
        """The answer with its ETag, or 304 and no body when the client holds that ETag already."""
        etag = f'W/"{hashlib.sha1(response.body).hexdigest()}"'
        response.headers["etag"] = etag
        held = {tag.strip() for tag in request.headers.get("if-none-match", "").split(",")}
        if etag in held or etag.removeprefix("W/") in held:
            headers = {k: v for k, v in response.headers.items() if k not in ("content-type", "link")}
            return Response(304, headers, b"")
        return response

    def _route(self, kind: str, params: dict[str, str], request: RecordedRequest, resource: str) -> Response:
        if kind == "search":
            return self._search(request)
        if kind == "user":
            user = self._users.get(unquote(params["login"]).lower())
            if user is None:
                # GitHub's answer for an unknown login, with the endpoint's own documentation link.
                return self._json(
                    {"message": "Not Found", "documentation_url": USER_DOCS, "status": "404"}, resource, 404
                )
            return self._json(self._user_object(user), resource)
        repo = self._repos.get(f"{params['owner']}/{params['name']}".lower())
        if repo is None:
            return self._not_found(resource)
        if kind == "repo":
            return self._json(self._repo_object(repo), resource)
        if kind in ("releases", "compare", "commit_pulls"):
            return self._history_route(kind, repo, params, request, resource)
        if kind == "pulls":
            return self._list_pulls(repo, request)
        if kind == "repo_comments":
            return self._repo_comments(repo, request)
        pr = repo.pulls.get(int(params["number"]))
        if pr is None:
            return self._not_found(resource)
        if kind == "pull":
            return self._json(self._pull_object(pr, full=True), resource)
        if kind == "issue":
            return self._json(self._issue_object(pr), resource)
        if kind == "files":
            return self._page(pr.files[:MAX_FILES], lambda f: self._file_object(pr, f), request, resource)
        if kind == "comments":
            comments = [(pr, index, comment) for index, comment in enumerate(pr.review_comments)]
            return self._page(comments, lambda c: self._comment_object(*c), request, resource)
        reviews = list(enumerate(pr.reviews))
        return self._page(reviews, lambda r: self._review_object(pr, *r), request, resource)

    def _history_route(
        self, kind: str, repo: _Repo, params: dict[str, str], request: RecordedRequest, resource: str
    ) -> Response:
        history = self.history(repo.full_name)
        api, web = self._api(repo.full_name), f"{self.web_url}/{repo.full_name}"
        if kind == "releases":
            newest = sorted(history.releases, key=lambda release: release.id, reverse=True)
            return self._page(newest, lambda release: release_object(api, web, release), request, resource)
        if kind == "commit_pulls":
            commit = next((c for c in history.commits if c.sha.startswith(params["sha"])), None)
            if commit is None:
                return self._json(
                    {"message": "No commit found for SHA: " + params["sha"], "documentation_url": DOCS}, resource, 422
                )
            pulls = [repo.pulls[commit.pr]] if commit.pr is not None and commit.pr in repo.pulls else []
            return self._json([self._pull_object(pr, full=False) for pr in pulls], resource)
        base, _, head = unquote(params["basehead"]).partition("...")
        base_sha, head_sha = history.sha_of(base), history.sha_of(head)
        if not head or base_sha is None or head_sha is None:
            return self._not_found(resource)
        commits = history.between(base_sha, head_sha)
        envelope: dict[str, Any] = {
            "url": f"{api}/compare/{base}...{head}",
            "html_url": f"{web}/compare/{base}...{head}",
            "status": "ahead" if commits else "identical",
            "ahead_by": len(commits),
            "behind_by": 0,
            "total_commits": len(commits),
            "files": [],
        }
        if "per_page" not in request.query and "page" not in request.query:
            # No paging asked: the newest 250 commits, the rest silently left out (GitHub's docs).
            shown = commits[-UNPAGED_COMPARE_LIMIT:]
            return self._json({**envelope, "commits": [commit_object(api, c) for c in shown]}, resource)
        return self._page(commits, lambda c: commit_object(api, c), request, resource, envelope, key="commits")

    def _take_fault(self, path: str) -> _Fault | None:
        for fault in self._faults:
            if fault.pattern.search(path):
                fault.times -= 1
                if fault.times <= 0:
                    self._faults.remove(fault)
                return fault
        return None

    # -- endpoints -------------------------------------------------------------------------

    def _list_pulls(self, repo: _Repo, request: RecordedRequest) -> Response:
        state = request.query.get("state", "open")
        sort = request.query.get("sort", "created")
        # GitHub's default direction is desc for created (the default sort), asc otherwise.
        direction = request.query.get("direction", "desc" if sort == "created" else "asc")
        pulls = [p for p in repo.pulls.values() if state in ("all", p.state)]
        key: Callable[[_PR], Any] = (
            (lambda p: (p.updated_at, p.number)) if sort == "updated" else (lambda p: (p.created_at, p.number))
        )
        pulls.sort(key=key, reverse=direction == "desc")
        return self._page(pulls, lambda p: self._pull_object(p, full=False), request, "core")

    def _repo_comments(self, repo: _Repo, request: RecordedRequest) -> Response:
        """GET /repos/{owner}/{repo}/pulls/comments ("List review comments in a repository").

        GitHub's docs: "By default, review comments are in ascending order by ID"; `sort` is
        created or updated, `direction` asc or desc ("Ignored without sort parameter"), `since`
        keeps the comments last updated at or after the given time. The fake's ids are hashes, so
        its id order is creation order.
        """
        since_text = request.query.get("since")
        try:
            since = _utc(datetime.fromisoformat(since_text)) if since_text else None
        except ValueError:
            return self._json(
                {"message": "Invalid value for parameter 'since'", "documentation_url": DOCS}, "core", 422
            )
        found = [
            (pr, index, comment)
            for pr in repo.pulls.values()
            for index, comment in enumerate(pr.review_comments)
            if since is None or _comment_time(pr, comment, "updated_at") >= since
        ]
        sort = request.query.get("sort")
        if sort in ("created", "updated"):
            found.sort(
                key=lambda c: (_comment_time(c[0], c[2], f"{sort}_at"), c[0].number, c[1]),
                reverse=request.query.get("direction", "desc") == "desc",
            )
        else:
            found.sort(key=lambda c: (_comment_time(c[0], c[2], "created_at"), c[0].number, c[1]))
        return self._page(found, lambda c: self._comment_object(*c), request, "core")

    def _search(self, request: RecordedRequest) -> Response:
        query = request.query.get("q", "")
        try:
            matches = self._matcher(query)
        except ValueError as exc:
            return self._json(
                {"message": "Validation Failed", "errors": [{"message": str(exc)}], "documentation_url": DOCS},
                "search",
                422,
            )
        unknown = [name for name in _repos_named(query) if name.lower() not in self._repos]
        if unknown:
            # What github.com answers for a repo: qualifier naming no repository it can show.
            return self._json(
                {
                    "message": "Validation Failed",
                    "errors": [
                        {
                            "message": "The listed users and repositories cannot be searched either because the "
                            "resources do not exist or you do not have permission to view them.",
                            "resource": "Search",
                            "field": "q",
                            "code": "invalid",
                        }
                    ],
                    "documentation_url": f"{DOCS}/search/search#search-issues-and-pull-requests",
                },
                "search",
                422,
            )
        found = [pr for repo in self._repos.values() for pr in repo.pulls.values() if matches(pr)]
        sort = request.query.get("sort")
        descending = request.query.get("order", "desc") == "desc"
        if sort in ("created", "updated"):
            found.sort(key=lambda p: (getattr(p, f"{sort}_at"), p.number), reverse=descending)
        else:  # "best match": any stable order will do
            found.sort(key=lambda p: p.number, reverse=True)
        envelope = {"total_count": len(found), "incomplete_results": False}
        return self._page(
            found[:MAX_SEARCH_RESULTS], lambda p: self._issue_object(p) | {"score": 1.0}, request, "search", envelope
        )

    def _matcher(self, query: str) -> Callable[[_PR], bool]:
        """Turns a search query into a predicate; unknown qualifiers are ignored."""
        repos: list[str] = []
        checks: list[Callable[[_PR], bool]] = []
        words: list[str] = []
        for token in query.split():
            name, sep, value = token.partition(":")
            name = name.lower()
            if not sep:
                words.append(token.lower())
            elif name == "repo":
                repos.append(value.lower())
            elif name in ("is", "type", "state"):
                check = _IS_CHECKS.get(value.lower())
                if check is not None:
                    checks.append(check)
            elif name in ("merged", "closed", "created", "updated"):
                checks.append(_time_check(f"{name}_at", value))
            elif name == "author":
                checks.append(_author_is(value))
            elif name == "label":
                checks.append(_has_label(value.strip('"')))
        if repos:
            checks.append(lambda p: p.repo.lower() in repos)
        if words:
            checks.append(lambda p: all(w in f"{p.title}\n{p.body}".lower() for w in words))
        return lambda pr: all(check(pr) for check in checks)

    def _rate_limit_body(self) -> dict[str, Any]:
        core, search = self._rate("core"), self._rate("search")
        return {"resources": {"core": core, "search": search}, "rate": core}

    def _rate(self, resource: str) -> dict[str, Any]:
        budget = self._budget
        limit = SEARCH_LIMIT if resource == "search" else budget.limit
        # Unlimited (None): report a budget that never quite runs out.
        remaining = budget.remaining if budget.remaining is not None else max(limit - budget.used, 1)
        reset = budget.reset_at if remaining > 0 else int(time.time() + self.rate_limit_reset_in)
        limit = max(limit, remaining)
        return {"limit": limit, "remaining": remaining, "reset": reset, "used": limit - remaining, "resource": resource}

    # -- responses -------------------------------------------------------------------------

    def _headers(self, resource: str) -> dict[str, str]:
        rate = self._rate(resource)
        return {
            "x-ratelimit-limit": str(rate["limit"]),
            "x-ratelimit-remaining": str(rate["remaining"]),
            "x-ratelimit-reset": str(rate["reset"]),
            "x-ratelimit-used": str(rate["used"]),
            "x-ratelimit-resource": resource,
            "x-github-api-version-selected": "2022-11-28",
            "x-github-media-type": "github.v3; format=json",
        }

    def _json(self, payload: Any, resource: str, status: int = 200, headers: dict[str, str] | None = None) -> Response:
        return Response.json(payload, status, {**self._headers(resource), **(headers or {})})

    def _not_found(self, resource: str) -> Response:
        return self._json({"message": "Not Found", "documentation_url": DOCS, "status": "404"}, resource, 404)

    def _rate_limited(self, resource: str) -> Response:
        body = {"message": RATE_LIMIT_MESSAGE, "documentation_url": f"{DOCS}/overview/rate-limits-for-the-rest-api"}
        reset = str(int(time.time() + self.rate_limit_reset_in))
        return self._json(body, resource, 403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": reset})

    def _page(
        self,
        items: Sequence[T],
        render: Callable[[T], Any],
        request: RecordedRequest,
        resource: str,
        envelope: dict[str, Any] | None = None,
        key: str = "items",
    ) -> Response:
        """One page of `items` (per_page default 30, max 100) with GitHub's Link header.

        Only the page's items are rendered: a 3,000-file PR is read in 30 requests.
        """
        per_page = min(max(_int(request.query.get("per_page"), 30), 1), 100)
        page = max(_int(request.query.get("page"), 1), 1)
        last = max(1, -(-len(items) // per_page))
        chunk = [render(item) for item in items[(page - 1) * per_page : page * per_page]]
        links = []
        for rel, target in (("prev", page - 1), ("next", page + 1), ("last", last), ("first", 1)):
            # GitHub sends next/last only before the last page, prev/first only after the first.
            if (rel in ("next", "last") and page < last) or (rel in ("prev", "first") and page > 1):
                query = {**request.query, "per_page": str(per_page), "page": str(target)}
                links.append(f'<{self.url}{request.path}?{urlencode(query)}>; rel="{rel}"')
        headers = {"link": ", ".join(links)} if links else {}
        body: Any = {**envelope, key: chunk} if envelope is not None else chunk
        return self._json(body, resource, headers=headers)

    # -- GitHub-shaped objects -------------------------------------------------------------

    def _api(self, repo: str) -> str:
        return f"{self.api_url}/repos/{repo}"

    def _repo_object(self, repo: _Repo) -> dict[str, Any]:
        owner, name = repo.full_name.split("/")
        return {
            "id": _fake_id(repo.full_name),
            "node_id": f"R_{_fake_id(repo.full_name)}",
            "name": name,
            "full_name": repo.full_name,
            "owner": _user(owner, "Organization"),
            "private": repo.private,
            "visibility": "private" if repo.private else "public",
            "html_url": f"{self.web_url}/{repo.full_name}",
            "url": self._api(repo.full_name),
            "default_branch": "main",
            "fork": False,
            "archived": False,
        }

    def _user_object(self, user: _User) -> dict[str, Any]:
        """GET /users/{login}: GitHub's public-user object (docs: "Get a user"), profile left blank."""
        api = f"{self.api_url}/users/{user.login}"
        return _user(user.login, user.kind) | {
            "node_id": f"U_{_fake_id(user.login)}",
            "avatar_url": f"https://avatars.githubusercontent.com/u/{_fake_id(user.login)}?v=4",
            "gravatar_id": "",
            "url": api,
            "html_url": f"{self.web_url}/{user.login}",
            "followers_url": f"{api}/followers",
            "following_url": f"{api}/following{{/other_user}}",
            "gists_url": f"{api}/gists{{/gist_id}}",
            "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{api}/subscriptions",
            "organizations_url": f"{api}/orgs",
            "repos_url": f"{api}/repos",
            "events_url": f"{api}/events{{/privacy}}",
            "received_events_url": f"{api}/received_events",
            "name": user.name,
            "company": None,
            "blog": "",
            "location": None,
            "email": None,
            "hireable": None,
            "bio": None,
            "twitter_username": None,
            "public_repos": 0,
            "public_gists": 0,
            "followers": 0,
            "following": 0,
            "created_at": _ts(_DEFAULT_EPOCH - timedelta(days=3650)),
            "updated_at": _ts(_DEFAULT_EPOCH),
        }

    def _pull_object(self, pr: _PR, *, full: bool) -> dict[str, Any]:
        api, html = f"{self._api(pr.repo)}/pulls/{pr.number}", f"{self.web_url}/{pr.repo}/pull/{pr.number}"
        repository = self._repo_object(self._repos[pr.repo.lower()])
        obj: dict[str, Any] = {
            "url": api,
            "id": _fake_id(f"{pr.repo}#{pr.number}"),
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "issue_url": f"{self._api(pr.repo)}/issues/{pr.number}",
            "comments_url": f"{self._api(pr.repo)}/issues/{pr.number}/comments",
            "review_comments_url": f"{api}/comments",
            "number": pr.number,
            "state": pr.state,
            "locked": False,
            "title": pr.title,
            "user": _user(pr.author, pr.author_type),
            "body": pr.body or None,
            "labels": [_label(name) for name in pr.labels],
            "milestone": None,
            "created_at": _ts(pr.created_at),
            "updated_at": _ts(pr.updated_at),
            "closed_at": _ts(pr.closed_at),
            "merged_at": _ts(pr.merged_at),
            "merge_commit_sha": pr.merge_commit_sha,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "head": {
                "label": f"{pr.author}:pr-{pr.number}",
                "ref": f"pr-{pr.number}",
                "sha": pr.head_sha,
                "repo": repository,  # the author's fork on GitHub; the fake has no forks
            },
            "base": {
                "label": f"{pr.repo.split('/')[0]}:main",
                "ref": "main",
                "sha": _fake_sha(f"{pr.repo}:base"),
                "repo": repository,
            },
            "author_association": "CONTRIBUTOR",
            "auto_merge": None,
            "draft": False,
        }
        if full:  # only the single-PR endpoint has these (the list would need a diff per PR)
            obj |= {
                "merged": pr.merged_at is not None,
                "mergeable": None,
                "rebaseable": None,
                "mergeable_state": "unknown",
                "merged_by": _user("maintainer") if pr.merged_at else None,
                "comments": 0,
                "review_comments": len(pr.review_comments),
                "maintainer_can_modify": False,
                "commits": 1,
                "additions": sum(f.additions for f in pr.files),
                "deletions": sum(f.deletions for f in pr.files),
                "changed_files": len(pr.files),
            }
        return obj

    def _issue_object(self, pr: _PR) -> dict[str, Any]:
        api, html = f"{self._api(pr.repo)}/issues/{pr.number}", f"{self.web_url}/{pr.repo}/pull/{pr.number}"
        return {
            "url": api,
            "repository_url": self._api(pr.repo),
            "html_url": html,
            "id": _fake_id(f"{pr.repo}#{pr.number}:issue"),
            "number": pr.number,
            "title": pr.title,
            "user": _user(pr.author, pr.author_type),
            "labels": [_label(name) for name in pr.labels],
            "state": pr.state,
            "locked": False,
            "assignees": [],
            "milestone": None,
            "comments": 0,
            "created_at": _ts(pr.created_at),
            "updated_at": _ts(pr.updated_at),
            "closed_at": _ts(pr.closed_at),
            "author_association": "CONTRIBUTOR",
            "draft": False,
            "body": pr.body or None,
            "pull_request": {
                "url": f"{self._api(pr.repo)}/pulls/{pr.number}",
                "html_url": html,
                "diff_url": f"{html}.diff",
                "patch_url": f"{html}.patch",
                "merged_at": _ts(pr.merged_at),
            },
        }

    def _file_object(self, pr: _PR, f: _File) -> dict[str, Any]:
        ref = pr.head_sha
        obj: dict[str, Any] = {
            "sha": _fake_sha(f"{pr.repo}#{pr.number}:{f.path}"),
            "filename": f.path,
            "status": f.status,
            "additions": f.additions,
            "deletions": f.deletions,
            "changes": f.additions + f.deletions,
            "blob_url": f"{self.web_url}/{pr.repo}/blob/{ref}/{quote(f.path)}",
            "raw_url": f"{self.web_url}/{pr.repo}/raw/{ref}/{quote(f.path)}",
            "contents_url": f"{self._api(pr.repo)}/contents/{quote(f.path)}?ref={ref}",
        }
        if f.patch is not None:
            obj["patch"] = f.patch
        if f.previous_path is not None:
            obj["previous_filename"] = f.previous_path
        return obj

    def _comment_object(self, pr: _PR, index: int, comment: dict[str, Any]) -> dict[str, Any]:
        comment_id = _fake_id(f"{pr.repo}#{pr.number}:comment:{index}")
        created = _ts(_comment_time(pr, comment, "created_at"))
        updated = _ts(_comment_time(pr, comment, "updated_at"))
        return {
            "id": comment_id,
            "url": f"{self._api(pr.repo)}/pulls/comments/{comment_id}",
            "pull_request_url": f"{self._api(pr.repo)}/pulls/{pr.number}",
            "html_url": f"{self.web_url}/{pr.repo}/pull/{pr.number}#discussion_r{comment_id}",
            "body": comment["body"],
            "path": comment.get("path"),
            "user": _user(comment.get("author", "bob")),
            "diff_hunk": comment.get("diff_hunk", "@@ -1,3 +1,3 @@"),
            "line": comment.get("line", 1),
            "side": "RIGHT",
            "commit_id": pr.head_sha,
            "author_association": "MEMBER",
            "created_at": created,
            "updated_at": updated,
        }

    def _review_object(self, pr: _PR, index: int, review: dict[str, Any]) -> dict[str, Any]:
        review_id = _fake_id(f"{pr.repo}#{pr.number}:review:{index}")
        return {
            "id": review_id,
            "user": _user(review.get("author", "bob")),
            "body": review.get("body", ""),
            "state": review.get("state", "COMMENTED"),
            "commit_id": pr.head_sha,
            "author_association": "MEMBER",
            "html_url": f"{self.web_url}/{pr.repo}/pull/{pr.number}#pullrequestreview-{review_id}",
            "pull_request_url": f"{self._api(pr.repo)}/pulls/{pr.number}",
            "submitted_at": _ts(review.get("submitted_at") or pr.updated_at),
        }


_REPO = r"/repos/(?P<owner>[^/]+)/(?P<name>[^/]+)"
_REPO_PREFIX = re.compile(_REPO + r"(?:/|$)")
_ROUTES: list[tuple[str, re.Pattern[str]]] = [
    ("rate_limit", re.compile(r"/rate_limit")),
    ("search", re.compile(r"/search/issues")),
    ("repo", re.compile(_REPO)),
    ("pulls", re.compile(_REPO + r"/pulls")),
    ("pull", re.compile(_REPO + r"/pulls/(?P<number>\d+)")),
    ("repo_comments", re.compile(_REPO + r"/pulls/comments")),
    ("files", re.compile(_REPO + r"/pulls/(?P<number>\d+)/files")),
    ("comments", re.compile(_REPO + r"/pulls/(?P<number>\d+)/comments")),
    ("reviews", re.compile(_REPO + r"/pulls/(?P<number>\d+)/reviews")),
    ("issue", re.compile(_REPO + r"/issues/(?P<number>\d+)")),
    ("user", re.compile(r"/users/(?P<login>[^/]+)")),
    ("releases", re.compile(_REPO + r"/releases")),
    ("compare", re.compile(_REPO + r"/compare/(?P<basehead>[^/]+)")),
    ("commit_pulls", re.compile(_REPO + r"/commits/(?P<sha>[0-9a-f]{7,40})/pulls")),
    # A GitHub App's endpoints (register_app), signed with its JWT.
    ("app", re.compile(r"/app")),
    ("app_installations", re.compile(r"/app/installations")),
    ("access_tokens", re.compile(r"/app/installations/(?P<id>\d+)/access_tokens")),
    ("repo_installation", re.compile(_REPO + r"/installation")),
    ("org_installation", re.compile(r"/orgs/(?P<org>[^/]+)/installation")),
]
_APP_KINDS = frozenset({"app", "app_installations", "access_tokens", "repo_installation", "org_installation"})
_ROUTE_BY_KIND = dict(_ROUTES)

_IS_CHECKS: dict[str, Callable[[_PR], bool]] = {
    "pr": lambda p: True,
    "pull-request": lambda p: True,
    "issue": lambda p: False,  # the fake only holds PRs
    "merged": lambda p: p.merged_at is not None,
    "unmerged": lambda p: p.merged_at is None and p.state == "closed",
    "closed": lambda p: p.state == "closed",
    "open": lambda p: p.state == "open",
}


def _comment_time(pr: _PR, comment: dict[str, Any], field: str) -> datetime:
    """A review comment's created_at or updated_at; unset, it was written at the PR's last update
    (and an unset updated_at is its created_at: never edited)."""
    created = _utc(comment.get("created_at")) or pr.updated_at
    if field == "created_at":
        return created
    return _utc(comment.get("updated_at")) or created


def _repos_named(query: str) -> list[str]:
    return [token.partition(":")[2] for token in query.split() if token.lower().startswith("repo:")]


def _author_is(login: str) -> Callable[[_PR], bool]:
    return lambda pr: pr.author.lower() == login.lower()


def _has_label(label: str) -> Callable[[_PR], bool]:
    return lambda pr: label.lower() in (name.lower() for name in pr.labels)


def _time_check(attribute: str, value: str) -> Callable[[_PR], bool]:
    """A search date qualifier (`A..B`, `>=A`, `<B`, `A`, ...) as a predicate on a PR time.

    A date stands for the whole UTC day and a date-time for its second, so `..2026-08-05`
    includes all of Aug 5 and `>2026-08-05` starts on Aug 6, as on GitHub.
    """
    lower, upper = _time_range(value)

    def check(pr: _PR) -> bool:
        moment: datetime | None = getattr(pr, attribute)
        return moment is not None and (lower is None or moment >= lower) and (upper is None or moment < upper)

    return check


def _time_range(value: str) -> tuple[datetime | None, datetime | None]:
    """[lower, upper) bounds for a qualifier value; None is unbounded."""
    if ".." in value:
        start, end = value.split("..", 1)
        return (None if start in ("", "*") else _span(start)[0]), (None if end in ("", "*") else _span(end)[1])
    for op in (">=", "<=", ">", "<"):
        if value.startswith(op):
            first, after = _span(value[len(op) :])
            return {">=": (first, None), ">": (after, None), "<=": (None, after), "<": (None, first)}[op]
    return _span(value)


def _span(text: str) -> tuple[datetime, datetime]:
    """The interval [start, end) a date (one day) or a date-time (one second) denotes."""
    try:
        if len(text) == 10:
            day = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
            return day, day + timedelta(days=1)
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"invalid date {text!r}") from None
    moment = _utc(moment) or moment
    return moment, moment + timedelta(seconds=1)


def _make_file(spec: dict[str, Any]) -> _File:
    binary = bool(spec.get("binary"))
    additions = 0 if binary else int(spec.get("additions") or 0)
    deletions = 0 if binary else int(spec.get("deletions") or 0)
    previous = spec.get("previous_path")
    if binary:
        patch = None
    elif "patch" in spec:
        patch = spec["patch"]  # None: GitHub omitted it (diff too large)
    else:
        patch = synth_patch(spec["path"], additions, deletions) or None  # no patch for a pure rename
    status = spec.get("status") or ("renamed" if previous else "modified")
    return _File(spec["path"], additions, deletions, status, patch, previous)


def _user(login: str, kind: str = "User") -> dict[str, Any]:
    return {
        "login": login,
        "id": _fake_id(login),
        "type": kind,
        "site_admin": False,
        "html_url": f"https://github.com/{login}",
    }


def _label(name: str) -> dict[str, Any]:
    return {"id": _fake_id(f"label:{name}"), "name": name, "color": "ededed", "default": False}


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _ts(moment: datetime | None) -> str | None:
    return _utc(moment).strftime("%Y-%m-%dT%H:%M:%SZ") if moment else None  # type: ignore[union-attr]


def _fake_sha(seed: str) -> str:
    return hashlib.sha1(seed.encode()).hexdigest()


def _fake_id(seed: str) -> int:
    return zlib.crc32(seed.encode()) or 1


def _int(value: str | None, default: int) -> int:
    try:
        return int(value) if value else default
    except ValueError:
        return default


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"
