"""A release and the commits of a tag range, as the code host gives them (sources/github.py).

Plain frozen values: what `GET /repos/{o}/{r}/releases` and `GET /repos/{o}/{r}/compare/{base}...{head}`
carry that a release digest reads, and nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Release:
    tag: str
    published_at: datetime | None  # None: a draft, never published
    draft: bool = False
    prerelease: bool = False
    name: str = ""


@dataclass(frozen=True)
class Commit:
    """One commit of a compare: its SHA, its parents' SHAs (first parent first) and its subject."""

    sha: str
    parents: tuple[str, ...]
    subject: str


@dataclass(frozen=True)
class ReleasePR:
    """A PR of a release: its number and the commit that brought it onto the release's branch
    (the squash commit, or the merge commit), which is the PR's merge SHA."""

    number: int
    sha: str
