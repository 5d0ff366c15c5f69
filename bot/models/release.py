"""A release, the commits of a tag range, and the release digest made of its PRs' cards.

`Release` and `Commit` hold what `GET /repos/{o}/{r}/releases` and `GET /repos/{o}/{r}/compare/…`
carry that a release digest reads (sources/github_releases.py); `ReleaseDigest` is what
releases/digests.py makes of them and render/ words.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from bot.models.digest import Digest, DigestItem

# What a PR asks of someone upgrading (releases/upgrade_notes.py reads it from the cards).
UpgradeKind = Literal["breaking", "removed", "default", "deprecated", "migration"]


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
    title: str = ""  # the squash commit's subject without its "(#N)": the PR's title, for free


@dataclass(frozen=True)
class UpgradeNote:
    """One thing to know before upgrading: its kind and the words that say it (a caveat, or the
    PR's title when the title or a label is what said it)."""

    kind: UpgradeKind
    said: str


@dataclass(frozen=True)
class Upgrade:
    """An upgrade note with the PR it comes from."""

    item: DigestItem
    note: UpgradeNote


@dataclass(frozen=True)
class ReleaseGroup:
    """The release's PRs of one area (labels, title tags, top paths: digests/feedback.py `areas`)."""

    area: str
    items: tuple[DigestItem, ...]  # read-worthy first, as the digest orders them


@dataclass(frozen=True)
class ReleaseDigest:
    repo: str
    tag: str
    base: str  # the release before, or the tag given with --since
    digest: Digest  # every PR of the range with its card; counts come from here
    groups: tuple[ReleaseGroup, ...]
    upgrade: tuple[Upgrade, ...]  # "before you upgrade", in the digest's order
    unnamed: int = 0  # first-parent commits no PR could be found for
