"""A PR description as a reader meets it: sections under headings, sentences, and tables.

Owns the cleaning of a description for the heuristic (templates, checklists, code and HTML out)
and its reading into parts. Pure. It must not judge the PR (core/heuristic/signals.py does), nor what its
sentences do (core/heuristic/sentences.py) or its figures (core/heuristic/figures.py). Every sentence it gives is the
description's own text, whitespace and Markdown markers aside, so a card that quotes one states
only what the PR states.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from bot.core.strings.patterns import lazy
from bot.core.strings.text import clean_text, count_cjk, estimate_tokens

# Read at most this much of a description: what the model's context shows of it with the default
# budget (core/prompting/context.py gives the description 25% of 12,000 tokens), so what a card quotes is in
# what the faithfulness check reads too.
MAX_READ_TOKENS = 2500
# A section whose prose is shorter than this is a template heading left empty or a one-word note.
MIN_SECTION_WORDS = 12

_FENCE = lazy(r"^\s*(?:```|~~~)")
_TASK = lazy(r"^\s*[-*+]\s+\[[ xX]\]")
_HTML_ONLY = lazy(r"^\s*(?:</?[A-Za-z][^>]*>\s*)+$")
# Collapsed blocks hold what the author chose not to show: logs, release notes, checklists.
_DETAILS_OPEN = lazy(r"<details\b", re.IGNORECASE)
_DETAILS_CLOSE = lazy(r"</details\s*>", re.IGNORECASE)
# A line that opens with three words in capitals is a template's notice ("BEFORE SUBMITTING, PLEASE READ").
_SHOUT = lazy(r"^\s*(?:\*\*|__)?[A-Z]{2,}(?:[ ,]+[A-Z]{2,}){2}")
_AUTOLINK = lazy(r"<(?P<url>https?://[^<>\s]+)>")
_RULE = lazy(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")
_HEADING = lazy(r"^\s*#{1,6}\s+(?P<text>.+?)\s*#*\s*$")
_BOLD_HEADING = lazy(r"^\s*(?:\*\*|__)(?P<text>[^*_]{1,60}?):?(?:\*\*|__):?\s*$")
# "Root cause: the free list…": a label that opens a section on its own line. Only the words a
# section heading uses (SECTION_WORDS), so "Note: …" stays prose.
_LABEL = lazy(
    r"^\s*(?:\*\*|__)?(?P<text>[A-Za-z][A-Za-z/-]*(?: [A-Za-z/-]+){0,2})(?:\*\*|__)?\s*:(?:\*\*|__)?\s+(?P<rest>\S.*)$"
)
_TABLE_ROW = lazy(r"^\s*\|.*\|\s*$")
_TABLE_RULE = lazy(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?\s*$")
_LIST_MARK = lazy(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_QUOTE_MARK = lazy(r"^\s*(?:>\s?)+")
_IMAGE = lazy(r"!\[[^\]\n]*\]\([^)\n]*\)")
_LINK = lazy(r"\[(?P<text>[^\]\n]+)\]\([^)\n]*\)")
_TAG = lazy(r"</?[A-Za-z][^<>\n]*>|<[!@#][^<>\n]*>")
# Bold and italic stars; underscores stay, since `__init__` and snake_case are code, not emphasis.
_EMPHASIS = lazy(r"\*\*|(?<![\w*])\*(?=\S)|(?<=\S)\*(?![\w*])")
# Sentence ends: ". " before a capital, a backtick, a digit or a CJK character (not after "e.g." or
# "vs."), and the CJK full stops, which need no space.
_SENTENCE_END = lazy(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\bvs\.)(?<=[.!?])\s+(?=[A-Z0-9`(#\"“\u4e00-\u9fff])|(?<=[。！？])")
_WORD = lazy(r"[A-Za-z0-9_][\w'./-]*")

# "" for any other heading, or none.
SectionKind = Literal["cause", "design", "motivation", "results", "change", ""]
# Heading words per kind of section, lower case; the first kind that matches wins.
SECTION_WORDS: tuple[tuple[SectionKind, tuple[str, ...]], ...] = (
    ("cause", ("root cause", "cause", "analysis", "diagnos", "investigat", "went wrong", "原因", "根因")),
    (
        "design",
        (
            *("design", "approach", "rationale", "alternative", "trade-off", "tradeoff", "how it works"),
            *("implementation", "proposal", "设计", "方案", "实现"),
        ),
    ),
    ("motivation", ("motivation", "background", "why", "动机", "背景")),
    ("results", ("benchmark", "result", "performance", "perf", "evaluation", "measurement", "性能", "结果")),
    ("change", ("fix", "solution", "change", "what this pr does", "summary", "修复", "改动")),
)


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Section:
    heading: str  # as written, Markdown markers removed; "" before the first heading
    kind: SectionKind
    paragraphs: tuple[str, ...] = ()  # prose: one per paragraph or list item, lines joined
    tables: tuple[Table, ...] = ()

    @property
    def words(self) -> int:
        return sum(word_count(paragraph) for paragraph in self.paragraphs)

    @property
    def substantive(self) -> bool:
        return self.words >= MIN_SECTION_WORDS

    def sentences(self) -> Iterator[str]:
        for paragraph in self.paragraphs:
            for sentence in _SENTENCE_END.split(paragraph):
                if sentence.strip():
                    yield sentence.strip()


@dataclass(frozen=True)
class Description:
    sections: tuple[Section, ...] = field(default=())

    @property
    def empty(self) -> bool:
        return not any(section.paragraphs or section.tables for section in self.sections)

    @property
    def words(self) -> int:
        return sum(section.words for section in self.sections)

    def sentences(self) -> Iterator[tuple[Section, str]]:
        for section in self.sections:
            for sentence in section.sentences():
                yield section, sentence

    def tables(self) -> Iterator[Table]:
        for section in self.sections:
            yield from section.tables

    def of_kind(self, kind: SectionKind) -> list[Section]:
        return [section for section in self.sections if section.kind == kind and section.substantive]


def word_count(text: str) -> int:
    """Words of Latin text, and one word per two CJK characters (a Chinese word is about two)."""
    return len(_WORD.findall(text)) + count_cjk(text) // 2


def _words_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """A heading word at the start of a word ("cause", not the one in "because"); CJK anywhere."""
    return re.compile("|".join((r"\b" if word.isascii() else "") + re.escape(word) for word in words))


_SECTION_PATTERNS = tuple((kind, _words_pattern(words)) for kind, words in SECTION_WORDS)


def section_kind(heading: str) -> SectionKind:
    lower = heading.lower()
    return next((kind for kind, pattern in _SECTION_PATTERNS if pattern.search(lower)), "")


def read_description(body: str) -> Description:
    """The description's sections, its template, checklists, code blocks and HTML left out."""
    builder = _Builder()
    in_code, collapsed = False, 0
    for raw in _readable(body).splitlines():
        if _FENCE.match(raw) and not collapsed:
            in_code = not in_code
            builder.end_paragraph()
            continue
        if not in_code:
            opened, closed = len(_DETAILS_OPEN.findall(raw)), len(_DETAILS_CLOSE.findall(raw))
            was_collapsed, collapsed = collapsed, max(0, collapsed + opened - closed)
            if was_collapsed or collapsed:
                builder.end_paragraph()
                continue
        if in_code or _TASK.match(raw) or _HTML_ONLY.match(raw) or _RULE.match(raw) or _SHOUT.match(raw):
            builder.end_paragraph()
            continue
        builder.line(raw)
    return builder.done()


