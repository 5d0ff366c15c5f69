"""The model's view of a PR: cleaned, ranked, cut to a token budget, and the coverage that says what was cut.

Owns the layout of the context, the budget shares and the coverage. Pure: no I/O, no vendor types.
The budget it is given is the whole budget: the returned text never estimates above it, whatever
the PR holds. Cleaning and token counts come from core/strings/text.py, file kinds and skip reasons from
core/heuristic/files.py; it must not grow rules of either kind itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from bot.core.heuristic.files import KIND_ORDER, file_kind, skip_reason
from bot.core.strings.patterns import lazy
from bot.core.strings.text import (
    CHARS_PER_TOKEN,
    char_counts,
    clean_line,
    clean_text,
    estimate_tokens,
    tokens_for_counts,
)
from bot.models import GITHUB_FILE_LIST_CAP, Comment, Coverage, FileChange, PRSnapshot, SkippedFile

_HUNK_START = lazy(r"^(?=@@)", re.MULTILINE)

# Budget shares of the description and the review comments (the rest is for files): the diff is
# what the model must read; the description is the author's claim about it.
DESCRIPTION_SHARE = 0.25
COMMENTS_SHARE = 0.15
# Kept back from the files for naming the files that were left out: the model should know what it
# has not seen (a test, a migration) rather than assume the diff it read is the whole PR.
NOT_SHOWN_SHARE = 0.05
# One review comment: enough for a finding and its reason; long bot reports add little.
MAX_COMMENT_CHARS = 600
# GitHub caps titles at 256 characters and labels at 50; anything longer is not GitHub's data.
MAX_TITLE_CHARS = 256
MAX_LABELS_CHARS = 500
MAX_NAME_CHARS = 100
# When clipping, look this far back for a line or word break rather than cutting mid-word.
SOFT_CUT_WINDOW = 200
# A lower bound on any file entry ("### a (added, +1)\n", 18 chars): below it nothing more can go in.
MIN_FILE_TOKENS = 5

_Outcome = Literal["whole", "partial"]

NO_ROOM = "did not fit the token budget"
FILES_UNREAD = "(The files could not be read: GitHub's rate limit ran out before they were fetched.)"

_KIND_RANK = {kind: rank for rank, kind in enumerate(KIND_ORDER)}


@dataclass(frozen=True)
class PRContext:
    text: str
    coverage: Coverage
    tokens: int


class _Budget:
    """Text assembled piece by piece, with its exact token estimate kept as it grows.

    Every piece goes through `try_add`, so the text can never estimate above `limit`.
    """

    def __init__(self, limit: int, plain: int = 0, cjk: int = 0) -> None:
        self.limit = limit
        self.parts: list[str] = []
        self._plain = plain
        self._cjk = cjk

    @property
    def used(self) -> int:
        return tokens_for_counts(self._plain, self._cjk)

    @property
    def left(self) -> int:
        return self.limit - self.used

    def try_add(self, piece: str, reserve: int = 0) -> bool:
        plain, cjk = char_counts(piece)
        if tokens_for_counts(self._plain + plain, self._cjk + cjk) + reserve > self.limit:
            return False
        self.parts.append(piece)
        self._plain += plain
        self._cjk += cjk
        return True

    def replace(self, index: int, piece: str) -> None:
        """Swap a placeholder for a piece no longer than it (a header whose counts are now known)."""
        old_plain, old_cjk = char_counts(self.parts[index])
        plain, cjk = char_counts(piece)
        assert plain <= old_plain and cjk <= old_cjk, "a replacement may not grow the text"
        self.parts[index] = piece
        self._plain += plain - old_plain
        self._cjk += cjk - old_cjk

    def sub(self, cap: int, reserve: int = 0) -> _Budget:
        """A budget continuing this text that may spend `cap` tokens and must leave `reserve`."""
        return _Budget(min(self.limit - reserve, self.used + cap), self._plain, self._cjk)

    def merge(self, child: _Budget) -> None:
        self.parts.extend(child.parts)
        self._plain, self._cjk = child._plain, child._cjk

    def text(self) -> str:
        return "".join(self.parts)


def _clip_to_tokens(text: str, max_tokens: int, marker: str = "") -> str:
    """The longest prefix of `text` (cut at a line or word break nearby) that, with `marker`, fits."""
    if estimate_tokens(text) <= max_tokens:
        return text
    room = max_tokens - estimate_tokens(marker)
    if room <= 0:
        return ""
    # No prefix longer than room*3 chars can fit, and for ASCII that length always does.
    high = min(len(text), room * CHARS_PER_TOKEN)
    low = 0
    while low < high:  # the estimate grows with the prefix: binary search
        mid = (low + high + 1) // 2
        if estimate_tokens(text[:mid]) <= room:
            low = mid
        else:
            high = mid - 1
    return text[: _soft_cut(text, low)] + marker


def _soft_cut(text: str, end: int) -> int:
    for separator in ("\n", " "):
        found = text.rfind(separator, max(0, end - SOFT_CUT_WINDOW), end)
        if found > 0:
            return found
    return end


def build_context(snapshot: PRSnapshot, budget_tokens: int) -> PRContext:
    """Render `snapshot` for the model in at most `budget_tokens` estimated tokens, with its coverage."""
    budget = _Budget(budget_tokens)
    budget.try_add(_clip_to_tokens(_metadata(snapshot), budget_tokens))
    if not snapshot.complete:
        files_note = f"## Files\n{FILES_UNREAD}\n"
        _add_description(budget, snapshot.listing.body, reserve=estimate_tokens(files_note))
        _add_comments(budget, snapshot.comments, reserve=estimate_tokens(files_note))
        budget.try_add(files_note)
        coverage = Coverage(files_total=0, files_read=0, files_known=False)
    else:
        coverage = _add_all(budget, snapshot)
    text = budget.text().rstrip("\n")
    return PRContext(text=text, coverage=coverage, tokens=estimate_tokens(text))


def unlimited_coverage(snapshot: PRSnapshot) -> Coverage:
    """The coverage of a context no budget limits, without building it: every file read whole but
    those skipped for a reason (binary, lock, generated…). It reads no patch, so a patch cut for
    storing reads as GitHub's whole one here."""
    if not snapshot.complete:
        return Coverage(files_total=0, files_read=0, files_known=False)
    reasons = ((change.path, skip_reason(change)) for change in snapshot.files)
    skipped = tuple(SkippedFile(clean_line(path), reason) for path, reason in reasons if reason is not None)
    return Coverage(
        files_total=snapshot.files_total,
        files_read=len(snapshot.files) - len(skipped),
        skipped=skipped,
        files_unlisted=snapshot.files_total - len(snapshot.files),
    )


