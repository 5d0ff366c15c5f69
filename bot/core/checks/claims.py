"""Claims: the figures, counts, ranges, versions, #refs, paths, flags and code names a text states.

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

from bot.core.strings.patterns import lazy

ClaimKind = Literal["figure", "count", "range", "version", "reference", "identifier", "name"]

# A bare integer up to ten with nothing after it to say what it counts ("step 2", "and 3 more")
# is too weak to check: small numbers occur in every diff's line numbers, so finding one in the
# source would prove nothing. A count with its noun ("3 kernel launches") is checked whatever its
# size, noun and all (count_mentions).
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
_CLAIM = lazy("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _ALTERNATIVES.items()))
_FIGURES = lazy(f"(?P<range>{_RANGE})|(?P<figure>{_FIGURE})")
# A unit standing alone: not the "s" of "it's".
_UNIT_TOKEN = lazy(rf"(?<![A-Za-z'’]){_UNIT}(?![A-Za-z])")
_INNER_CAPITAL = lazy(r"[a-z][A-Z]")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_LOOSE = lazy(r"[-_\s]+")


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
    figures: tuple[Figure, ...] = ()  # one for a figure or a count, the two ends of a range
    noun: str = ""  # a count's noun, as noun_key reads it ("launch" for "3 kernel launches")
    cut: str = ""  # what a cut removes of `text` when not all of it: a count's number, not its noun


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
    # Each alternative is a named group around the rest: the one that matched closes last.
    kind = match.lastgroup
    assert kind is not None
    text = match.group(kind)
    if kind == "range":
        low, high = _range_figures(match)
        if low.weak and high.weak:
            return None
        return Claim(text, "range", f"{low.value}-{_figure_key(high)}", (low, high))
    if kind == "figure":
        figure = _make_figure(match["num"], match["unit"] or match["spaced"])
        count = _count(match, figure)
        if count is not None:
            return count
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


# -- counts: a number and the noun it counts --------------------------------------------------------
#
# The rule (README, "How a card is made"): a number without a unit that a card writes
# before what it counts ("3 kernel launches", "8 warps", "3 个文件") is grounded only where the PR
# writes the same number with the same noun, singular or plural, within COUNT_WINDOW words on the
# same line, before it or after it ("3 kernel launches", "launches per layer: 3",
# "NUM_LAUNCHES = 3"). A stray "3" in a table, a version or a line number grounds nothing, nor
# does one across brackets or a comment sign.
# The card's noun is the first plural among the (at most three) words after the number, else the
# last of them: "3 kernel launches per layer" counts launches, "4 more files" files. Words such as
# "more" or "new" only qualify a noun, and a number followed by none ("and 4 more") is no count.
# A Chinese card's noun is the (at most two) Han characters after the number and an optional
# classifier (个…): grounded only where the PR writes them so, which an English PR does not; a
# count that keeps the PR's own word ("8 个 warps") is checked as the English one.

COUNT_WINDOW = 3
_HAN = "\u3400-\u4dbf\u4e00-\u9fff"
# Measure words between a number and its noun in Chinese: "3 个文件", "2 处修改". Alone they say
# nothing of what is counted ("其他 4 个").
_CLASSIFIERS = "个项处种位名份张条块台组类轮次款"
# A number the source may count with: not part of a date, a time, a ratio or a range
# ("2026-08-04", "10:30", "1/3", "2-6"), nor of a version or an identifier. An attached "k" is
# thousands; other attached letters are a unit or an ordinal, and such a number counts nothing.
_COUNT_NUMBER = lazy(rf"(?<![{_W}.\-/:])(?P<num>{_NUM})(?P<suffix>[A-Za-z]*)(?![{_W}]|[.\-/:]\d)")
_WORD = r"[A-Za-z]+(?![A-Za-z0-9_])"
# What a card writes after a count's number: a Han noun (after a classifier or not), or up to
# three words joined by spaces or hyphens (after a classifier, or after at least one space).
_COUNTED = lazy(
    rf"[ \t]*(?:[{_CLASSIFIERS}][ \t]*)?(?P<han>(?![{_CLASSIFIERS}])[{_HAN}]{{1,2}})"
    rf"|(?:[ \t]*[{_CLASSIFIERS}][ \t]*|[ \t]+)(?P<words>{_WORD}(?:(?:[ \t]+|-){_WORD}){{0,{COUNT_WINDOW - 1}}})"
)
# The source's words, numbers and Han runs, and what ends a window: a sentence's end, a line's,
# and code's brackets and comments ("launch(fused)  # shape [3, 4096]" counts no launches).
# Parentheses do not: "## Files (3 of 24 shown)", our context's own header, states 24 files.
_COUNT_TOKEN = lazy(
    rf"{_COUNT_NUMBER.pattern}|(?P<word>[A-Za-z]+)|(?P<han>[{_HAN}]+)"
    r"|(?P<stop>[.!?;。！？；](?=\s|$)|[\n#\[\]{}<>;])"
)
_COUNT_WORD_SEP = lazy(r"[ \t]+|-")
# Words that end the words a count may take before its noun: "3 of the kernels" is no count.
_STOP_WORDS = frozenset((
    "a", "an", "the", "of", "in", "on", "at", "by", "for", "to", "from", "with", "and", "or", "but", "nor",
    "per", "than", "as", "into", "onto", "via", "over", "under", "between", "across", "through", "within",
    "without", "about", "after", "before", "during", "since", "until", "while", "when", "where", "which",
    "that", "who", "whom", "whose", "this", "these", "those", "it", "its", "is", "are", "was", "were", "be",
    "been", "being", "has", "have", "had", "do", "does", "did", "will", "would", "can", "could", "should",
    "may", "might", "must", "not", "no", "so", "if", "then", "each", "every", "all", "any", "both", "either",
    "neither", "such", "only", "also", "just", "very",
    # A comparison, not a noun: "step 1 faster by caching" counts nothing.
    "faster", "slower", "larger", "smaller", "bigger", "higher", "lower", "better", "worse", "longer",
    "shorter",
))  # fmt: skip
# Words that qualify what is counted but are not it: "4 more files", "and 4 more".
_QUALIFIERS = frozenset((
    "more", "fewer", "less", "new", "other", "extra", "additional", "different", "separate", "distinct",
    "unique", "total", "remaining", "existing", "further", "many", "few", "several", "same", "old",
))  # fmt: skip


def noun_key(word: str) -> str:
    """One key for a noun's singular and plural: launch = launches, file = files, entry = entries,
    GPU = GPUs. Both sides of a check read nouns this way, so a rough stem is enough."""
    key = word.translate(_ASCII_LOWER)
    if len(key) > 4 and key.endswith("ies"):
        return key[:-3] + "y"
    if _plural(word):
        key = key[:-1]
    return key[:-1] if len(key) > 3 and key.endswith("e") else key


def _plural(word: str) -> bool:
    """Looks like a plural: "launches", "GPUs"; not "class", "status", "axis"."""
    if len(word) > 2 and word.endswith("s") and word[:-1].isupper():
        return True  # an acronym's plural
    lowered = word.translate(_ASCII_LOWER)
    return len(lowered) > 2 and lowered.endswith("s") and not lowered.endswith(("ss", "us", "is"))


def _han_key(run: str) -> str:
    """A Han noun's key: its first two characters once a leading classifier is gone."""
    return run[1:3] if run[:1] in _CLASSIFIERS else run[:2]


