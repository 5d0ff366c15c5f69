"""The model's view of a PR: cleaned, ranked, cut to a token budget, and the coverage that says what was cut.

Owns token estimation, the cleaning of untrusted text, file classification (kind, skip reason)
and the layout of the context. Pure: no I/O, no vendor types. The budget it is given is the
whole budget: the returned text never estimates above it, whatever the PR holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from bot.models import Comment, Coverage, FileChange, PRSnapshot, SkippedFile

# Code and English run ~3.5-4.5 chars per BPE token, so 3 over-estimates diffs by 25-40%: the
# safe side of a budget (tiktoken is not an option: it downloads its tables at first use).
CHARS_PER_TOKEN = 3
# Han, kana, Hangul, CJK punctuation and full-width forms: about one token each, which chars/3
# would under-estimate threefold.
_CJK = re.compile(
    r"[\u1100-\u11ff\u2e80-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
    r"\U00020000-\U0003ffff]"
)
# C0/C1 controls except \t and \n, zero-width characters and bidi controls: invisible to a
# reviewer, so they can only hide or reorder text meant for the model (Trojan Source).
_INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff\u061c]")
# PR templates hide instructions in HTML comments; an unterminated one runs to the end.
_HTML_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
_HUNK_START = re.compile(r"^(?=@@)", re.MULTILINE)

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
# Real paths stay under 200 characters; Git accepts up to PATH_MAX (4096).
MAX_PATH_CHARS = 300
# When clipping, look this far back for a line or word break rather than cutting mid-word.
SOFT_CUT_WINDOW = 200
# A lower bound on any file entry ("### a (added, +1)\n", 18 chars): below it nothing more can go in.
MIN_FILE_TOKENS = 5
# GitHub's pulls/files endpoint lists at most 3,000 files per PR.
GITHUB_FILE_LIST_CAP = 3000

_Outcome = Literal["whole", "partial"]

NO_ROOM = "did not fit the token budget"
FILES_UNREAD = "(The files could not be read: GitHub's rate limit ran out before they were fetched.)"

KIND_ORDER = ("source", "test", "docs", "config", "ci")
_KIND_RANK = {kind: rank for rank, kind in enumerate(KIND_ORDER)}

_TEST_DIRS = frozenset({"tests", "test"})
_TEST_NAME = re.compile(r"^test_.*\.py$|_test\.(?:py|go)$|\.(?:test|spec)\.[jt]sx?$|^conftest\.py$")
_DOC_DIRS = frozenset({"docs", "doc"})
_DOC_SUFFIXES = (".md", ".rst", ".adoc", ".txt")
_DOC_NAMES = frozenset({"README", "LICENSE", "CHANGELOG", "NOTICE", "AUTHORS"})
_CI_DIRS = frozenset({".github", ".buildkite", ".circleci", "ci"})
_CI_NAMES = frozenset({".gitlab-ci.yml", "Jenkinsfile", ".travis.yml", "azure-pipelines.yml"})
_CONFIG_SUFFIXES = (".toml", ".yaml", ".yml", ".json", ".cfg", ".ini")
_CONFIG_NAMES = frozenset({"setup.py", "CMakeLists.txt"})

_BINARY_SUFFIXES = (
    *(".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tif", ".tiff", ".psd"),
    *(".zip", ".tar", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".jar"),
    *(".pt", ".pth", ".bin", ".safetensors", ".onnx", ".gguf", ".ckpt", ".h5", ".npy", ".npz", ".pkl"),
    *(".so", ".dylib", ".dll", ".exe", ".o", ".a", ".pyc", ".whl"),
    *(".ttf", ".otf", ".woff", ".woff2", ".eot", ".pdf", ".mp3", ".mp4", ".wav", ".mov", ".webm"),
)
LOCK_FILES = frozenset(
    {
        *("package-lock.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock", "uv.lock", "Cargo.lock"),
        *("go.sum", "Pipfile.lock", "composer.lock", "Gemfile.lock"),
    }
)
_GENERATED_SUFFIXES = (".min.js", ".min.css", ".map", "_pb2.py", "_pb2.pyi", "_pb2_grpc.py", ".pb.go", ".snap")
_GENERATED_DIRS = frozenset({"generated", "__generated__"})
_VENDOR_DIRS = frozenset({"vendor", "third_party", "third-party", "node_modules", "external"})


def estimate_tokens(text: str) -> int:
    """Upper estimate of the tokens in `text`: chars/3, and one per CJK character."""
    plain, cjk = _char_counts(text)
    return _tokens(plain, cjk)


def count_cjk(text: str) -> int:
    """CJK characters in `text` (each about one token)."""
    return 0 if text.isascii() else len(_CJK.findall(text))


def _char_counts(text: str) -> tuple[int, int]:
    cjk = count_cjk(text)
    return len(text) - cjk, cjk


def _tokens(plain: int, cjk: int) -> int:
    return -(-plain // CHARS_PER_TOKEN) + cjk


def clean_text(text: str) -> str:
    """What the model may see of untrusted text: no HTML comments, controls or invisible characters."""
    text = _INVISIBLE.sub("", text.replace("\r\n", "\n"))
    # Removing one comment can join the halves of another ("<!<!-- -->-- x -->"): repeat.
    while "<!--" in text:
        text = _HTML_COMMENT.sub("", text)
    return text


def clean_line(text: str, max_chars: int = MAX_PATH_CHARS) -> str:
    """Untrusted text that must stay on one line (a path, a title): a newline could forge a section."""
    line = " ".join(clean_text(text).split())
    return line if len(line) <= max_chars else line[: max_chars - 1] + "…"


def _parts(path: str) -> tuple[list[str], str]:
    *dirs, name = path.split("/")
    return dirs, name


def file_kind(path: str) -> str:
    """One of KIND_ORDER: "source", "test", "docs", "config", "ci" (in that order of interest)."""
    dirs, name = _parts(path)
    if _TEST_DIRS.intersection(dirs) or _TEST_NAME.search(name):
        return "test"
    if _is_requirements(dirs, name) or name in _CONFIG_NAMES:
        return "config"
    if _DOC_DIRS.intersection(dirs) or name.lower().endswith(_DOC_SUFFIXES) or name in _DOC_NAMES:
        return "docs"
    if _CI_DIRS.intersection(dirs) or name in _CI_NAMES:
        return "ci"
    if name.lower().endswith(_CONFIG_SUFFIXES) or name.startswith("Dockerfile"):
        return "config"
    return "source"


def _is_requirements(dirs: list[str], name: str) -> bool:
    return "requirements" in dirs or (name.startswith("requirements") and name.endswith((".txt", ".in")))


def skip_reason(change: FileChange) -> str | None:
    """Why a file is not worth the model's budget, or None. A deleted file is never skipped for it."""
    dirs, name = _parts(change.path)
    lower = name.lower()
    no_diff = change.patch is None
    # A pure rename has no patch and no line counts either, and is not binary.
    if lower.endswith(_BINARY_SUFFIXES) or (
        no_diff and change.changes == 0 and change.status not in ("renamed", "copied")
    ):
        return "binary file"
    if name in LOCK_FILES:
        return "lock file"
    if lower.endswith(_GENERATED_SUFFIXES) or _GENERATED_DIRS.intersection(dirs):
        return "generated file"
    if _VENDOR_DIRS.intersection(dirs):
        return "vendored"
    # A removed file needs no diff: its name and line count are the information.
    if no_diff and change.changes > 0 and change.status != "removed":
        return "no diff from GitHub (too large)"
    return None


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
        return _tokens(self._plain, self._cjk)

    @property
    def left(self) -> int:
        return self.limit - self.used

    def try_add(self, piece: str, reserve: int = 0) -> bool:
        plain, cjk = _char_counts(piece)
        if _tokens(self._plain + plain, self._cjk + cjk) + reserve > self.limit:
            return False
        self.parts.append(piece)
        self._plain += plain
        self._cjk += cjk
        return True

    def replace(self, index: int, piece: str) -> None:
        """Swap a placeholder for a piece no longer than it (a header whose counts are now known)."""
        old_plain, old_cjk = _char_counts(self.parts[index])
        plain, cjk = _char_counts(piece)
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

    skipped: SkippedFile
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
    entries = [_Entry(SkippedFile(names[change.path], NO_ROOM)) for change in unfit]
    entries += [_Entry(skipped) for skipped in reasoned]
    if unlisted > 0:
        note = f"GitHub lists at most {GITHUB_FILE_LIST_CAP:,} files"
        entries.append(_Entry(SkippedFile(f"({unlisted} more files)", note), count=unlisted))
    _add_not_shown(budget, entries)
    return Coverage(
        files_total=snapshot.files_total,
        files_read=read,
        skipped=tuple(entry.skipped for entry in entries),
        partial=tuple(partial),
    )


