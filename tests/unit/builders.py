"""Small builders of PR values for unit tests: a listing, a file, a comment, a snapshot.

Every argument has a plain default, so a test names only what it is about:
`make_snapshot(files=[("vllm/core.py", 120, 4), ("tests/test_core.py", 30, 0)], title="[Perf] …")`.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Literal

from bot.models import Comment, FileChange, PRListing, PRSnapshot

MERGED_AT = datetime(2026, 8, 4, 12, 0, tzinfo=UTC)

FileSpec = FileChange | tuple[str, int, int]


def make_listing(
    *,
    repo: str = "acme/widgets",
    number: int = 101,
    title: str = "Improve widget rendering",
    body: str = "",
    author: str = "alice",
    labels: Iterable[str] = (),
    merged_at: datetime = MERGED_AT,
    merge_sha: str | None = "0" * 40,
    author_is_bot: bool = False,
) -> PRListing:
    return PRListing(
        repo=repo,
        number=number,
        title=title,
        body=body,
        author=author,
        url=f"https://github.com/{repo}/pull/{number}",
        merged_at=merged_at,
        merge_sha=merge_sha,
        labels=tuple(labels),
        author_is_bot=author_is_bot,
    )


def synth_patch(additions: int, deletions: int, hunks: int = 1) -> str:
    """A unified-diff body with exactly `additions` '+' and `deletions` '-' lines over `hunks` hunks."""
    hunks = max(1, min(hunks, max(additions, deletions, 1)))
    out: list[str] = []
    start = 1
    for k in range(hunks):
        dels = deletions // hunks + (k < deletions % hunks)
        adds = additions // hunks + (k < additions % hunks)
        out.append(f"@@ -{start},{dels + 1} +{start},{adds + 1} @@")
        out.append(f" context {k}")
        out += [f"-old line {k}.{i}" for i in range(dels)]
        out += [f"+new line {k}.{i}" for i in range(adds)]
        start += max(adds, dels) + 10
    return "\n".join(out)


def make_file(
    path: str,
    additions: int = 1,
    deletions: int = 0,
    patch: str | Literal["auto"] | None = "auto",
    status: str = "modified",
    *,
    hunks: int = 1,
    previous_path: str | None = None,
) -> FileChange:
    """A changed file; patch="auto" synthesises one with the right counts (`hunks` hunks)."""
    if patch == "auto":
        patch = synth_patch(additions, deletions, hunks)
    return FileChange(
        path=path,
        status=status,
        additions=additions,
        deletions=deletions,
        patch=patch,
        previous_path=previous_path,
    )


def make_comment(body: str, author: str = "bob", path: str | None = None) -> Comment:
    return Comment(author=author, body=body, path=path)


def make_snapshot(
    files: Iterable[FileSpec] = (),
    *,
    comments: Iterable[Comment] = (),
    complete: bool = True,
    files_reported: int | None = None,
    listing: PRListing | None = None,
    **listing_fields: object,
) -> PRSnapshot:
    """A snapshot from (path, additions, deletions) triples or FileChange values.

    Listing fields (title=, body=, labels=, …) pass through to make_listing unless a listing is given.
    """
    changes = tuple(spec if isinstance(spec, FileChange) else make_file(*spec) for spec in files)
    return PRSnapshot(
        listing=listing or make_listing(**listing_fields),  # type: ignore[arg-type]
        files=changes,
        comments=tuple(comments),
        complete=complete,
        files_reported=files_reported,
    )
