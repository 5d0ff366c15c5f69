"""Faithfulness: every figure and identifier a card states must be found in the PR's own text.

Owns what counts as a claim (numbers with their units, versions, #refs, paths, flags, code
names), how claims are normalised and grounded in a PR's text, and how a failed claim is cut out
of a headline. Pure: no I/O, no model, no Card. The summarizer decides when to check, ask again
and drop (DESIGN.md §1: "regenerated once, then the figure is dropped").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

ClaimKind = Literal["figure", "range", "version", "reference", "identifier", "name"]

# A bare integer up to ten ("2 files", "fixes 3 kernels") is too weak to check: small counts
# occur in every diff's line numbers, so finding one in the source would prove nothing.
MAX_UNCHECKED_INTEGER = 10
# How far after a number of the source its unit may stand and still be its unit:
# "16.98 (GiB)", "from 18.2 to 16.98 GiB" (DESIGN: the unit must come from the PR too).
UNIT_WINDOW_CHARS = 20
# Ratios and percentages must be written next to their number in the source: in "2 of the 30%"
# the 2 is not a percentage, and in "2 to 3x" the 2 is not a speed-up.
STRICT_UNITS = frozenset({"x", "%"})
# A headline's main clause left with fewer words than this after a cut said only the figure ("saves").
MIN_CLAUSE_WORDS = 2
# A later clause or an aside left with this many words or fewer, and no claim, was there to carry
# its figure ("…, 1.9x faster" → "faster", "(7.1 ms less per step)" → "less per step").
MAX_ADDON_WORDS = 3

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
_W = "A-Za-z0-9_"
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
_TOKEN = re.compile(rf"[{_W}]+")
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
        return Claim(text, "name", _loosen(fold(text)))
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


def _loosen(key: str) -> str:
    """Hyphen, underscore and space are one separator in names: DeepSeek-V3 = deepseek_v3 = DeepSeek V3."""
    return _LOOSE.sub("-", key)


def extract_claims(text: str) -> list[Claim]:
    """Every figure and identifier in `text`, in order; plain words and small bare counts are not claims."""
    return [claim for claim in (_claim(match) for match in _CLAIM.finditer(text)) if claim is not None]


def normalise(text: str) -> str:
    """The lookup key of the one claim `text` holds ("1.6 us" → "1.6us", "1,000" → "1000"), else `text` folded."""
    claims = extract_claims(text)
    return claims[0].key if len(claims) == 1 else fold(text)


# -- the source -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SourceText:
    """A PR's own text, indexed once for every claim of its card."""

    text: str  # folded
    loose: str  # folded, separators made one ("_" and spaces become "-")
    tokens: frozenset[str]
    keys: frozenset[str]  # the keys of the identifiers, versions, refs and names the source itself holds
    values: frozenset[str]  # every number, whatever its unit
    written: frozenset[tuple[str, str]]  # (value, unit) written together: "16.98 GiB"
    near: frozenset[tuple[str, str]]  # (value, unit) with the unit within UNIT_WINDOW_CHARS after
    ranges: frozenset[tuple[str, str, str]]  # (low, high, unit)

    @classmethod
    def of(cls, context_text: str, paths: Iterable[str] = ()) -> SourceText:
        """From what the model saw (PRContext.text) and every path of the PR, shown or not."""
        raw = "\n\n".join([context_text, *paths])
        figures = _FigureIndex()
        for match in _FIGURES.finditer(raw):
            figures.add_match(match, raw)
        keys: set[str] = set()
        for claim in extract_claims(raw):  # the same reading as a card's, so a claim of the source is found
            if claim.kind in ("figure", "range"):
                figures.add(claim.figures, is_range=claim.kind == "range")
            else:
                keys.add(claim.key)
        text = fold(raw)
        return cls(
            text=text,
            loose=_loosen(text),
            tokens=frozenset(_TOKEN.findall(text)),
            keys=frozenset(keys),
            values=frozenset(figures.values),
            written=frozenset(figures.written),
            near=frozenset(figures.near),
            ranges=frozenset(figures.ranges),
        )


