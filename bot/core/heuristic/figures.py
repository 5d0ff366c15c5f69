"""Result figures: the speed-ups, memory, latency and throughput changes a PR states, and its key one.

Owns which number-with-unit in a title, a sentence or a benchmark table is a result ("7.3x faster",
"saves 16.98 GiB"), how large it is, and the words around it as the PR writes them. Pure. A
figure's text and phrase are cut out of the PR's own text, never rewritten, so a headline that
carries them states only what the PR states (core/checks/faithfulness.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from bot.core.heuristic.description import Description, Table
from bot.core.strings.patterns import lazy

FigureKind = Literal["ratio", "memory", "percent", "time", "throughput"]
# Which kind of figure is the key one when a PR states several: a speed-up says most, then
# memory saved, then a relative change, then absolute times and rates (their size means little
# without the baseline).
KIND_PRIORITY: tuple[FigureKind, ...] = ("ratio", "memory", "percent", "time", "throughput")
# A large result, worth a reader's minutes by itself: half again as fast, a fifth less, a GiB saved.
LARGE_RATIO = 1.5
LARGE_PERCENT = 20.0
LARGE_MEMORY_GIB = 1.0
# Words of a phrase, before the figure, kept when a clause is too long for the headline.
WORDS_BEFORE_FIGURE = 4

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_UNITS: dict[FigureKind, tuple[str, ...]] = {
    "ratio": ("x", "X", "×", "倍"),
    "percent": ("%", "％", "percent"),
    "memory": ("GiB", "GB", "MiB", "MB", "TiB", "TB", "KiB", "KB"),
    "time": (
        *("nanoseconds", "microseconds", "milliseconds", "seconds", "minutes", "nanosecond", "microsecond"),
        *("millisecond", "second", "minute", "secs", "sec", "min", "ns", "us", "µs", "μs", "ms", "s"),
        *("毫秒", "微秒", "秒"),
    ),
    "throughput": ("tokens/s", "tokens/sec", "tok/s", "req/s", "requests/s", "it/s", "QPS"),
}
_UNIT_KIND = {unit.lower(): kind for kind, units in _UNITS.items() for unit in units}
_UNIT = "|".join(re.escape(unit) for unit in sorted(_UNIT_KIND, key=len, reverse=True))
# ASCII boundaries: "提速1.8倍" is a figure although CJK characters are word characters to `re`.
_FIGURE = lazy(
    rf"(?<![A-Za-z0-9_.])(?P<lo>{_NUM})(?:[ \t]?(?P<lounit>{_UNIT}))?"
    rf"(?:[ \t]?(?:-|–|—|~|to)[ \t]?(?P<hi>{_NUM}))?[ \t]?(?P<unit>{_UNIT})(?![A-Za-z0-9])",
    re.IGNORECASE,
)
# "4x H100", "8x A100 GPUs": a count of devices, not a speed-up.
_DEVICES = lazy(r"\s*(?:[A-Z]+\d+[A-Za-z0-9]*|GPUs?|nodes?|cards?|devices?|machines?|hosts?)\b")
# Words that say a figure is a change, and the arrow of "45 ms → 38 ms". Not "memory" alone
# ("90% GPU memory utilization" is a setting), nor "more than" ("more than 50% of requests" is a share).
_RESULT_WORDS = lazy(
    r"\b(?:faster|slower|speed-?ups?|speeds? up|improve[sd]?|improvements?|reduce[sd]?|reductions?|lower|higher|"
    r"(?:less|fewer|more)(?!\s+than)|save[sd]?|saving|savings|free[sd]|cuts?|drops?|dropped|decrease[sd]?|"
    r"increase[sd]?|boost|gains?|regress(?:ion|ions|ed|es)?|overhead|latency|throughput|ttft|tpot|itl|"
    r"per (?:layer|step|token)|baseline|vs)\b"
    r"|->|→|提速|加速|降低|减少|节省|提升|省|回归|延迟|吞吐",
    re.IGNORECASE,
)
# Clause ends inside a sentence: the figure's phrase stays within them.
# A comma ends a clause only before a space: "3,950" is a number.
_CLAUSE_END = lazy(r"[;；，:：()（）—]\s*|,\s+|(?<=[.!?。！？])\s+")
_LEADING_CONNECTIVE = lazy(r"^(?:and|but|so|thus|which|while|overall|here)\s+", re.IGNORECASE)
# "the benchmark shows 2x…", "we measured 30%…": the reporting words go, the result stays.
_REPORTED = lazy(
    r"^(?:[\w'-]+\s+){0,3}?(?:reports?|reported|shows?|showed|measured?|measures|observed?|observes|see|saw|"
    r"gets?|got|gives?|gave|yields?|yielded|achieves?|achieved|brings?|brought)\s+",
    re.IGNORECASE,
)
# A phrase does not end on these: "…to 12.1 GiB on" reads as cut.
_DANGLING = frozenset(
    {"a", "an", "the", "at", "in", "on", "for", "with", "of", "by", "to", "from", "and", "or", "vs", "than", "when"}
)
# Words that say a table column holds results rather than settings.
_RESULT_COLUMN = lazy(r"speed-?up|improve|change|diff|gain|reduc|saving|delta|Δ|vs|ratio|提速|提升|变化", re.I)
_TABLE_CELL = lazy(rf"^\s*[-+]?(?:{_NUM})[ \t]?(?:{_UNIT})\s*$", re.IGNORECASE)
_HAS_LETTER = lazy(r"[A-Za-z\u4e00-\u9fff]")
_SHORT_LABEL = lazy(r"^[A-Za-z][A-Za-z _-]{0,20}$")


@dataclass(frozen=True)
class ResultFigure:
    """A result a PR states: its text as written, kind and size, and where it was read."""

    text: str  # "7.3x", "2-6x", "16.98 GiB"
    kind: FigureKind
    size: float  # the larger end, in the kind's unit (times, percent, GiB, as written for time and rates)
    clause: str = ""  # the clause of prose it stands in; "" for a table cell
    column: str = ""  # a table cell's column, when a short label ("speedup")
    condition: str = ""  # a table cell's row, when it names one ("bs=64", "batch 64")

    @property
    def large(self) -> bool:
        if self.kind == "ratio":
            return self.size >= LARGE_RATIO
        if self.kind == "percent":
            return self.size >= LARGE_PERCENT
        return self.kind == "memory" and self.size >= LARGE_MEMORY_GIB

    @property
    def rank(self) -> tuple[int, float, bool]:
        return -KIND_PRIORITY.index(self.kind), self.size, bool(self.clause)

    def phrase(self, max_chars: int) -> str:
        """The clause around the figure, its reporting words dropped, cut to `max_chars` by words."""
        return _phrase(self.clause, self.text, max_chars) if self.clause else ""


def key_figure(figures: list[ResultFigure]) -> ResultFigure | None:
    """The figure a headline should carry: the most telling kind, then the largest, prose before a table."""
    return max(figures, key=lambda figure: figure.rank, default=None)


def text_figures(text: str) -> list[ResultFigure]:
    """The result figures of a title or a sentence: a number with a unit, in a clause that says what changed."""
    figures: list[ResultFigure] = []
    for clause in _clauses(text):
        if not _RESULT_WORDS.search(clause):
            continue
        for match in _FIGURE.finditer(clause):
            figure = _figure(match)
            if figure is not None and not _counts_devices(figure, clause, match.end()):
                figures.append(ResultFigure(figure.text, figure.kind, figure.size, clause=clause))
    return figures


def description_figures(description: Description) -> list[ResultFigure]:
    """Every result figure of a description: its sentences' and its benchmark tables'."""
    figures = [figure for _, sentence in description.sentences() for figure in text_figures(sentence)]
    return figures + [figure for table in description.tables() for figure in table_figures(table)]


def table_figures(table: Table) -> list[ResultFigure]:
    """Speed-ups anywhere in a table, and percentages in a column whose header says they are changes."""
    figures: list[ResultFigure] = []
    for row in table.rows:
        for index, cell in enumerate(row):
            match = _FIGURE.search(cell) if _TABLE_CELL.match(cell) else None
            figure = _figure(match) if match else None
            header = table.header[index] if index < len(table.header) else ""
            if figure is None or (figure.kind != "ratio" and not _RESULT_COLUMN.search(header)):
                continue
            column = header if _SHORT_LABEL.match(header) else ""
            # The cell as written: "-18%" keeps its sign.
            condition = _row(table, row)
            figures.append(ResultFigure(cell.strip(), figure.kind, figure.size, column=column, condition=condition))
    return figures


def is_benchmark(table: Table) -> bool:
    """A table of measurements: two rows or more, and numbers with units (or units in the header)."""
    if len(table.rows) < 2:
        return False
    units_in_header = any(
        _FIGURE.search("1 " + word) for cell in table.header for word in re.findall(r"[\w/%×]+", cell)
    )
    measured = sum(
        1 for row in table.rows for cell in row if _TABLE_CELL.match(cell) or (units_in_header and _number(cell))
    )
    return measured >= 2


def _number(cell: str) -> bool:
    return bool(re.fullmatch(rf"\s*[-+]?(?:{_NUM})\s*", cell))


def _row(table: Table, row: tuple[str, ...]) -> str:
    """The row's name: its first cell when it has words ("bs=64"), else with the column's ("batch 64")."""
    first = row[0].strip() if row else ""
    if not first or _TABLE_CELL.match(first):
        return ""
    if _HAS_LETTER.search(first):
        return first
    label = table.header[0].strip() if table.header else ""
    return f"{label} {first}" if _SHORT_LABEL.match(label) and _number(first) else ""


def _figure(match: re.Match[str]) -> ResultFigure | None:
    kind = _UNIT_KIND.get(match["unit"].lower())
    if kind is None:
        return None
    numbers = [float(number.replace(",", "")) for number in (match["lo"], match["hi"]) if number]
    size = max(numbers)
    if kind == "memory":
        size *= {"t": 1024.0, "g": 1.0, "m": 1 / 1024, "k": 1 / 1024**2}[match["unit"][0].lower()]
    return ResultFigure(match.group().strip(), kind, size)


def _counts_devices(figure: ResultFigure, clause: str, end: int) -> bool:
    return figure.kind == "ratio" and bool(_DEVICES.match(clause, end))


def _opens_phrase(word: str) -> bool:
    """A word that starts a new phrase after a noun: a preposition, or a participle ("reported in…")."""
    lower = word.lower()
    return lower in _DANGLING or (len(lower) > 4 and lower.endswith("ed") and lower.isalpha())


def _clauses(text: str) -> list[str]:
    return [clause.strip() for clause in _CLAUSE_END.split(text) if clause.strip()]


def _phrase(clause: str, figure: str, max_chars: int) -> str:
    text = clause.rstrip(" .。")
    for pattern in (_LEADING_CONNECTIVE, _REPORTED):
        shorter = pattern.sub("", text, count=1)
        if figure in shorter:
            text = shorter
    if len(text) <= max_chars:
        return text
    words = text.split()
    at = next((index for index, word in enumerate(words) if figure.split(maxsplit=1)[0] in word), 0)
    start = 0 if len(" ".join(words[: at + len(figure.split())])) <= max_chars else max(0, at - WORDS_BEFORE_FIGURE)
    kept: list[str] = []
    for word in words[start:]:
        if len(" ".join([*kept, word])) > max_chars:
            break
        kept.append(word)
    # Cut short: end before the last phrase the cut broke into ("…on H100 for short" → "…on H100").
    after_figure = at - start + len(figure.split())
    cuts = [index for index, word in enumerate(kept) if index >= after_figure and _opens_phrase(word)]
    if cuts and start + len(kept) < len(words):
        kept = kept[: cuts[-1]]
    while kept and kept[-1].lower().strip(",;") in _DANGLING:
        kept.pop()
    phrase = " ".join(kept).rstrip(",;:")
    return phrase if figure in phrase else ""
