"""Which PRs a tag range holds, from the commits of a compare (pure).

A release is what its branch's first-parent history gained between two tags: a squash-merged
PR is one commit whose subject ends with `(#N)`, a merge commit says `Merge pull request #N`.
Commits that reached the branch inside a merged PR (its own history, under a merge commit) are
not the branch's, so only the first-parent chain is read. A subject with neither form (a
direct push, a rebase merge) is left to `GET /repos/{o}/{r}/commits/{sha}/pulls`, by the caller.

Which release came before a tag: the latest published, non-draft release published before it;
pre-releases are passed over unless the tag is one itself (GitHub's generated notes do the same).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.strings.patterns import lazy
from bot.models import Commit, Release, ReleasePR

# "Fix the scheduler (#50912)" (squash), also "… (#50912) (#50913)" after a cherry-pick: the last one.
_SQUASHED = lazy(r"\(#(\d{1,9})\)\s*$")
# "Merge pull request #50912 from owner/branch" (GitHub's merge commit subject).
_MERGED = lazy(r"^Merge pull request #(\d{1,9})\b")


def pr_of_subject(subject: str) -> int | None:
    """The PR a first-parent commit's subject names, or None when it names none."""
    first = subject.splitlines()[0] if subject else ""
    found = _MERGED.match(first) or _SQUASHED.search(first)
    return int(found.group(1)) if found else None


def title_of(subject: str) -> str:
    """A squash commit's subject is its PR's title and "(#N)"; a merge commit's says no title."""
    first = subject.splitlines()[0] if subject else ""
    return "" if _MERGED.match(first) else _SQUASHED.sub("", first).strip()


def first_parent(commits: Sequence[Commit], head: str) -> list[Commit]:
    """The commits of `commits` on the first-parent chain from `head`, oldest first.

    A compare lists every commit reachable from head and not from base, in no promised order for
    merges; following parents[0] from head until it leaves the list gives the branch's own.
    """
    by_sha = {commit.sha: commit for commit in commits}
    chain: list[Commit] = []
    at = by_sha.get(head)
    while at is not None and len(chain) < len(by_sha):
        chain.append(at)
        at = by_sha.get(at.parents[0]) if at.parents else None
    chain.reverse()
    return chain


def release_prs(commits: Sequence[Commit], head: str) -> tuple[list[ReleasePR], list[Commit]]:
    """The PRs of a range (oldest first, each once) and the first-parent commits naming none."""
    prs: list[ReleasePR] = []
    seen: set[int] = set()
    unnamed: list[Commit] = []
    for commit in first_parent(commits, head):
        number = pr_of_subject(commit.subject)
        if number is None:
            unnamed.append(commit)
        elif number not in seen:
            seen.add(number)
            prs.append(ReleasePR(number, commit.sha, title_of(commit.subject)))
    return prs, unnamed


def previous_release(releases: Sequence[Release], tag: str) -> Release | None:
    """The release before `tag`: published, not a draft, before it; a pre-release only when
    `tag` is one. None when `tag` is the first (or is not among `releases`)."""
    current = next((release for release in releases if release.tag == tag), None)
    if current is None or current.published_at is None:
        return None
    cutoff = current.published_at
    earlier = [
        (release.published_at, release)
        for release in releases
        if release.tag != tag
        and not release.draft
        and release.published_at is not None
        and release.published_at < cutoff
        and (current.prerelease or not release.prerelease)
    ]
    return max(earlier, key=lambda dated: dated[0])[1] if earlier else None


def latest_release(releases: Sequence[Release]) -> Release | None:
    """The newest published release that is neither a draft nor a pre-release."""
    published = [
        (release.published_at, release)
        for release in releases
        if not release.draft and not release.prerelease and release.published_at is not None
    ]
    return max(published, key=lambda dated: dated[0])[1] if published else None