def _metadata(snapshot: PRSnapshot) -> str:
    listing = snapshot.listing
    lines = [
        f"Repository: {clean_line(listing.repo, MAX_NAME_CHARS * 2)}",
        f"PR: #{listing.number}",
        f"Title: {clean_line(listing.title, MAX_TITLE_CHARS)}",
        f"Author: {clean_line(listing.author, MAX_NAME_CHARS)}",
    ]
    labels = ", ".join(label for label in (clean_line(raw, MAX_NAME_CHARS) for raw in listing.labels) if label)
    if labels:
        lines.append(f"Labels: {clean_line(labels, MAX_LABELS_CHARS)}")
    if snapshot.complete:
        files = "1 file" if snapshot.files_total == 1 else f"{snapshot.files_total} files"
        lines.append(f"Size: {files}, +{snapshot.additions} -{snapshot.deletions}")
    else:
        lines.append("Size: unknown (files not read)")
    return "\n".join(lines) + "\n\n"


def _add_description(budget: _Budget, body: str, reserve: int) -> None:
    section = budget.sub(int(budget.limit * DESCRIPTION_SHARE), reserve)
    if not section.try_add("## Description\n"):
        return
    cleaned = clean_text(body).strip()
    if not cleaned:
        cleaned = "(no description)"
    # One token is kept for the blank line that closes the section.
    clipped = _clip_to_tokens(cleaned, section.left - 1, "\n… (description clipped)")
    if section.try_add((clipped or "(not shown: over the token budget)") + "\n\n"):
        budget.merge(section)


