"""Whether a file's diff changes only wording: comments, docstrings or the text of strings.

Pure, one pass over each line of the patch (two for a hunk that begins inside a comment or a
docstring). The file is read by the language of its name: Python (`#` comments, strings and
triple-quoted blocks), C, C++ and CUDA (`//` and `/* */` comments, strings), shell, YAML, TOML and
CMake (`#` comments). Each hunk's removed lines and its added lines are reduced to their code,
what is left once comments and the text of strings are taken out; a file whose every hunk leaves
the same code on both sides changed only its wording. A language not read here, a file without a
patch (binary, too large) or one whose hunks change nothing is never wording-only.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from bot.core.strings.patterns import lazy

Language = Literal["python", "c", "hash"]

_PYTHON = (".py", ".pyi")
_C = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh", ".hip")
_HASH = (".sh", ".bash", ".yaml", ".yml", ".toml", ".cmake")
_HASH_NAMES = frozenset({"CMakeLists.txt"})
_TRIPLES = ('"""', "'''")
# What may stand before a triple quote that opens a string: an operator or bracket (`x = """`,
# `f("""`), a keyword that takes a value, or nothing at all but the string's prefix letters.
_OPENS_AFTER = lazy(r"(?:[=(\[{,:+%]|\breturn|\byield|\bin|\band|\bor|\bnot)$")
_STRING_PREFIX = lazy(r"(?:^|[^\w])[rRbBuUfF]{1,2}$")
_BLOCK_HEADER = lazy(r"^(?:async\s+)?(?:def|class)\b.*:$|[=(]$")
# A line of code that is only a string (a docstring, a piece of an implicitly joined string):
# adding, removing or rewording one changes no code.
_BARE_STRING = lazy(r'^[rRbBuUfF]{0,2}(?:""|\'\')$')
# Strings side by side are one string (Python and C join them), so a string rewrapped over
# lines is the same code.
_JOINED_STRINGS = lazy(r'(?:""|\'\')(?:\s*[rRbBuUfF]{0,2}(?:""|\'\'))+')


def language_of(path: str) -> Language | None:
    name = path.rsplit("/", 1)[-1]
    lower = name.lower()
    if lower.endswith(_PYTHON):
        return "python"
    if lower.endswith(_C):
        return "c"
    if lower.endswith(_HASH) or name in _HASH_NAMES:
        return "hash"
    return None


def wording_only(path: str, patch: str | None) -> bool:
    """Whether every changed line of `patch` (GitHub's per-file unified diff) is a comment, part
    of a docstring, the text of a string, or blank, in the language of `path`."""
    language = language_of(path)
    if language is None or not patch:
        return False
    changed = False
    for hunk in _hunks(patch):
        old = _changed_code(language, hunk, "-")
        new = _changed_code(language, hunk, "+")
        if old != new:
            return False
        changed = changed or any(line[:1] in "+-" for line in hunk)
    return changed


def _hunks(patch: str) -> Iterator[list[str]]:
    """Each hunk's lines, each still led by its " ", "-" or "+" ("\\ No newline…" left out)."""
    hunk: list[str] = []
    for line in patch.split("\n"):
        if line.startswith("@@"):
            if hunk:
                yield hunk
            hunk = []
        elif line[:1] in (" ", "-", "+"):
            hunk.append(line)
        elif line == "":
            hunk.append(" ")  # an empty context line, as some tools write it
    if hunk:
        yield hunk


def _changed_code(language: Language, hunk: list[str], mark: str) -> str:
    """The code of one side's changed lines, blank ones left out; the side is the context lines
    with the lines marked `mark`, read in order so a comment or docstring spans lines."""
    side = [(line[0] == mark, line[1:]) for line in hunk if line[0] in (" ", mark)]
    codes = _codes(language, [text for _, text in side])
    changed = "\n".join(code for (marked, _), code in zip(side, codes, strict=True) if marked and code)
    return _JOINED_STRINGS.sub('""', changed)


def _codes(language: Language, lines: list[str]) -> list[str]:
    if language == "hash":
        return [_hash_code(line) for line in lines]
    scan = _Scan(language)
    codes = scan.read(lines, inside=None)
    if scan.started_inside is not None:  # the hunk begins inside a comment or docstring
        codes = _Scan(language).read(lines, inside=scan.started_inside)
    return codes


