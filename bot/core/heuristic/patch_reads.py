"""What the heuristic rules read in a file's patch, in one place: its kind (wording only or not,
shape.py), whether it sets a default (change_kinds.py) and whether a workflow widens its
permissions. A patch cut for storing (core/prompting/patch_cut.py) must read alike in each, so
a rule that starts reading patches belongs in `readings`. Pure."""

from __future__ import annotations

from bot.core.heuristic.change_kinds import sets_a_default
from bot.core.heuristic.shape import kind_of
from bot.core.strings.patterns import lazy
from bot.models import FileChange

_PERMISSIONS_LINE = lazy(r"permissions|:\s*write\b")


def widens_permissions(change: FileChange) -> bool:
    """A workflow whose diff adds a `permissions` block or a `: write` scope."""
    if not change.path.startswith(".github/workflows/") or not change.patch:
        return False
    added = (line for line in change.patch.splitlines() if line.startswith("+") and not line.startswith("+++"))
    return any(_PERMISSIONS_LINE.search(line) for line in added)


def readings(change: FileChange) -> tuple[str, bool, bool]:
    """Everything a heuristic rule reads in `change`'s patch."""
    return kind_of(change), sets_a_default(change), widens_permissions(change)