def _readable(body: str) -> str:
    """The cleaned description, cut to what the model's context would show of it."""
    text = clean_text(body)
    while estimate_tokens(text) > MAX_READ_TOKENS:
        cut = len(text) * 3 // 4
        text = text[: text.rfind("\n", 0, cut) if "\n" in text[:cut] else cut]
    return text


class _Builder:
    """Lines in, sections out: one paragraph or table at a time."""

    def __init__(self) -> None:
        self.sections: list[Section] = []
        self.heading = ""
        self.paragraphs: list[str] = []
        self.tables: list[Table] = []
        self.lines: list[str] = []  # of the paragraph being read
        self.rows: list[tuple[str, ...]] = []  # of the table being read

    def line(self, raw: str) -> None:
        if _TABLE_ROW.match(raw):
            self.end_paragraph(keep_table=True)
            if not _TABLE_RULE.match(raw):
                self.rows.append(tuple(_inline(cell) for cell in raw.strip().strip("|").split("|")))
            return
        self.end_table()
        heading = _heading(raw)
        if heading is not None:
            self.start(heading)
            return
        label = _LABEL.match(raw)
        if label and section_kind(label["text"]):
            self.start(label["text"].strip())
            raw = label["rest"]
        if not raw.strip() or _LIST_MARK.match(raw):
            self.end_paragraph()
        text = _inline(_LIST_MARK.sub("", _QUOTE_MARK.sub("", raw)))
        if text:
            self.lines.append(text)

    def end_paragraph(self, *, keep_table: bool = False) -> None:
        if self.lines:
            self.paragraphs.append(" ".join(self.lines))
            self.lines = []
        if not keep_table:
            self.end_table()

    def end_table(self) -> None:
        if self.rows:
            self.tables.append(Table(self.rows[0], tuple(self.rows[1:])))
            self.rows = []

    def start(self, heading: str) -> None:
        self.end_paragraph()
        if self.heading or self.paragraphs or self.tables:
            self.sections.append(
                Section(self.heading, section_kind(self.heading), tuple(self.paragraphs), tuple(self.tables))
            )
        self.heading, self.paragraphs, self.tables = heading, [], []

    def done(self) -> Description:
        self.start("")
        return Description(tuple(section for section in self.sections if section.paragraphs or section.tables))


def _heading(raw: str) -> str | None:
    match = _HEADING.match(raw) or _BOLD_HEADING.match(raw)
    return _inline(match["text"]).rstrip(":").strip() if match else None


def _inline(text: str) -> str:
    """A line's text without Markdown links, images, HTML tags and emphasis markers; code spans stay."""
    text = _AUTOLINK.sub(lambda match: match["url"], _IMAGE.sub("", text))
    text = _LINK.sub(lambda match: match["text"], text)
    text = _EMPHASIS.sub("", _TAG.sub("", text))
    return " ".join(text.split())