def _not_shown_reserve(names: Iterable[str], files_total: int, budget_tokens: int) -> int:
    """Room kept for "Not shown": its header and last line always, and a listing of paths up to a share."""
    if not files_total:
        return 0
    unlisted = f"- ({files_total} more files): GitHub lists at most {GITHUB_FILE_LIST_CAP:,} files\n"
    floor = estimate_tokens(f"\n## Not shown\n{unlisted}- ... and {files_total} more files\n")
    listing = sum(estimate_tokens(f"- {name}: {NO_ROOM}\n") for name in names)
    return floor + min(listing, int(budget_tokens * NOT_SHOWN_SHARE))


def _rank_key(change: FileChange) -> tuple[int, int, str]:
    return _KIND_RANK[file_kind(change.path)], -change.changes, change.path


def _files_header(shown: int, total: int) -> str:
    return f"## Files ({shown} of {total} shown)\n" if total else "## Files\n(no files changed)\n"


def _add_files(
    budget: _Budget, candidates: list[FileChange], names: dict[str, str], files_total: int, reserve: int
) -> tuple[int, list[str], list[FileChange]]:
    """Walk the ranked files; returns (files read, partially read paths, files that did not fit)."""
    ranked = sorted(candidates, key=_rank_key)
    # The header's count is known only at the end: hold its widest form, then narrow it.
    if not budget.try_add(_files_header(files_total, files_total), reserve):
        return 0, [], ranked
    slot = len(budget.parts) - 1
    read, partial, unfit = 0, [], []
    for position, change in enumerate(ranked):
        if budget.left - reserve < MIN_FILE_TOKENS:  # full: the rest cannot fit, no need to try each
            unfit += ranked[position:]
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


