"""Glob matching in linear time (pure): the one matcher behind a channel's filters and a watch.

Python's `re` backtracks: a glob translated into nested `.*` / `[^/]*` took seconds to minutes
for a 30-character pattern against one path, holding the GIL and with it every workspace's
acks. Here a glob is compiled into a small automaton whose states are the bits of an int, and
a text is read once, character by character (a shift-and simulation): the time is linear in the
text, whatever the pattern. Patterns saved before the entry checks existed still reach this
matcher, so it must stay fast on any pattern, not only on the ones `glob_problem` lets through.

Two styles share the machinery: a channel filter's `*` crosses `/` (`dependabot*`, `docs/*`),
a watch's `*` and `?` stay within a path segment and `**` crosses (`vllm/**/attention/*.py`).
Brackets are literal in both, and case is ignored.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

Style = Literal["filter", "path"]
GlobProblem = Literal["empty", "long", "wildcards", "space"]

# Entry limits (settings form, `/pr watch`, config file): a glob is a word a person types, and a
# dozen wildcards already say more than any real path filter needs.
MAX_GLOB_CHARS = 200
MAX_GLOB_WILDCARDS = 16
WILDCARDS = frozenset("*?")


def glob_problem(pattern: str, style: Style) -> GlobProblem | None:
    """Why `pattern` cannot be saved as a glob of this style, or None when it can.

    A watch's glob is one word of a slash command; a filter's may hold spaces (GitHub paths do)
    but no control characters."""
    if not (pattern.strip("/") if style == "path" else pattern.strip()):
        return "empty"
    if len(pattern) > MAX_GLOB_CHARS:
        return "long"
    if sum(char in WILDCARDS for char in pattern) > MAX_GLOB_WILDCARDS:
        return "wildcards"
    if any((style == "path" and char.isspace()) or not (char.isprintable() or char == " ") for char in pattern):
        return "space"
    return None


# A refused pattern is named back cut to this, so a 3,000-character paste does not fill the reply.
SHOWN_CHARS = 40


def first_problem(patterns: Sequence[str], style: Style) -> tuple[GlobProblem, str] | None:
    """Why the first pattern that cannot be saved cannot, and that pattern as a reply shows it."""
    for pattern in patterns:
        problem = glob_problem(pattern, style)
        if problem is not None:
            return problem, pattern if len(pattern) <= SHOWN_CHARS else pattern[:SHOWN_CHARS] + "…"
    return None


@dataclass(frozen=True)
class _Automaton:
    """State i means "the first i tokens are matched"; bit `size` set at the end is a match."""

    size: int
    forced: int  # tokens that each consume one character: a shorter text cannot match
    literal: dict[str, int] = field(default_factory=dict)  # char → tokens that consume exactly it
    one: int = 0  # `?` tokens
    one_crosses: bool = True  # whether `?` may consume a `/`
    loop_any: int = 0  # star tokens that stay put on any character
    loop_segment: int = 0  # star tokens that stay put on any character but `/`
    skip1: int = 0  # tokens that may be passed without consuming (every star)
    skip3: int = 0  # `**/` entries: the whole `(.*/)?` group may be empty

    def closure(self, states: int) -> int:
        # Stars are never adjacent after compiling, so this settles in a few rounds.
        while True:
            grown = states | ((states & self.skip1) << 1) | ((states & self.skip3) << 3)
            if grown == states:
                return states
            states = grown

    def matches(self, text: str) -> bool:
        if len(text) < self.forced:
            return False
        states = self.closure(1)
        final = 1 << self.size
        for char in text.lower():
            consume = self.literal.get(char, 0)
            if char != "/" or self.one_crosses:
                consume |= self.one
            stay = self.loop_any if char == "/" else self.loop_any | self.loop_segment
            states = self.closure(((states & consume) << 1) | (states & stay))
            if not states:
                return False
        return bool(states & final)


_Token = Literal["*", "**", "**/", "?"] | str
_STARS = ("*", "**", "**/")


def _tokens(pattern: str, style: Style) -> list[_Token]:
    """The glob's tokens, read left to right (`**/` before `**` before `*`), with adjacent stars
    folded where they mean one: `**` next to any star is `**`, and `**/**/` is `**/`."""
    tokens: list[_Token] = []
    index = 0
    while index < len(pattern):
        token: _Token
        if pattern[index] != "*":
            token = pattern[index] if pattern[index] == "?" else pattern[index].lower()
            index += 1
        elif style == "filter":
            token = "**"
            index += 1
        elif pattern.startswith("**/", index):
            token = "**/"
            index += 3
        elif pattern.startswith("**", index):
            token = "**"
            index += 2
        else:
            token = "*"
            index += 1
        previous = tokens[-1] if tokens else None
        if previous in _STARS and token in _STARS and (previous == token or "**" in (previous, token)):
            tokens[-1] = token if previous == token else "**"
            continue
        tokens.append(token)
    return tokens


@functools.lru_cache(maxsize=1024)
def _compiled(pattern: str, style: Style) -> _Automaton:
    literal: dict[str, int] = {}
    one = loop_any = loop_segment = skip1 = skip3 = 0
    forced = 0
    position = 0
    for token in _tokens(pattern, style):
        bit = 1 << position
        if token == "?":
            one |= bit
            forced += 1
            position += 1
        elif token == "*":
            loop_segment |= bit
            skip1 |= bit
            position += 1
        elif token == "**":
            loop_any |= bit
            skip1 |= bit
            position += 1
        elif token == "**/":
            # `(?:.*/)?`: an entry that may skip the group, a star over anything, then a `/`.
            skip1 |= bit | (bit << 1)
            skip3 |= bit
            loop_any |= bit << 1
            literal["/"] = literal.get("/", 0) | (bit << 2)
            position += 3
        else:
            literal[token] = literal.get(token, 0) | bit
            forced += 1
            position += 1
    return _Automaton(
        size=position,
        forced=forced,
        literal=literal,
        one=one,
        one_crosses=style == "filter",
        loop_any=loop_any,
        loop_segment=loop_segment,
        skip1=skip1,
        skip3=skip3,
    )


def glob_matches(pattern: str, text: str, style: Style) -> bool:
    """Whether the whole of `text` matches `pattern` (case ignored) in the given style."""
    return _compiled(pattern, style).matches(text)
