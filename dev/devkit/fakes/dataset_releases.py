"""The releases the fakes tag over the shared vLLM data set, so that `prdigest release` can be tried.

The data set holds no tags (its README: PR metadata and per-file counts only), so these are ours.
FakeGitHub builds the branch from the merged PRs as vLLM's is (one squash commit per PR on the
first-parent chain, subject "TITLE (#N)": devkit/fakes/github_releases.py) and tags the newest
commit at or before each release's moment. Each release is at the end of a UTC day, so it holds
whole days of the data set: a base before its first day, then a pre-release and a release a day
apart, and the same for the next version.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from devkit.fakes.github import FakeGitHub


@dataclass(frozen=True)
class DatasetRelease:
    tag: str
    at: datetime  # on the data set's own days, before --ends-now moves them
    prerelease: bool = False


def _day_end(day: str) -> datetime:
    return datetime.fromisoformat(day).replace(tzinfo=UTC) + timedelta(hours=23, minutes=59)


RELEASES = (
    DatasetRelease("v0.12.0", _day_end("2026-08-03")),  # before the first PR: the base of the next
    DatasetRelease("v0.12.1rc1", _day_end("2026-08-04"), prerelease=True),
    DatasetRelease("v0.12.1", _day_end("2026-08-05")),  # Aug 4 and 5: the README's day and the one before
    DatasetRelease("v0.13.0rc1", _day_end("2026-08-10"), prerelease=True),
    DatasetRelease("v0.13.0", _day_end("2026-08-13")),
)


def add_releases(fake: FakeGitHub, repo: str, *, until: datetime | None, shift: timedelta = timedelta()) -> list[str]:
    """Tag the releases made by `until` (the end of what the fake serves; None: all), each moved
    by `shift` as the PRs were moved; the tags added, oldest first."""
    made = [release for release in RELEASES if until is None or release.at < until]
    for release in made:
        fake.add_release(repo, release.tag, release.at + shift, prerelease=release.prerelease)
    return [release.tag for release in made]
