"""Regular expressions compiled at their first use.

bot/ keeps about two hundred patterns at module level. Compiled at import, they took a sixth of
a terminal command's start (some 40 ms), though a digest whose cards are all cached uses a few
dozen of them. `lazy(...)` stands where `re.compile(...)` stood: the same pattern, the same
methods, compiled when first used. Two threads that use it first at once both compile it, and
either result serves.
"""

from __future__ import annotations

import re
from typing import Any, cast


class _Lazy:
    def __init__(self, pattern: str, flags: int) -> None:
        # Read without compiling: a pattern made of another (f"{OTHER.pattern}|…") stays lazy.
        self.pattern = pattern
        self.flags = flags
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self.pattern, self.flags)
        found = getattr(compiled, name)
        # Kept on the instance: the next `.sub` is found there, at no cost beyond the pattern's own.
        self.__dict__[name] = found
        return found


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, done at the first match, search, sub or split."""
    # Typed as the pattern it stands for: every method a caller uses is the compiled one's.
    return cast("re.Pattern[str]", _Lazy(pattern, flags))