def _add_comments(budget: _Budget, comments: Iterable[Comment], reserve: int) -> None:
    lines = [_comment_line(comment) for comment in comments if clean_text(comment.body).strip()]
    if not lines:
        return
    # Substance over acknowledgements: the longest comments first ("LGTM" says little).
    lines.sort(key=lambda line: -len(line))
    section = budget.sub(int(budget.limit * COMMENTS_SHARE), reserve)
    if not section.try_add("## Review comments\n"):
        return
    tail_cost = estimate_tokens(f"- ... and {len(lines)} more comments\n\n")
    shown = _add_lines(section, lines, tail_cost)
    if shown == 0:
        return
    if shown < len(lines):
        section.try_add(f"- ... and {len(lines) - shown} more comments\n")
    section.try_add("\n")
    budget.merge(section)


def _comment_line(comment: Comment) -> str:
    body = clean_text(comment.body).strip()
    if len(body) > MAX_COMMENT_CHARS:
        body = body[: _soft_cut(body, MAX_COMMENT_CHARS - 1)] + "…"
    where = f" on {clean_line(comment.path)}" if comment.path else ""
    indented = body.replace("\n", "\n  ")
    return f"- {clean_line(comment.author, MAX_NAME_CHARS)}{where}: {indented}\n"


def _add_lines(budget: _Budget, lines: Iterable[str], reserve: int) -> int:
    """Add lines while they fit with `reserve` left over; returns how many went in."""
    shown = 0
    for line in lines:
        if not budget.try_add(line, reserve):
            break
        shown += 1
    return shown


@dataclass(frozen=True)
class _Entry:
    """One line of the "Not shown" section; `count` files (the GitHub-unlisted entry stands for many)."""

    line: str
    count: int = 1


def _add_all(budget: _Budget, snapshot: PRSnapshot) -> Coverage:
    files = snapshot.files
    unlisted = snapshot.files_total - len(files)
    # Each path cleaned once: a 3,000-file PR names its files in three places.
    names = {change.path: clean_line(change.path) for change in files}
    candidates: list[FileChange] = []
    reasoned: list[SkippedFile] = []
    for change in files:
        reason = skip_reason(change)
        if reason is None:
            candidates.append(change)
        else:
            reasoned.append(SkippedFile(names[change.path], reason))
    not_shown_reserve = _not_shown_reserve(names.values(), snapshot.files_total, budget.limit)
    rest = estimate_tokens(_files_header(snapshot.files_total, snapshot.files_total)) + not_shown_reserve
    _add_description(budget, snapshot.listing.body, reserve=rest)
    _add_comments(budget, snapshot.comments, reserve=rest)

    read, partial, unfit = _add_files(budget, candidates, names, snapshot.files_total, not_shown_reserve)
    skipped = [SkippedFile(names[change.path], NO_ROOM) for change in unfit] + reasoned
    entries = [_Entry(f"{entry.path}: {entry.reason}") for entry in skipped]
    if unlisted > 0:
        # The model is told too: a PR it sees part of should not be judged as the whole.
        entries.append(_Entry(_unlisted_line(unlisted), count=unlisted))
    _add_not_shown(budget, entries)
    return Coverage(
        files_total=snapshot.files_total,
        files_read=read,
        skipped=tuple(skipped),
        partial=tuple(partial),
        files_unlisted=unlisted,
    )


def _unlisted_line(count: int) -> str:
    return f"({count} more files): GitHub lists at most {GITHUB_FILE_LIST_CAP:,} files"


def _not_shown_reserve(names: Iterable[str], files_total: int, budget_tokens: int) -> int:
    """Room kept for "Not shown": its header and last line always, and a listing of paths up to a share."""
    if not files_total:
        return 0
    floor = estimate_tokens(f"\n## Not shown\n- {_unlisted_line(files_total)}\n- ... and {files_total} more files\n")
    listing = sum(estimate_tokens(f"- {name}: {NO_ROOM}\n") for name in names)
    return floor + min(listing, int(budget_tokens * NOT_SHOWN_SHARE))


def ranked(files: Iterable[FileChange]) -> list[FileChange]:
    """`files` in the order the context tries them: source, tests, docs, config, CI; larger first."""
    return sorted(files, key=_rank_key)


def _rank_key(change: FileChange) -> tuple[int, int, str]:
    return _KIND_RANK[file_kind(change.path)], -change.changes, change.path


def _files_header(shown: int, total: int) -> str:
    return f"## Files ({shown} of {total} shown)\n" if total else "## Files\n(no files changed)\n"


