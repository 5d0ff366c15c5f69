"""What a stored snapshot keeps of each patch: what a context of at most a given number of
tokens can show of it (context.py), so that every card and answer made from the stored snapshot
is the one made from GitHub's whole patches. Pure.

A context tries the files in its order, each whole, else in whole hunks (passing over those too
big for what is left), else the first file's first hunk clipped. So a file can be given no more
than what the files before it leave, and the cut keeps, in order and cleaned, the hunks that
could still be shown in that room, and of a first hunk too big for it the head a clip can
reach. Patches no context shows (a skipped or a removed file's) keep as little. A cut that would
read back differently, or change what a heuristic rule reads (core/heuristic/patch_reads.py),
is not made.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from bot.core.heuristic.files import skip_reason
from bot.core.heuristic.patch_reads import readings
from bot.core.prompting.context import file_header, hunks_marker, hunks_of, ranked
from bot.core.strings.text import CHARS_PER_TOKEN, char_counts, clean_line, estimate_tokens, tokens_for_counts
from bot.models import FileChange, PatchCut, PRSnapshot

# A running estimate rounds the sum of its pieces' characters once, where each piece's own
# estimate rounds up: adding a piece may cost this many tokens less than its estimate.
ROUNDING = 1

_Counts = tuple[int, int]  # (other characters, CJK characters): what a token estimate adds up


def cut_patches(snapshot: PRSnapshot, tokens: int) -> PRSnapshot:
    """`snapshot` with each patch cut to what a context of at most `tokens` tokens reads of it."""
    if not snapshot.complete:
        return snapshot  # never stored
    reach = _reach(snapshot.files, tokens)
    files = tuple(cut_patch(change, reach.get(change.path, 0), tokens) for change in snapshot.files)
    return snapshot if files == snapshot.files else replace(snapshot, files=files)


def cut_patch(change: FileChange, reach: int, tokens: int) -> FileChange:
    """`change` with its patch cut to what `reach` tokens of a context can show of it (recorded
    as serving contexts of `tokens`), or as it was."""
    if change.cut is not None or not change.patch:
        return change
    hunks = hunks_of(change.patch)
    counts = [char_counts(hunk) for hunk in hunks]
    if _tokens(counts) <= reach:
        return change  # it may be shown whole
    first = hunks[0] if _tokens(counts[:1]) <= reach else _head(hunks[0], reach)
    kept = [first, *(hunks[k] for k in range(1, len(hunks)) if _may_show(counts, k, reach))]
    cut = replace(change, patch="".join(kept), cut=PatchCut(tokens=tokens, hunks=len(hunks)))
    # Cleaning may have made a line that starts a hunk (an invisible character before "@@"): such
    # a patch, read back, would split otherwise, so it is kept whole, as one whose readings change.
    if hunks_of(cut.patch or "") != kept or readings(cut) != readings(change):
        return change
    return cut


def _reach(files: Iterable[FileChange], tokens: int) -> dict[str, int]:
    """The most tokens of a context of at most `tokens` each shown file's hunks can be given,
    plus the rounding a running estimate may save, by path.

    When every file before it was shown whole, what is left is the budget less their cost. When
    one was not, what was left after it was less than a hunk of its that did not fit (with the
    hunks' marker held back, and its header for a file that showed nothing): whatever the budget.
    """
    reach: dict[str, int] = {}
    whole_cost = 0  # of the files before, each shown whole
    after_part = 0  # the most left after a file before that was not shown whole
    for change in ranked(change for change in files if skip_reason(change) is None):
        left = max(tokens - whole_cost, after_part)
        header = estimate_tokens(file_header(change, clean_line(change.path)))
        shown = change.status != "removed" and bool(change.patch)
        counts = [char_counts(hunk) for hunk in hunks_of(change.patch or "")] if shown else []
        largest = max((tokens_for_counts(*count) for count in counts), default=0)
        held = estimate_tokens(hunks_marker(len(counts), len(counts))) if counts else 0
        if shown:
            reach[change.path] = min(tokens, left + ROUNDING)
        whole_cost += header + _tokens(counts) - ROUNDING * (2 if counts else 1)
        after_part = max(after_part, min(left, header + largest + held))
    return reach


def _tokens(counts: list[_Counts]) -> int:
    return tokens_for_counts(sum(plain for plain, _ in counts), sum(cjk for _, cjk in counts))


def _head(hunk: str, reach: int) -> str:
    """What a clip of `hunk` within `reach` tokens can read (context.py `_clip_to_tokens` looks at
    no more than that many tokens' worth of characters, and only back from there), one character
    more so that the head itself never fits whole, and a line end."""
    head = hunk[: reach * CHARS_PER_TOKEN + 1]
    return head if head.endswith("\n") else head + "\n"


def _may_show(counts: list[_Counts], k: int, reach: int) -> bool:
    """Whether hunk `k` can be shown within `reach` tokens.

    Hunks are tried in order, each added if it fits what is left. An earlier hunk no larger than
    hunk `k` (in both counts) fits wherever `k` fits, so it was added before: `k` can be shown
    only if it fits together with all of them.
    """
    plain, cjk = counts[k]
    for earlier_plain, earlier_cjk in counts[:k]:
        if earlier_plain <= counts[k][0] and earlier_cjk <= counts[k][1]:
            plain += earlier_plain
            cjk += earlier_cjk
            if tokens_for_counts(plain, cjk) > reach:
                return False
    return tokens_for_counts(plain, cjk) <= reach
