"""Claims: the figures, ranges, versions, #refs, paths, flags and code names a text states.

Owns how claims (and a source's figures) are read out of text and normalised into lookup keys.
Must not judge whether a claim is supported (faithfulness.py) nor rewrite text (cutting.py).
Pure: no I/O, no model, no Card. It reads whole PR bodies and patches, so every pattern must stay
linear in its text: each alternative that runs over a class starts only where a run of that
class begins (the lookbehind before it), and its classes stop at what they exclude.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

ClaimKind = Literal["figure", "range", "version", "reference", "identifier", "name"]

# A bare integer up to ten ("2 files", "fixes 3 kernels") is too weak to check: small counts
# occur in every diff's line numbers, so finding one in the source would prove nothing.
MAX_UNCHECKED_INTEGER = 10

# Spellings of one unit that mean the same thing; the key is how the text writes it (lower case).
_UNIT_ALIASES = {
    "×": "x",
    "倍": "x",
    "％": "%",
    "percent": "%",
    "µs": "us",
    "μs": "us",
    "微秒": "us",
    "毫秒": "ms",
    "秒": "s",
    "sec": "s",
    "secs": "s",
    "second": "s",
    "seconds": "s",
    "mins": "min",
    "minute": "min",
    "minutes": "min",
    "hr": "h",
    "hrs": "h",
    "hour": "h",
    "hours": "h",
    "tokens/s": "tok/s",
}
_UNITS: tuple[str, ...] = ("gib", "gb", "mib", "mb", "kib", "kb", "tib", "tb", "ns", "us", "ms", "s", "min", "h")
_UNITS += ("x", "%", "tok/s", "req/s", "k", *_UNIT_ALIASES)
_ORDINALS = frozenset({"st", "nd", "rd", "th"})
# "3k" is 3000: B8 of the reference asks that 1k, 1,000 and 1000 be one figure.
_THOUSAND = "k"

# Boundaries are ASCII on purpose: a figure glued to CJK text ("提速2.5倍") is still a figure.
# Public so that a cut (cutting.py) finds a claim's text within the same boundaries.
WORD_CHARS = "A-Za-z0-9_"
_W = WORD_CHARS  # short, for the patterns below
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_UNIT = "(?i:" + "|".join(re.escape(unit) for unit in sorted(_UNITS, key=len, reverse=True)) + ")"
_END = rf"(?![{_W}]|\.\d)"


# A number with an optional unit: attached ("1.6us", "4bit") or after one space ("16.98 GiB").
_FIGURE = rf"(?<![{_W}.])(?P<num>{_NUM})(?:(?P<unit>{_UNIT}|[A-Za-z]+)|[ \t](?P<spaced>{_UNIT}))?{_END}"
# Two numbers joined by a dash or a tilde ("2-6x", "2x–6x", "2~6倍"); the unit may be on both ends.
_RANGE = (
    rf"(?<![{_W}.])(?P<lo>{_NUM})(?P<lounit>{_UNIT})?(?:-|[ \t]?[–—~][ \t]?)"
    rf"(?P<hi>{_NUM})(?:(?P<hiunit>{_UNIT}|[A-Za-z]+)|[ \t](?P<hispaced>{_UNIT}))?{_END}"
)
_SEGMENT = r"[A-Za-z0-9_.-]"
_ALTERNATIVES = {
    "backtick": r"`[^`\n]+`",
    "reference": r"(?<!&)#\d+",
    "flag": rf"(?<![{_W}-])--[A-Za-z0-9][A-Za-z0-9_-]*",
    # A path names a file ("csrc/a.cu") or has two slashes ("vllm/v1/core/"): "I/O", "and/or" and
    # "memory/GPU" are words.
    "path": (
        rf"(?<![{_W}./-])(?:{_SEGMENT}+/)+(?:[A-Za-z0-9_-]+\.)+[A-Za-z][A-Za-z0-9]{{0,7}}(?![{_W}])"
        rf"|(?<![{_W}./-])(?:{_SEGMENT}+/){{2,}}(?:{_SEGMENT}*[{_W}])?"
    ),
    "version": rf"(?<![{_W}.])(?:[vV]\d+(?:\.\d+)+|\d+(?:\.\d+){{2,}}){_END}",
    "date": rf"(?<![{_W}.])\d{{4}}-\d{{2}}-\d{{2}}(?![{_W}])",
    "hex": rf"(?<![{_W}.])0[xX][0-9a-fA-F]+(?![{_W}])",
    "range": _RANGE,
    "figure": _FIGURE,
    # Digits then letters that are no unit: "2p2d", "1e5".
    "mixed": rf"(?<![{_W}.])\d[{_W}]*[A-Za-z][{_W}]*",
    # A hyphenated name with a digit is one name: "Kimi-K2.5", "gpt-4o", "Llama-3.1-8B".
    "name": rf"(?<![{_W}.-])(?=[A-Za-z0-9_.-]*\d)[A-Za-z][A-Za-z0-9_.]*(?:-[A-Za-z0-9_.]+)+",
    "call": rf"(?<![{_W}.])[A-Za-z_][{_W}]*(?:\.[A-Za-z_][{_W}]*)*\(\)",
    "dotted": rf"(?<![{_W}.])[A-Za-z_][{_W}]*(?:\.[A-Za-z_][{_W}]*)+",
    "word": rf"(?<![{_W}])[A-Za-z_][{_W}]*",
}
_CLAIM = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _ALTERNATIVES.items()))
_FIGURES = re.compile(f"(?P<range>{_RANGE})|(?P<figure>{_FIGURE})")
# A unit standing alone: not the "s" of "it's".
_UNIT_TOKEN = re.compile(rf"(?<![A-Za-z'’]){_UNIT}(?![A-Za-z])")
_INNER_CAPITAL = re.compile(r"[a-z][A-Z]")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_LOOSE = re.compile(r"[-_\s]+")


@dataclass(frozen=True)
class Figure:
    value: str  # canonical decimal: "1000" for 1,000, 1k and 1000.0
    unit: str  # canonical unit ("x", "%", "gib", "us"…), "" for none

    @property
    def weak(self) -> bool:
        """A bare small integer: not worth checking (MAX_UNCHECKED_INTEGER)."""
        number = Decimal(self.value)
        return not self.unit and number == number.to_integral_value() and number <= MAX_UNCHECKED_INTEGER


@dataclass(frozen=True)
class Claim:
    text: str  # as the card writes it
    kind: ClaimKind
    key: str  # normalised: what is looked up in the source
    figures: tuple[Figure, ...] = ()  # one for a figure, the two ends of a range


def fold(text: str) -> str:
    """Lower-case ASCII letters only (so no character turns into an ASCII one) and collapse whitespace."""
    return " ".join(text.translate(_ASCII_LOWER).split())


def _canon(number: str) -> str:
    """ "1,000", "1000" and "1000.0" are one number (the patterns admit only digits, commas and a dot)."""
    return _decimal_text(Decimal(number.replace(",", "")))


def _decimal_text(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _make_figure(number: str, unit: str | None) -> Figure:
    unit_key = (unit or "").translate(_ASCII_LOWER)
    unit_key = _UNIT_ALIASES.get(unit_key, unit_key)
    if unit_key == _THOUSAND:
        return Figure(_decimal_text(Decimal(_canon(number)) * 1000), "")
    if unit_key in _ORDINALS:
        unit_key = ""
    return Figure(_canon(number), unit_key)


def _range_figures(match: re.Match[str]) -> tuple[Figure, Figure]:
    """Both ends of "2-6x" or "2x–6x"; an end without a unit takes the other end's."""
    high = _make_figure(match["hi"], match["hiunit"] or match["hispaced"])
    low = _make_figure(match["lo"], match["lounit"] or None)
    if not low.unit:
        low = Figure(low.value, high.unit)
    return low, high


