"""Faithfulness: every figure, count and identifier a card states must be found in the PR's own text.

Owns the PR's text indexed as a source, whether a claim is grounded in it, and the check of a
card's fields. Must not read claims itself (claims.py) nor rewrite text (cutting.py). Pure: no I/O,
no model, no Card; the card writer (cards/writer.py) decides when to check, ask again and
drop (DESIGN.md §1).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.core.checks.claims import (
    WORD_CHARS,
    Claim,
    Figure,
    FigureMention,
    count_mentions,
    extract_claims,
    figure_mentions,
    fold,
    loosen,
    unit_keys,
)
from bot.core.strings.patterns import lazy

# How far after a number of the source its unit may stand and still be its unit:
# "16.98 (GiB)", "from 18.2 to 16.98 GiB" (DESIGN: the unit must come from the PR too).
UNIT_WINDOW_CHARS = 20
# Ratios and percentages must be written next to their number in the source: in "2 of the 30%"
# the 2 is not a percentage, and in "2 to 3x" the 2 is not a speed-up.
STRICT_UNITS = frozenset({"x", "%"})
_TOKEN = lazy(rf"[{WORD_CHARS}]+")


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
    counts: frozenset[tuple[str, str]]  # (number, noun key) written within a few words: "3 kernel launches"

    @classmethod
    def of(cls, context_text: str, paths: Iterable[str] = (), facts: Iterable[str] = ()) -> SourceText:
        """From what the model saw (PRContext.text), every path of the PR, shown or not, and
        `facts`: sentences of ours stating what GitHub's data says of the PR (cards/writer.py file_facts)."""
        raw = "\n\n".join([context_text, *paths, *facts])
        figures = _FigureIndex()
        for mention in figure_mentions(raw):
            figures.add_mention(mention, raw)
        keys: set[str] = set()
        for claim in extract_claims(raw):  # the same reading as a card's, so a claim of the source is found
            if claim.kind in ("figure", "count", "range"):
                figures.add(claim.figures, is_range=claim.kind == "range")
            else:
                keys.add(claim.key)
        text = fold(raw)
        return cls(
            text=text,
            loose=loosen(text),
            tokens=frozenset(_TOKEN.findall(text)),
            keys=frozenset(keys),
            values=frozenset(figures.values),
            written=frozenset(figures.written),
            near=frozenset(figures.near),
            ranges=frozenset(figures.ranges),
            counts=frozenset(count_mentions(raw)),
        )


class _FigureIndex:
    def __init__(self) -> None:
        self.values: set[str] = set()
        self.written: set[tuple[str, str]] = set()
        self.near: set[tuple[str, str]] = set()
        self.ranges: set[tuple[str, str, str]] = set()

    def add_mention(self, mention: FigureMention, raw: str) -> None:
        self.add(mention.figures, is_range=mention.is_range)
        self.values.update(mention.listed)
        window = raw[mention.end : mention.end + UNIT_WINDOW_CHARS]
        for unit_key in unit_keys(window):
            self.near.update((end.value, unit_key) for end in mention.figures)

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
    if claim.kind == "count":
        return (claim.figures[0].value, claim.noun) in source.counts
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
