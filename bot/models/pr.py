"""What a pull request is, as GitHub gives it: its reference, listing, files, comments and the
snapshot the model and the renderers read, and the window of merge times a digest covers.

Plain frozen values: the GitHub adapter (sources/) builds them; nothing here reads GitHub.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

# "Responses include a maximum of 3000 files" (GitHub REST docs, pulls/list-files).
GITHUB_FILE_LIST_CAP = 3000


@dataclass(frozen=True)
class Window:
    """Half-open interval [start, end) of merge times, both timezone-aware."""

    start: datetime
    end: datetime

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


@dataclass(frozen=True, eq=False)
class PRRef:
    """A pull request by repository and number. GitHub ignores case in owner and repository
    names, so refs equal (and hash) alike however the name is spelled; `repo` keeps the spelling."""

    repo: str  # "owner/name"
    number: int

    def __str__(self) -> str:
        return f"{self.repo}#{self.number}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PRRef):
            return NotImplemented
        return self.number == other.number and self.repo.lower() == other.repo.lower()

    def __hash__(self) -> int:
        return hash((self.repo.lower(), self.number))


@dataclass(frozen=True)
class PatchCut:
    """A patch cut when its snapshot was stored (core/prompting/patch_cut.py): `patch` then holds,
    cleaned, only the hunks a context of at most `tokens` tokens can show, and the head of a
    first hunk too large to show whole. Enough for every card and answer of such a budget; the
    rest of GitHub's patch is gone, so a larger context must read the PR again."""

    tokens: int
    hunks: int  # hunks in GitHub's whole patch


@dataclass(frozen=True)
class FileChange:
    path: str
    status: str  # added | removed | modified | renamed | copied | changed | unchanged
    additions: int
    deletions: int
    patch: str | None  # None: binary, or over GitHub's per-file diff limit
    previous_path: str | None = None
    cut: PatchCut | None = None  # None: `patch` is GitHub's whole patch

    @property
    def changes(self) -> int:
        return self.additions + self.deletions


@dataclass(frozen=True)
class Comment:
    """A review comment (on a line of the diff) or a review body."""

    author: str
    body: str
    path: str | None = None


@dataclass(frozen=True)
class PRListing:
    """What the pulls list (or search) gives for free, before any per-PR request."""

    repo: str
    number: int
    title: str
    body: str
    author: str
    url: str
    merged_at: datetime | None  # None: not merged (a card asked for by number)
    merge_sha: str | None
    labels: tuple[str, ...] = ()
    author_is_bot: bool = False
    head_sha: str | None = None

    @property
    def ref(self) -> PRRef:
        return PRRef(self.repo, self.number)

    @property
    def revision(self) -> str | None:
        """What a card of this PR depends on: the merge commit, or the head of an open PR."""
        return self.merge_sha or self.head_sha


@dataclass(frozen=True)
class PRSnapshot:
    """A merged PR as the model and the renderers see it.

    `complete` is False when only the list data could be read (GitHub's rate limit ran out
    before the PR's files were fetched): such snapshots are never cached.
    """

    listing: PRListing
    files: tuple[FileChange, ...] = ()
    comments: tuple[Comment, ...] = ()
    complete: bool = True
    # Set when GitHub reports more files than it lists (its cap is 3,000 per PR).
    files_reported: int | None = None

    @property
    def ref(self) -> PRRef:
        return self.listing.ref

    @property
    def additions(self) -> int:
        return sum(f.additions for f in self.files)

    @property
    def deletions(self) -> int:
        return sum(f.deletions for f in self.files)

    @property
    def files_total(self) -> int:
        return max(self.files_reported or 0, len(self.files))

    def serves(self, tokens: int | None) -> bool:
        """Whether its patches hold all a context of `tokens` tokens reads (None: every patch
        whole), however they were cut for storing."""
        return all(change.cut is None or (tokens is not None and change.cut.tokens >= tokens) for change in self.files)