def _add_files(
    budget: _Budget, candidates: list[FileChange], names: dict[str, str], files_total: int, reserve: int
) -> tuple[int, list[str], list[FileChange]]:
    """Walk the ranked files; returns (files read, partially read paths, files that did not fit)."""
    in_order = ranked(candidates)
    # The header's count is known only at the end: hold its widest form, then narrow it.
    if not budget.try_add(_files_header(files_total, files_total), reserve):
        return 0, [], in_order
    slot = len(budget.parts) - 1
    read, partial, unfit = 0, [], []
    for position, change in enumerate(in_order):
        if budget.left - reserve < MIN_FILE_TOKENS:  # full: the rest cannot fit, no need to try each
            unfit += in_order[position:]
            break
        block = budget.sub(budget.left, reserve)
        outcome = _file_block(block, change, names[change.path], may_clip=read == 0)
        if outcome is None:
            unfit.append(change)
            continue
        budget.merge(block)
        read += 1
        if outcome == "partial":
            partial.append(names[change.path])
    budget.replace(slot, _files_header(read, files_total))
    return read, partial, unfit


def file_header(change: FileChange, name: str) -> str:
    """A file's line above its hunks: its name, status and counts."""
    if change.status == "removed":
        detail = f"removed, -{change.deletions}"
    elif change.status == "added":
        detail = f"added, +{change.additions}"
    elif change.previous_path and change.status in ("renamed", "copied"):
        detail = f"{change.status} from {clean_line(change.previous_path)}, +{change.additions} -{change.deletions}"
    else:
        detail = f"{change.status}, +{change.additions} -{change.deletions}"
    return f"### {name} ({detail})\n"


def _file_block(block: _Budget, change: FileChange, name: str, may_clip: bool) -> _Outcome | None:
    """Add one file to `block`: "whole", "partial" (some hunks), or None when nothing fits."""
    if not block.try_add(file_header(change, name)):
        return None
    # A removed file's hunks only repeat what is gone: its name and line count say enough.
    if change.status == "removed" or not change.patch:
        return "whole"
    hunks = hunks_of(change.patch)
    # A patch cut for storing (patch_cut.py) never fitted whole, and the marker counts GitHub's hunks.
    total = change.cut.hunks if change.cut is not None else len(hunks)
    if change.cut is None and block.try_add("".join(hunks)):
        return "whole"
    marker_reserve = estimate_tokens(hunks_marker(total, total))
    # Whole hunks in order, passing over any too big for what is left.
    shown = 0
    for hunk in hunks:
        shown += block.try_add(hunk, marker_reserve)
    if shown == 0 and may_clip:
        # Only the first file may show a clipped hunk: a PR that is one huge hunk still shows something.
        shown = _add_clipped_hunk(block, hunks[0], marker_reserve)
    if shown == 0:
        return None
    if shown < total:
        block.try_add(hunks_marker(shown, total))
    return "partial"


def hunks_of(patch: str) -> list[str]:
    """A patch's hunks as a context shows them: cleaned, each ending its last line."""
    return [_ended(clean_text(hunk)) for hunk in _HUNK_START.split(patch) if hunk]


def _ended(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def hunks_marker(shown: int, total: int) -> str:
    """What follows a file shown in part: how many of its hunks were shown."""
    return f"… ({shown} of {total} hunks shown)\n"


def _add_clipped_hunk(block: _Budget, hunk: str, reserve: int) -> int:
    marker = "… (hunk truncated)\n"
    # One token spare for the newline that ends the clipped part.
    clipped = _clip_to_tokens(hunk, block.left - reserve - estimate_tokens(marker) - 1)
    if not clipped.strip():
        return 0
    return 1 if block.try_add(_ended(clipped) + marker, reserve) else 0


def _add_not_shown(budget: _Budget, entries: list[_Entry]) -> None:
    if not entries:
        return
    section = budget.sub(budget.left)
    if not section.try_add("\n## Not shown\n"):
        return
    total = sum(entry.count for entry in entries)
    tail_cost = estimate_tokens(f"- ... and {total} more files\n")
    lines = (f"- {entry.line}\n" for entry in entries)
    shown = _add_lines(section, lines, tail_cost)
    left_out = sum(entry.count for entry in entries[shown:])
    if left_out and not section.try_add(f"- ... and {left_out} more files\n"):
        return
    budget.merge(section)
