"""Personal watches (pure): what `/pr watch` names, how it is checked, and which merged PR it matches.

A watch is a repository and either a path glob or one PR number. Globs follow the shell and
gitignore: `*` and `?` stay within one path segment, `**` crosses `/`, `[…]` is literal (GitHub
paths may contain brackets); a glob without `/` matches a file's name at any depth, and a glob
without wildcards also matches everything below it (`vllm/attention` is that directory). Case is
ignored, as in a channel's `paths`. Must not know where watches are kept or how a DM is sent.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from bot.core.links import KnownPR, find_links
from bot.core.strings import globs
from bot.models import Card, PRListing

WatchKind = Literal["path", "pr"]

# Each watch is checked every day against its repository's merged PRs: a few dozen per person
# keeps one person's morning to a few GitHub list requests.
MAX_WATCHES = 20
MAX_GLOB_CHARS = globs.MAX_GLOB_CHARS  # a watch's glob is held to the limits of every glob
_WILDCARDS = globs.WILDCARDS


@dataclass(frozen=True)
class Watch:
    repo: str  # owner/name as typed
    kind: WatchKind
    pattern: str = ""  # the glob (kind "path")
    number: int = 0  # the PR (kind "pr")

    @property
    def key(self) -> str:
        """What makes two watches the same one (the repository's case ignored)."""
        return f"{self.repo.lower()} {self.target.lower() if self.kind == 'path' else self.target}"

    @property
    def target(self) -> str:
        return self.pattern if self.kind == "path" else f"#{self.number}"

    @property
    def shown(self) -> str:
        """As a person types it: `owner/repo path/glob` or `owner/repo#N`."""
        return f"{self.repo} {self.pattern}" if self.kind == "path" else f"{self.repo}#{self.number}"

    def named_by(self, words: str) -> bool:
        """Whether `/pr unwatch <words>` names this watch: as shown, or by its glob alone."""
        said = " ".join(words.split()).lower()
        return said in (self.shown.lower(), self.key) or (self.kind == "path" and said == self.pattern.lower())


def glob_problem(pattern: str) -> str | None:
    """Why `pattern` cannot be a watch's glob (a sentence key of bot/words), or None when it can."""
    problem = globs.glob_problem(pattern, "path")
    return None if problem is None else f"watch.bad_glob_{problem}"


def path_matches(pattern: str, path: str) -> bool:
    """Whether a changed file's path is one the glob names (see the module's rules)."""
    glob = pattern.strip("/")
    if not glob:
        return False
    if "/" not in glob and globs.glob_matches(glob, path.rsplit("/", 1)[-1], "path"):
        return True
    if globs.glob_matches(glob, path, "path"):
        return True
    if not _WILDCARDS & set(glob):
        return path.lower().startswith(glob.lower() + "/")
    return False


@dataclass(frozen=True)
class Candidate:
    """What a merged PR shows a watch: its number, title, body, review comments and changed paths."""

    repo: str
    number: int
    title: str
    body: str
    comments: tuple[str, ...]
    paths: tuple[str, ...]


def matching(watches: Sequence[Watch], pr: Candidate) -> tuple[Watch, ...]:
    """The watches (of `pr`'s repository) that `pr` matches: a path watch when it changes a path
    the glob names; a PR watch when it is that PR, or links to it (a revert, follow-up or fix)."""
    found: list[Watch] = []
    for watch in watches:
        if watch.repo.lower() != pr.repo.lower():
            continue
        if watch.kind == "path":
            if any(path_matches(watch.pattern, path) for path in pr.paths):
                found.append(watch)
        elif watch.number == pr.number or _links_to(pr, watch.number):
            found.append(watch)
    return tuple(found)


def _links_to(pr: Candidate, number: int) -> bool:
    known = {number: KnownPR(number, "")}  # no title: only the PR's own words link it
    return bool(find_links(pr.repo, pr.number, pr.title, pr.body, pr.comments, known))


def repos_of(watches: Iterable[Watch]) -> tuple[str, ...]:
    """The watched repositories, once each (the first spelling kept)."""
    seen: dict[str, str] = {}
    for watch in watches:
        seen.setdefault(watch.repo.lower(), watch.repo)
    return tuple(seen.values())


@dataclass(frozen=True)
class WatchMatch:
    """A merged PR for a person's DM: its card and the watches it matched, in the person's order."""

    listing: PRListing
    card: Card
    watches: tuple[Watch, ...]
