"""A repository's branch history and releases, as GitHub's REST API shows them (FakeGitHub's part).

The history is the default branch's first-parent chain: one squash commit per merged PR, in
merge order, subject "TITLE (#N)" and SHA the PR's merge_commit_sha, plus commits pushed
directly ("Bump the version", no PR). A tag names the newest commit at or before its moment. A
PR merged with a merge commit instead (`merge_commit=True`) is "Merge pull request #N from …"
with its branch's own commits as second parent: they are reachable, but not first-parent.

What GitHub's docs say these endpoints do, kept here:
- `GET /repos/{o}/{r}/releases`: newest first, paginated (per_page ≤ 100, Link headers).
- `GET /repos/{o}/{r}/compare/{base}...{head}`: "commits are returned in chronological order";
  "When calling this API without any paging parameters (per_page or page), the returned list is
  limited to 250 commits and the last commit in the list is the most recent of the entire
  comparison"; with them, pages of per_page (≤ 100 here, as GitHub's pagination guide says) and a
  Link header; an unknown base or head is a 404.
- `GET /repos/{o}/{r}/commits/{sha}/pulls`: the PRs associated with a commit ([] for a push).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

# GitHub's cut when compare is asked without paging parameters.
UNPAGED_COMPARE_LIMIT = 250


@dataclass
class HistoryCommit:
    sha: str
    parents: tuple[str, ...]
    message: str
    at: datetime
    pr: int | None  # the PR that brought it in (None: pushed directly, or inside a PR's branch)
    first_parent: bool = True


@dataclass
class FakeRelease:
    tag: str
    sha: str
    published_at: datetime | None
    draft: bool
    prerelease: bool
    id: int


@dataclass
class History:
    """One repository's branch and releases."""

    commits: list[HistoryCommit] = field(default_factory=list)  # every commit, chronological
    releases: list[FakeRelease] = field(default_factory=list)

    def ordered(self) -> list[HistoryCommit]:
        return sorted(self.commits, key=lambda commit: commit.at)

    def first_parents(self) -> list[HistoryCommit]:
        return [commit for commit in self.ordered() if commit.first_parent]

    def sha_of(self, ref: str) -> str | None:
        """A tag's or a commit's SHA (a full SHA or its first 7+ characters)."""
        release = next((release for release in self.releases if release.tag == ref), None)
        if release is not None:
            return release.sha
        found = [commit.sha for commit in self.commits if len(ref) >= 7 and commit.sha.startswith(ref)]
        return found[0] if len(found) == 1 else None

    def between(self, base: str, head: str) -> list[HistoryCommit]:
        """`git log base..head`, chronological: reachable from head, not from base."""
        by_sha = {commit.sha: commit for commit in self.commits}

        def reachable(sha: str) -> set[str]:
            seen: set[str] = set()
            todo = [sha]
            while todo:
                at = todo.pop()
                if at in seen or at not in by_sha:
                    continue
                seen.add(at)
                todo.extend(by_sha[at].parents)
            return seen

        wanted = reachable(head) - reachable(base)
        return [commit for commit in self.ordered() if commit.sha in wanted]


def fake_sha(seed: str) -> str:
    return hashlib.sha1(seed.encode()).hexdigest()


def commit_object(api: str, commit: HistoryCommit) -> dict[str, Any]:
    """A commit as compare lists it (the fields PyGithub's Commit reads without a GET)."""
    stamp = commit.at.strftime("%Y-%m-%dT%H:%M:%SZ")
    person = {"name": "someone", "email": "someone@example.com", "date": stamp}
    return {
        "sha": commit.sha,
        "node_id": f"C_{commit.sha[:12]}",
        "url": f"{api}/commits/{commit.sha}",
        "html_url": f"{api}/commit/{commit.sha}",
        "commit": {
            "message": commit.message,
            "author": person,
            "committer": person,
            "url": f"{api}/git/commits/{commit.sha}",
            "comment_count": 0,
            "tree": {"sha": fake_sha(commit.sha + ":tree"), "url": f"{api}/git/trees/x"},
        },
        "parents": [{"sha": parent, "url": f"{api}/commits/{parent}"} for parent in commit.parents],
    }


def release_object(api: str, web: str, release: FakeRelease) -> dict[str, Any]:
    stamp = release.published_at.strftime("%Y-%m-%dT%H:%M:%SZ") if release.published_at else None
    return {
        "url": f"{api}/releases/{release.id}",
        "html_url": f"{web}/releases/tag/{release.tag}",
        "id": release.id,
        "node_id": f"RE_{release.id}",
        "tag_name": release.tag,
        "target_commitish": "main",
        "name": release.tag,
        "body": "",
        "draft": release.draft,
        "prerelease": release.prerelease,
        "created_at": stamp,
        "published_at": stamp,
        "author": {"login": "releaser", "id": 1, "type": "User"},
        "assets": [],
    }
