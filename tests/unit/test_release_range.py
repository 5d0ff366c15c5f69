"""Which PRs a tag range holds, read from a compare's commits (releases/range.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.models import Commit, Release, ReleasePR
from bot.releases.range import first_parent, latest_release, pr_of_subject, previous_release, release_prs


def test_a_squash_subject_and_a_merge_subject_name_their_pr() -> None:
    assert pr_of_subject("[Kernel] Faster top-k (#50912)") == 50912
    assert pr_of_subject("Cherry-pick: fix (#50912) (#51002)\n\nbody (#1)") == 51002
    assert pr_of_subject("Merge pull request #7 from acme/branch") == 7
    assert pr_of_subject("Bump the version to 0.12.0") is None
    assert pr_of_subject("Mentions (#12) in the middle only") is None
    assert pr_of_subject("") is None


def test_only_the_first_parent_chain_is_the_branchs_own() -> None:
    """A merge commit brings a PR's own commits along; they are not PRs of the release."""
    commits = [
        Commit("a", ("base",), "One (#1)"),
        Commit("x1", ("base",), "work in progress (#99)"),  # inside PR 2's branch
        Commit("x2", ("x1",), "more work"),
        Commit("m", ("a", "x2"), "Merge pull request #2 from someone/branch"),
        Commit("b", ("m",), "Three (#3)"),
        Commit("c", ("b",), "Release 1.0"),
    ]
    assert [commit.sha for commit in first_parent(commits, "c")] == ["a", "m", "b", "c"]
    prs, unnamed = release_prs(commits, "c")
    assert prs == [ReleasePR(1, "a", "One"), ReleasePR(2, "m"), ReleasePR(3, "b", "Three")]
    assert [commit.sha for commit in unnamed] == ["c"]


def test_a_pr_named_twice_is_listed_once() -> None:
    commits = [Commit("a", ("base",), "Fix (#5)"), Commit("b", ("a",), "Fix again (#5)")]
    assert release_prs(commits, "b")[0] == [ReleasePR(5, "a", "Fix")]


def _release(tag: str, day: int | None, *, draft: bool = False, pre: bool = False) -> Release:
    when = datetime(2026, 11, day, tzinfo=UTC) if day is not None else None
    return Release(tag, when, draft=draft, prerelease=pre)


RELEASES = [
    _release("v0.11.0", 1),
    _release("v0.11.1", 8),
    _release("v0.12.0rc1", 15, pre=True),
    _release("v0.12.0-draft", None, draft=True),
    _release("v0.12.0", 22),
    _release("v0.13.0rc1", 29, pre=True),
]


def test_the_previous_release_skips_drafts_and_pre_releases_unless_the_tag_is_one() -> None:
    assert (previous_release(RELEASES, "v0.12.0") or _release("?", 1)).tag == "v0.11.1"
    assert (previous_release(RELEASES, "v0.13.0rc1") or _release("?", 1)).tag == "v0.12.0"
    assert (previous_release(RELEASES, "v0.12.0rc1") or _release("?", 1)).tag == "v0.11.1"
    assert previous_release(RELEASES, "v0.11.0") is None
    assert previous_release(RELEASES, "v9") is None


def test_the_latest_release_is_the_newest_full_one() -> None:
    assert (latest_release(RELEASES) or _release("?", 1)).tag == "v0.12.0"
    assert latest_release([]) is None