def _file_header(change: FileChange, name: str) -> str:
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
    if not block.try_add(_file_header(change, name)):
        return None
    # A removed file's hunks only repeat what is gone: its name and line count say enough.
    if change.status == "removed" or not change.patch:
        return "whole"
    hunks = [_ended(clean_text(hunk)) for hunk in _HUNK_START.split(change.patch) if hunk]
    if block.try_add("".join(hunks)):
        return "whole"
    marker_reserve = estimate_tokens(_hunks_marker(len(hunks), len(hunks)))
    # Whole hunks in order, passing over any too big for what is left.
    shown = 0
    for hunk in hunks:
        shown += block.try_add(hunk, marker_reserve)
    if shown == 0 and may_clip:
        # Only the first file may show a clipped hunk: a PR that is one huge hunk still shows something.
        shown = _add_clipped_hunk(block, hunks[0], marker_reserve)
    if shown == 0:
        return None
    if shown < len(hunks):
        block.try_add(_hunks_marker(shown, len(hunks)))
    return "partial"


def _ended(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _hunks_marker(shown: int, total: int) -> str:
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
    lines = (f"- {entry.skipped.path}: {entry.skipped.reason}\n" for entry in entries)
    shown = _add_lines(section, lines, tail_cost)
    left_out = sum(entry.count for entry in entries[shown:])
    if left_out and not section.try_add(f"- ... and {left_out} more files\n"):
        return
    budget.merge(section)
