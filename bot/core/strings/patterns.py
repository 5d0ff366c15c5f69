"""Regular expressions compiled at their first use.

bot/ keeps about two hundred patterns at module level. Compiled at import, they took a sixth of
a terminal command's start (some 40 ms), though a digest whose cards are all cached uses a few
dozen of them. `lazy(...)` stands where `re.compile(...)` stood: the same pattern, the same
methods, compiled when first used. Two threads that use it first at once both compile it, and
either result serves.
"""

from __future__ import annotations

import re
from typing import cast

from bot.core.strings.first_use import OnFirstUse


class _Lazy(OnFirstUse):
    def __init__(self, pattern: str, flags: int) -> None:
        super().__init__(lambda: re.compile(pattern, flags))
        # Read without compiling: a pattern made of another (f"{OTHER.pattern}|…") stays lazy.
        self.pattern = pattern
        self.flags = flags


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, done at the first match, search, sub or split."""
    # Typed as the pattern it stands for: every method a caller uses is the compiled one's.
    return cast("re.Pattern[str]", _Lazy(pattern, flags))
