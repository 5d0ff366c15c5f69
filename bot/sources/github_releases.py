"""GitHubReleases: a repository's releases and the commits of a tag range, through PyGithub.

Owns three endpoints and their costs:
- `GET /repos/{o}/{r}/releases`: pages of 100.
- `GET /repos/{o}/{r}/compare/{base}...{head}`: GitHub's docs: "When calling this API without any
  paging parameters (per_page or page), the returned list is limited to 250 commits"; with them,
  every commit comes back page by page. So it is always asked with per_page (100 a page).
- `GET /repos/{o}/{r}/commits/{sha}/pulls`: one request, only for a first-parent commit whose
  subject names no PR (a direct push, a rebase merge).
Reads only attributes that list items carry (sha, parents, the commit message; a release's tag,
dates and flags), since any other one, and `raw_data`, costs a hidden GET. Errors go through
sources/github_errors.py like GitHubSource's.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from github import Github

from bot.models import Commit, Release
from bot.ops.redact import redact_url
from bot.sources.github_errors import github_errors

# Commits per compare page: GitHub's pagination pages hold up to 100 items (its docs on
# "Using pagination in the REST API"); PyGithub would otherwise ask for 250 unpaged.
COMPARE_PAGE = 100


class GitHubReleases:
    def __init__(self, client: Callable[[], Github], *, authenticated: bool, api_url: str) -> None:
        self._gh = client  # this thread's client (sources/github_clients.py)
        self._authenticated = authenticated
        self._api_url = redact_url(api_url)

    def releases(self, repo: str) -> list[Release]:
        with self._errors(f"the releases of {repo}"):
            return [_release(item) for item in self._gh().get_repo(repo).get_releases()]

    def compare(self, repo: str, base: str, head: str) -> tuple[list[Commit], str]:
        with self._errors(f"{repo} {base}...{head}"):
            comparison = self._gh().get_repo(repo).compare(base, head, comparison_commits_per_page=COMPARE_PAGE)
            commits = [_commit(item) for item in comparison.commits]
        # The compare's commits end with head itself ("the last commit in the list is the most
        # recent of the entire comparison"): an empty range has no head to report.
        return commits, commits[-1].sha if commits else ""

    def pulls_of_commit(self, repo: str, sha: str) -> list[int]:
        with self._errors(f"the PRs of {repo}@{sha[:12]}"):
            pulls = self._gh().get_repo(repo).get_commit(sha).get_pulls()
            return [pull.number for pull in pulls if pull.merged_at is not None]

    def _errors(self, what: str) -> Any:
        return github_errors(what, api_url=self._api_url, authenticated=self._authenticated)


def _release(item: Any) -> Release:
    # Attributes a list item carries (raw_data would complete the object with a GET of its own).
    return Release(
        tag=str(item.tag_name or ""),
        published_at=_utc(item.published_at),
        draft=bool(item.draft),
        prerelease=bool(item.prerelease),
        name=str(item.name or ""),
    )


def _commit(item: Any) -> Commit:
    message = str(item.commit.message or "")
    parents = tuple(str(parent.sha) for parent in item.parents or () if parent.sha)
    return Commit(sha=str(item.sha), parents=parents, subject=message.split("\n", 1)[0])


def _utc(moment: datetime | None) -> datetime | None:
    return moment if moment is None or moment.tzinfo else moment.replace(tzinfo=UTC)
