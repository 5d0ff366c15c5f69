"""Which PRs a release holds: from the compare once, then from the store (releases/ranges.py)."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from bot.errors import NotFound, UsageError
from bot.models import Commit, Release, ReleasePR
from bot.releases.ranges import MAX_UNNAMED_LOOKUPS, ReleaseRanges
from bot.store.backends.memory import MemoryKV
from bot.store.repos.releases import UNKNOWN_RANGE_TTL, ReleaseStore, unknown_range_key

REPO = "acme/widgets"


def _day(day: int) -> datetime:
    return datetime(2026, 11, day, tzinfo=UTC)


class Releases:
    """A code host holding three releases and the commits between them, counting what is asked."""

    def __init__(self, commits: list[Commit], pulls: dict[str, list[int]] | None = None) -> None:
        self.commits = commits
        self.pulls = pulls or {}
        self.asked: list[str] = []

    def releases(self, repo: str) -> list[Release]:
        self.asked.append("releases")
        return [Release("v1", _day(1)), Release("v2-rc", _day(5), prerelease=True), Release("v2", _day(9))]

    def compare(self, repo: str, base: str, head: str) -> tuple[list[Commit], str]:
        self.asked.append(f"compare {base}...{head}")
        if head == "nope":
            raise NotFound("error.github_not_found", what=head)
        return self.commits, self.commits[-1].sha

    def pulls_of_commit(self, repo: str, sha: str) -> list[int]:
        self.asked.append(f"pulls {sha}")
        return self.pulls.get(sha, [])


COMMITS = [
    Commit("a", ("base",), "One (#1)"),
    Commit("b", ("a",), "Rebased without a number"),
    Commit("c", ("b",), "Bump the version"),
    Commit("d", ("c",), "Merge pull request #4 from x/y"),
]


def ranges(source: Releases) -> ReleaseRanges:
    return ReleaseRanges(source, ReleaseStore(MemoryKV()))


def test_a_release_runs_from_the_full_release_before_it_and_is_read_once() -> None:
    source = Releases(COMMITS, pulls={"b": [2]})
    found = ranges(source)
    first = found.range(REPO, "v2")
    assert first.base == "v1" and first.prs == (
        ReleasePR(1, "a", "One"),
        ReleasePR(4, "d"),
        ReleasePR(2, "b", "Rebased without a number"),
    )
    assert first.unnamed == 1  # "Bump the version": a commit no PR brought
    again = found.range(REPO, "v2")
    assert again == first
    assert source.asked == ["releases", "compare v1...v2", "pulls b", "pulls c"]


def test_since_names_the_start_and_a_bare_tag_is_fine() -> None:
    source = Releases(COMMITS[:1])
    assert ranges(source).range(REPO, "main-2026-11-30", since="v1").prs == (ReleasePR(1, "a", "One"),)


def test_the_first_release_an_unknown_tag_and_a_range_github_does_not_know_are_one_line_each() -> None:
    found = ranges(Releases(COMMITS))
    with pytest.raises(UsageError, match="first release"):
        found.range(REPO, "v1")
    with pytest.raises(UsageError, match="no release 'v9'"):
        found.range(REPO, "v9")
    with pytest.raises(UsageError, match=re.escape("no range 'v1'...'nope'")):
        found.range(REPO, "nope", since="v1")


def test_the_latest_release_is_the_newest_full_one() -> None:
    assert ranges(Releases(COMMITS)).latest(REPO).tag == "v2"


def test_commits_without_a_number_are_looked_up_at_most_so_many_times() -> None:
    many = [Commit(f"s{i}", (f"s{i - 1}",), "pushed") for i in range(MAX_UNNAMED_LOOKUPS + 5)]
    source = Releases(many)
    found = ranges(source).range(REPO, "v2")
    assert found.unnamed == MAX_UNNAMED_LOOKUPS + 5
    assert sum(asked.startswith("pulls") for asked in source.asked) == MAX_UNNAMED_LOOKUPS


def test_a_range_github_does_not_know_is_asked_about_once_while_remembered() -> None:
    source = Releases(COMMITS)
    kv = MemoryKV()
    found = ReleaseRanges(source, ReleaseStore(kv))
    for _ in range(20):
        with pytest.raises(UsageError, match=re.escape("no range 'v1'...'nope'")):
            found.range(REPO, "nope", since="v1")
    assert source.asked == ["releases", "compare v1...nope"]
    # Shared through the store: another process asks GitHub nothing either; until it lapses.
    other = Releases(COMMITS)
    with pytest.raises(UsageError):
        ReleaseRanges(other, ReleaseStore(kv)).range(REPO, "nope", since="v1")
    assert other.asked == []
    kv.delete(unknown_range_key(REPO, "v1", "nope"))  # UNKNOWN_RANGE_TTL later
    with pytest.raises(UsageError):
        found.range(REPO, "nope", since="v1")
    assert source.asked[-1] == "compare v1...nope"
    assert UNKNOWN_RANGE_TTL <= 600  # a few minutes, as long as the release list is kept


class Publishing(Releases):
    """v3 is tagged and published after a first question about it."""

    published = False

    def releases(self, repo: str) -> list[Release]:
        listed = super().releases(repo)
        return [*listed, Release("v3", _day(20))] if self.published else listed

    def compare(self, repo: str, base: str, head: str) -> tuple[list[Commit], str]:
        if head == "v3" and not self.published:
            self.asked.append(f"compare {base}...{head}")
            raise NotFound("error.github_not_found", what=head)
        return super().compare(repo, base, head)


def test_a_miss_is_not_trusted_once_the_release_list_holds_both_tags() -> None:
    source = Publishing(COMMITS)
    kv = MemoryKV()
    found = ReleaseRanges(source, ReleaseStore(kv))
    with pytest.raises(UsageError, match=re.escape("no range 'v2'...'v3'")):
        found.range(REPO, "v3", since="v2")
    source.published = True
    kv.delete(f"releases:{REPO}")  # the release list read again (its 10 minutes, or a new process)
    assert found.range(REPO, "v3").base == "v2"  # as the `release` webhook asks, right away
    assert source.asked.count("compare v2...v3") == 2