def _figure_key(figure: Figure) -> str:
    return figure.value + figure.unit


def _qualifies(word: str) -> bool:
    """A code name rather than a word: snake_case, an inner capital (FusedMoE) or a digit (H100)."""
    snake = "_" in word and word.strip("_") != ""
    return snake or bool(_INNER_CAPITAL.search(word)) or any(char.isdigit() for char in word)


def _claim(match: re.Match[str]) -> Claim | None:
    kind = next(name for name in _ALTERNATIVES if match.group(name) is not None)
    text = match.group(kind)
    if kind == "range":
        low, high = _range_figures(match)
        if low.weak and high.weak:
            return None
        return Claim(text, "range", f"{low.value}-{_figure_key(high)}", (low, high))
    if kind == "figure":
        figure = _make_figure(match["num"], match["unit"] or match["spaced"])
        return None if figure.weak else Claim(text, "figure", _figure_key(figure), (figure,))
    if kind == "version":
        return Claim(text, "version", fold(text).removeprefix("v"))
    if kind == "reference":
        return Claim(text, "reference", text)
    if kind == "name":
        text = text.rstrip(".")
        return Claim(text, "name", loosen(fold(text)))
    return _identifier(kind, text)


def _identifier(kind: str, text: str) -> Claim | None:
    if kind == "backtick":
        key = fold(text.strip("`")).removesuffix("()").strip()
        return Claim(text, "identifier", key) if key else None
    if kind == "word" and not _qualifies(text):
        return None
    # "e.g" and "i.e" are dotted, but they are words.
    if kind == "dotted" and all(len(part) <= 1 for part in text.split(".")):
        return None
    return Claim(text, "identifier", fold(text).removesuffix("()"))