class _FigureIndex:
    def __init__(self) -> None:
        self.values: set[str] = set()
        self.written: set[tuple[str, str]] = set()
        self.near: set[tuple[str, str]] = set()
        self.ranges: set[tuple[str, str, str]] = set()

    def add_match(self, match: re.Match[str], raw: str) -> None:
        ends: tuple[Figure, ...]
        if match["range"] is not None:
            ends = _range_figures(match)
            self.add(ends, is_range=True)
            numbers = [match["lo"], match["hi"]]
        else:
            ends = (_make_figure(match["num"], match["unit"] or match["spaced"]),)
            self.add(ends, is_range=False)
            numbers = [match["num"]]
        # "128,256" in code is a list as well as a number.
        self.values.update(_canon(piece) for number in numbers if "," in number for piece in number.split(","))
        window = raw[match.end() : match.end() + UNIT_WINDOW_CHARS]
        for unit in _UNIT_TOKEN.findall(window):
            unit_key = _make_figure("0", unit).unit
            self.near.update((end.value, unit_key) for end in ends if unit_key)

    def add(self, ends: tuple[Figure, ...], *, is_range: bool) -> None:
        for end in ends:
            self.values.add(end.value)
            if end.unit:
                self.written.add((end.value, end.unit))
        if is_range:
            self.ranges.add((ends[0].value, ends[1].value, ends[1].unit))


def grounded_in(claim: Claim, source: SourceText) -> bool:
    """True when the PR's text states the claim (DESIGN.md §1)."""
    if claim.kind == "figure":
        return _figure_grounded(claim.figures[0], source)
    if claim.kind == "range":
        low, high = claim.figures
        return (low.value, high.value, high.unit) in source.ranges or all(
            _figure_grounded(end, source) for end in claim.figures
        )
    if claim.key in source.keys:
        return True
    if claim.kind == "name":
        return _occurs(source.loose, claim.key, hyphen_joins=False)
    if claim.kind == "version":
        return _occurs(source.text, claim.key) or _occurs(source.text, "v" + claim.key)
    if claim.kind == "reference":
        number = claim.key[1:]
        return any(_occurs(source.text, form + number) for form in ("#", "pull/", "issues/"))
    return claim.key in source.tokens or _occurs(source.text, claim.key)


def _figure_grounded(figure: Figure, source: SourceText) -> bool:
    if not figure.unit:
        return figure.value in source.values
    pair = (figure.value, figure.unit)
    return pair in source.written or (figure.unit not in STRICT_UNITS and pair in source.near)


def _is_word_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def _occurs(text: str, key: str, *, hyphen_joins: bool = True) -> bool:
    """`key` in `text` as a whole token: "x.py" is in "vllm/x.py", "foo" is not in "foo_bar" nor "0.1" in "10.1"."""
    if not key:
        return False
    start = text.find(key)
    while start != -1:
        end = start + len(key)
        before = text[start - 1] if start else " "
        after = text[end : end + 2]
        clear_before = not _is_word_char(key[0]) or not (_is_word_char(before) or (before == "." and key[0].isdigit()))
        # A word or number goes on through a letter, "-x" ("--max-model" is not "--max-model-len") or ".1".
        clear_after = not _is_word_char(key[-1]) or not (
            (after and _is_word_char(after[0]))
            or (hyphen_joins and after[:1] == "-" and _is_word_char(after[1:]))
            or (key[-1].isdigit() and after[:1] == "." and after[1:].isdigit())
        )
        if clear_before and clear_after:
            return True
        start = text.find(key, start + 1)
    return False


# -- checking a card ------------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldCheck:
    """One field of a card (the headline or one point) and its claims."""

    text: str
    claims: tuple[Claim, ...]
    unsupported: tuple[Claim, ...]

    @property
    def ok(self) -> bool:
        return not self.unsupported


@dataclass(frozen=True)
class Check:
    """A card's text checked field by field: `checked` claims, of which `unsupported` are not in the PR."""

    headline: FieldCheck
    points: tuple[FieldCheck, ...]

    @property
    def fields(self) -> tuple[FieldCheck, ...]:
        return (self.headline, *self.points)

    @property
    def checked(self) -> int:
        return sum(len(field.claims) for field in self.fields)

    @property
    def unsupported(self) -> tuple[Claim, ...]:
        return tuple(claim for field in self.fields for claim in field.unsupported)

    @property
    def ok(self) -> bool:
        return all(field.ok for field in self.fields)


def check_field(text: str, source: SourceText) -> FieldCheck:
    claims = tuple(extract_claims(text))
    return FieldCheck(text, claims, tuple(claim for claim in claims if not grounded_in(claim, source)))


