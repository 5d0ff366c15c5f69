"""ReleaseStore: what a repository's releases are, and which PRs a tag range holds.

- releases:{owner/repo}              10 minutes: the release list; a new release is seen within
                                     that long (the webhook's `release` event does not wait).
- release:{owner/repo}:{base}...{tag} 90 days: the range's PRs (number and merge SHA). A tag
                                     names one commit for good, so what lies between two tags
                                     never changes: it is read from GitHub once.
- release_unknown:{owner/repo}:{base}...{tag}  10 minutes: GitHub's compare knew no such range
                                     (a 404: a tag not pushed yet, or mistyped).

Caches: they stay open without Redis (a miss, and GitHub is asked again).
"""

from __future__ import annotations

from pydantic import TypeAdapter, ValidationError

from bot.models import Release, ReleasePR
from bot.store.codec import deferred
from bot.store.kv import DAY, KV

RELEASES_TTL = 600
RANGE_TTL = 90 * DAY
# A range GitHub does not know is asked about once in this long, however often it is named; a tag
# pushed meanwhile is found as soon as it ends, as a new release is seen within RELEASES_TTL.
UNKNOWN_RANGE_TTL = RELEASES_TTL

_RELEASES: TypeAdapter[list[Release]] = deferred(list[Release])
# The range's PRs, and how many of its first-parent commits no PR could be found for.
_RANGE: TypeAdapter[tuple[list[ReleasePR], int]] = deferred(tuple[list[ReleasePR], int])


def range_key(repo: str, base: str, tag: str) -> str:
    return f"release:{repo.lower()}:{base}...{tag}"


def unknown_range_key(repo: str, base: str, tag: str) -> str:
    return f"release_unknown:{repo.lower()}:{base}...{tag}"


class ReleaseStore:
    def __init__(self, kv: KV) -> None:
        self._kv = kv

    def releases(self, repo: str) -> list[Release] | None:
        raw = self._kv.get(f"releases:{repo.lower()}")
        try:
            return _RELEASES.validate_json(raw) if raw else None
        except ValidationError:
            return None  # written by another version: asked again

    def remember_releases(self, repo: str, releases: list[Release]) -> None:
        self._kv.set(f"releases:{repo.lower()}", _RELEASES.dump_json(releases), RELEASES_TTL)

    def range(self, repo: str, base: str, tag: str) -> tuple[list[ReleasePR], int] | None:
        raw = self._kv.get(range_key(repo, base, tag))
        try:
            return _RANGE.validate_json(raw) if raw else None
        except ValidationError:
            return None

    def remember_range(self, repo: str, base: str, tag: str, prs: list[ReleasePR], unnamed: int) -> None:
        self._kv.set(range_key(repo, base, tag), _RANGE.dump_json((prs, unnamed)), RANGE_TTL)

    def unknown_range(self, repo: str, base: str, tag: str) -> bool:
        """Whether GitHub said lately that it knows no range `base...tag`."""
        return self._kv.get(unknown_range_key(repo, base, tag)) is not None

    def remember_unknown_range(self, repo: str, base: str, tag: str) -> None:
        self._kv.set(unknown_range_key(repo, base, tag), b"unknown", UNKNOWN_RANGE_TTL)