def _hash_code(line: str) -> str:
    """A line without its `#` comment (a `#` at the start or after a space, outside quotes)."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip()
    return line.rstrip()


@dataclass
class _Scan:
    """Python and C lines reduced to their code, a comment or a docstring carried across lines."""

    language: Language
    # Inside a block ("*/" for a C comment, '"""' or "'''" for a Python string), else "".
    closer: str = ""
    # Set when the first block token met shows the hunk began inside a block: its closer.
    started_inside: str | None = None
    _first: bool = True

    def read(self, lines: list[str], inside: str | None) -> list[str]:
        self.closer = inside or ""
        self._first = inside is None
        codes = []
        previous = ""
        for line in lines:
            codes.append(self._line(line, previous))
            previous = line.strip() or previous
        return codes

    def _line(self, line: str, previous: str) -> str:
        out: list[str] = []
        index = 0
        if self.closer:
            end = line.find(self.closer)
            if end < 0:
                return ""
            index = end + len(self.closer)
            self.closer = ""
            if self.language == "python":
                out.append('""')
        while index < len(line):
            index = self._token(line, index, out, previous)
        code = "".join(out).rstrip()
        return "" if _BARE_STRING.match(code.strip()) else code

    def _token(self, line: str, index: int, out: list[str], previous: str) -> int:
        """Read what starts at `index` into `out` (code as it is, a string as its quotes, a
        comment as nothing); the index after it."""
        char = line[index]
        if self.language == "c":
            if line.startswith("//", index):
                return len(line)
            if line.startswith("/*", index):
                return self._open(line, index + 2, "*/")
            if line.startswith("*/", index) and self._first:
                self._begun_inside("*/")
                return index + 2
            if char in "'\"" and not line.lstrip().startswith("#"):  # `#include "x.h"` is code
                return self._string(line, index, out, char, "")
        else:
            if char == "#":
                return len(line)
            triple = line[index : index + 3]
            if triple in _TRIPLES:
                if self._first and not _opens(line, index, previous):
                    self._begun_inside(triple)
                    return index + 3
                self._first = False
                out.append('""')
                return self._open(line, index + 3, triple)
            if char in "'\"":
                start = index
                while start > 0 and line[start - 1] in "rRbBuUfF":
                    start -= 1
                return self._string(line, index, out, char, line[start:index])
        out.append(char)
        return index + 1

    def _begun_inside(self, closer: str) -> None:
        self._first = False
        self.started_inside = closer

    def _open(self, line: str, index: int, closer: str) -> int:
        """A block comment or a triple-quoted string from `index`: closed on this line, or left open."""
        self._first = False
        end = line.find(closer, index)
        if end < 0:
            self.closer = closer
            return len(line)
        return end + len(closer)

    def _string(self, line: str, index: int, out: list[str], quote: str, prefix: str) -> int:
        """A one-line string from its opening quote: kept as its quotes, with an f-string's
        `{…}` fields kept too (they are code)."""
        formatted = "f" in prefix.lower()
        out.append(quote)
        index += 1
        while index < len(line):
            char = line[index]
            if char == "\\":
                index += 2
                continue
            if char == quote:
                out.append(quote)
                return index + 1
            if formatted and char == "{":
                end = line.find("}", index)
                if line.startswith("{{", index) or end < 0:
                    index += 2
                    continue
                out.append(line[index : end + 1])
                index = end + 1
                continue
            index += 1
        out.append(quote)  # no closing quote on the line: the string goes on (a continuation)
        return index


def _opens(line: str, index: int, previous: str) -> bool:
    """Whether the first triple quote of a hunk, at `index`, opens a string (else it closes one
    the hunk began inside): text before it on the line closes, unless that text is code that
    takes a value; a quote alone on its line opens after a `def`/`class` line or an `=` or `(`."""
    before = line[:index].strip()
    after = line[index + 3 :].strip()
    if before and not _STRING_PREFIX.search(before):
        return bool(_OPENS_AFTER.search(before))
    if after:
        return not after.startswith((")", ",", "]", "}", ".", ";"))
    return bool(_BLOCK_HEADER.search(previous))