def _count_value(match: re.Match[str]) -> str | None:
    """The number a _COUNT_NUMBER match counts with, or None when it carries a unit."""
    suffix = match["suffix"].translate(_ASCII_LOWER)
    if suffix not in ("", _THOUSAND):
        return None
    return _make_figure(match["num"], suffix).value


def _after_ordinal_sign(text: str, start: int) -> bool:
    """ "第 3 步" is the third step, not three of them (looking back over the spaces only)."""
    index = start - 1
    while index >= 0 and text[index] in " \t":
        index -= 1
    return index >= 0 and text[index] == "第"


def _count(match: re.Match[str], figure: Figure) -> Claim | None:
    """The figure read as a count when the card writes what it counts, else None."""
    text = match.string
    number = _COUNT_NUMBER.match(text, match.start())
    if figure.unit or number is None or number.end() != match.end() or _count_value(number) is None:
        return None
    if Decimal(figure.value) != Decimal(figure.value).to_integral_value() or _after_ordinal_sign(text, match.start()):
        return None  # "2.5 layers" is no count, "第 3 步" an ordinal
    counted = _COUNTED.match(text, match.end())
    if counted is None:
        return None
    if counted["han"]:
        noun, end = counted["han"], counted.end()
    else:
        found = _noun(counted["words"])
        if found is None:
            return None
        noun, length = found
        end = counted.start("words") + length
    key = _han_key(noun) if counted["han"] else noun_key(noun)
    # The number and a classifier go; the noun stays ("3 个文件" → "文件").
    cut = text[match.start() : counted.start("han" if counted["han"] else "words")].rstrip()
    return Claim(text[match.start() : end], "count", f"{figure.value} {key}", (figure,), noun=key, cut=cut)


def _noun(words: str) -> tuple[str, int] | None:
    """The noun among the words after a count, and where it ends in them; None when there is none."""
    found: list[tuple[str, int]] = []
    position = 0
    for word in _COUNT_WORD_SEP.split(words):
        position = words.index(word, position) + len(word)
        if word.translate(_ASCII_LOWER) in _STOP_WORDS:
            break
        found.append((word, position))
    nouns = [(word, end) for word, end in found if word.translate(_ASCII_LOWER) not in _QUALIFIERS]
    plural = next(((word, end) for word, end in nouns if _plural(word)), None)
    return plural or (nouns[-1] if nouns and nouns[-1] == found[-1] else None)


def count_mentions(text: str) -> Iterator[tuple[str, str]]:
    """(number, noun key) for every number of `text` and each word within COUNT_WINDOW words of it,
    before or after, in the same sentence of the same line: what grounds a card's counts."""
    window: list[tuple[str | None, str | None]] = []  # (count value, noun key) of the last tokens
    for match in _COUNT_TOKEN.finditer(text):
        if match["stop"] is not None:
            window.clear()
            continue
        value = _count_value(match) if match["num"] is not None else None
        word = match["word"] or match["han"]
        noun = None if word is None else noun_key(word) if match["word"] else _han_key(word)
        if noun in _STOP_WORDS:
            noun = None  # never a card's noun: it only takes its place in the window
        for before_value, before_noun in window[-COUNT_WINDOW:]:
            if value is not None and before_noun:
                yield value, before_noun
            if noun and before_value is not None:
                yield before_value, noun
        window = [*window[-COUNT_WINDOW + 1 :], (value, noun)]