def loosen(key: str) -> str:
    """Hyphen, underscore and space are one separator in names: DeepSeek-V3 = deepseek_v3 = DeepSeek V3."""
    return _LOOSE.sub("-", key)


def extract_claims(text: str) -> list[Claim]:
    """Every figure and identifier in `text`, in order; plain words and small bare counts are not claims."""
    return [claim for claim in (_claim(match) for match in _CLAIM.finditer(text)) if claim is not None]


def normalise(text: str) -> str:
    """The lookup key of the one claim `text` holds ("1.6 us" → "1.6us", "1,000" → "1000"), else `text` folded."""
    claims = extract_claims(text)
    return claims[0].key if len(claims) == 1 else fold(text)


# -- a source's figures ---------------------------------------------------------------------------


@dataclass(frozen=True)
class FigureMention:
    """A figure or range as a text writes it, small bare counts included (a source holds them all)."""

    figures: tuple[Figure, ...]  # one for a figure, the two ends of a range
    is_range: bool
    listed: tuple[str, ...]  # "128,256" in code is a list as well as a number: its pieces, canonical
    end: int  # where the mention ends in the text


def figure_mentions(text: str) -> Iterator[FigureMention]:
    """Every figure and range of `text`, read as a claim's figures are."""
    for match in _FIGURES.finditer(text):
        figures: tuple[Figure, ...]
        if match["range"] is not None:
            figures = _range_figures(match)
            numbers = [match["lo"], match["hi"]]
        else:
            figures = (_make_figure(match["num"], match["unit"] or match["spaced"]),)
            numbers = [match["num"]]
        listed = tuple(_canon(piece) for number in numbers if "," in number for piece in number.split(","))
        yield FigureMention(figures, match["range"] is not None, listed, match.end())


def unit_keys(text: str) -> list[str]:
    """The canonical units standing alone in `text` ("GiB" in "(GiB)", not the "s" of "it's"); "k" is none."""
    keys = (_make_figure("0", unit).unit for unit in _UNIT_TOKEN.findall(text))
    return [key for key in keys if key]