def check_card_text(headline: str, points: Sequence[str], source: SourceText) -> Check:
    """Which claims of a card's headline and points the PR's text does not support."""
    return Check(check_field(headline, source), tuple(check_field(point, source) for point in points))


# -- cutting claims out ---------------------------------------------------------------------------

# Clause breaks of a headline, kept so the survivors can be joined as they were written.
_CLAUSE_BREAK = re.compile(r"(\s*[,;]\s+|\s*[，；、]\s*|\s+[—–-]\s+|\s*:\s+)")
_WORDS = re.compile(r"\w+")
_PARENTHETICAL = re.compile(r"\(([^()]*)\)")
# Words that only lead up to a figure: once the figure is cut they would dangle ("faster by").
_LEAD_WORDS = r"(?:up to|by|of|to|from|at|about|around|approximately|roughly|nearly|almost|over|under)\s+|[~≈]\s*"
# Where a claim was cut, while the words around it are tidied.
_CUT = "\ue000"
# A preposition whose object was cut, left before the end, punctuation or another preposition:
# "cuts TTFT on H200 by 30%" → "cuts TTFT by 30%".
_PREPOSITIONS = r"on|in|with|for|by|of|to|from|at|via|using|than|per|and|or"
_DANGLING = re.compile(
    rf"(?<![{_W}])(?:{_PREPOSITIONS})\s*{_CUT}(?=\s*(?:$|[,.;:)\]]|(?:{_PREPOSITIONS})(?![{_W}])))",
    re.IGNORECASE,
)


def without_claims(text: str, claims: Sequence[Claim]) -> str:
    """`text` with the claims cut out, with their lead-in words ("by 7.3x") and the clauses they carried.

    The first clause keeps its wording once the figure is gone ("Decode is 7.3x faster" → "Decode
    is faster") unless it is left a stub ("saves"). A short later clause or aside that holds no
    other claim was there to add the figure ("…, saves 16 GiB", "…, 1.9x faster"): it goes whole
    rather than leave "…, faster" behind.
    """
    if not claims:
        return text
    parts = _CLAUSE_BREAK.split(_PARENTHETICAL.sub(lambda match: _cut_aside(match, claims), text))
    clauses, breaks = parts[::2], parts[1::2]
    kept: list[str] = []
    for index, clause in enumerate(clauses):
        cut, cuts = _cut_claims(clause, claims)
        if cuts and (_is_stub(cut) if index == 0 else _is_addon(cut)):
            continue
        if kept and cut:
            kept.append(breaks[index - 1])
        if cut:
            kept.append(cut)
    return _tidy("".join(kept))


def _is_stub(text: str) -> bool:
    return len(_WORDS.findall(text)) < MIN_CLAUSE_WORDS


def _is_addon(text: str) -> bool:
    return len(_WORDS.findall(text)) <= MAX_ADDON_WORDS and not extract_claims(text)


def _cut_aside(match: re.Match[str], claims: Sequence[Claim]) -> str:
    inner, cuts = _cut_claims(match[1], claims)
    return " " if cuts and _is_addon(inner) else f"({inner})"


def _cut_claims(clause: str, claims: Sequence[Claim]) -> tuple[str, int]:
    """The clause without the claims, and how many cuts were made."""
    clause = clause.replace(_CUT, "")
    cuts = 0
    for claim in claims:
        pattern = rf"(?:(?<![{_W}])(?:{_LEAD_WORDS}))?(?<![{_W}.]){re.escape(claim.text)}(?![{_W}])(?:\s+of(?![{_W}]))?"
        clause, count = re.subn(pattern, f" {_CUT} ", clause, flags=re.IGNORECASE)
        cuts += count
    while cuts:
        clause, count = _DANGLING.subn(_CUT, clause)
        if not count:
            break
    return _tidy(clause.replace(_CUT, " ")), cuts


def _tidy(text: str) -> str:
    text = re.sub(r"\(\s*\)|\[\s*\]", " ", text)
    text = re.sub(r"\s+([,.;:!?)\]])", r"\1", text)
    text = re.sub(r"([(\[])\s+", r"\1", text)
    text = " ".join(text.split()).strip(" ,;:—–，；、")
    # A hyphen left alone at either end; "--flag" keeps its dashes.
    return re.sub(r"^(?:-\s+)+|(?:\s+-)+$", "", text)
