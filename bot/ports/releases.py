"""The release port: what the release digests need of the code host (sources/github_releases.py)."""

from __future__ import annotations

from typing import Protocol

from bot.models import Commit, Release


class ReleaseSource(Protocol):
    def releases(self, repo: str) -> list[Release]:
        """Every release of `repo`, drafts included (a token with push access sees those)."""
        ...

    def compare(self, repo: str, base: str, head: str) -> tuple[list[Commit], str]:
        """Every commit reachable from `head` and not from `base`, and head's SHA."""
        ...

    def pulls_of_commit(self, repo: str, sha: str) -> list[int]:
        """The merged PRs that brought `sha` in (for a subject that names none)."""
        ...
