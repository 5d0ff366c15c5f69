"""ReleaseRanges: which PRs a release holds, from GitHub once and from the store after.

A release is the range from the release before it (releases/range.py `previous_release`), or
the tag asked for with `--since`, to its tag. Its PRs are the first-parent commits of the compare
that name a PR; a commit naming none is asked about with `commits/{sha}/pulls`, once. The range
is then kept for good (store/repos/releases.py): two tags never stop meaning the same commits. A
range GitHub does not know is remembered as unknown for a few minutes, so the same question asked
again (by anyone, on any replica) asks GitHub nothing until then, unless the release list has
both tags by then.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.errors import NotFound, UsageError, quoted
from bot.models import Release, ReleasePR
from bot.ports.releases import ReleaseSource
from bot.releases.range import latest_release, previous_release, release_prs, title_of
from bot.store.repos.releases import ReleaseStore

# A subject that names no PR costs one request each; past this many, the rest are left out and
# counted (a range of direct pushes is a branch's history, not a release's PRs).
MAX_UNNAMED_LOOKUPS = 50


@dataclass(frozen=True)
class ReleaseRange:
    repo: str
    tag: str
    base: str  # the release before, or the tag given with --since
    prs: tuple[ReleasePR, ...]  # oldest first
    unnamed: int = 0  # first-parent commits no PR could be found for (a version bump pushed)
    release: Release | None = None  # the tag's release, when it is one (a tag may be bare)


class ReleaseRanges:
    def __init__(self, source: ReleaseSource, store: ReleaseStore) -> None:
        self._source = source
        self._store = store

    def releases(self, repo: str) -> list[Release]:
        known = self._store.releases(repo)
        if known is None:
            known = self._source.releases(repo)
            self._store.remember_releases(repo, known)
        return known

    def latest(self, repo: str) -> Release:
        """The newest full release; UsageError when the repository has none."""
        found = latest_release(self.releases(repo))
        if found is None:
            raise UsageError("error.release_none", repo=quoted(repo))
        return found

    def range(self, repo: str, tag: str, since: str | None = None) -> ReleaseRange:
        releases = self.releases(repo)
        release = next((item for item in releases if item.tag == tag), None)
        if since is None:
            before = previous_release(releases, tag)
            if before is None:
                kind = "error.release_first" if release is not None else "error.release_unknown"
                raise UsageError(kind, repo=quoted(repo), tag=quoted(tag))
            since = before.tag
        known = self._store.range(repo, since, tag)
        if known is not None:
            return ReleaseRange(repo, tag, since, tuple(known[0]), unnamed=known[1], release=release)
        # A miss between two tags the release list holds was remembered before one was published
        # (a question about a tag pushed minutes later): GitHub knows the range now.
        listed = {item.tag for item in releases}
        if not {since, tag} <= listed and self._store.unknown_range(repo, since, tag):
            raise _unknown(repo, since, tag)
        try:
            commits, head = self._source.compare(repo, since, tag)
        except NotFound as exc:
            self._store.remember_unknown_range(repo, since, tag)
            raise _unknown(repo, since, tag) from exc
        prs, unnamed = release_prs(commits, head)
        seen = {pr.number for pr in prs}
        orphans = max(0, len(unnamed) - MAX_UNNAMED_LOOKUPS)
        for commit in unnamed[:MAX_UNNAMED_LOOKUPS]:
            numbers = [number for number in self._source.pulls_of_commit(repo, commit.sha) if number not in seen]
            orphans += not numbers
            seen.update(numbers)
            prs.extend(ReleasePR(number, commit.sha, title_of(commit.subject)) for number in numbers)
        self._store.remember_range(repo, since, tag, prs, orphans)
        return ReleaseRange(repo, tag, since, tuple(prs), unnamed=orphans, release=release)


def _unknown(repo: str, base: str, tag: str) -> UsageError:
    return UsageError("error.release_range_unknown", repo=quoted(repo), base=quoted(base), tag=quoted(tag))
