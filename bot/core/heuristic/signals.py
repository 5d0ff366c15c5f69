"""The verdict of a card made without a model: points for what a reader values, against mechanical marks.

Owns the signals, their weights and the thresholds. Pure. Every signal that counted is kept, so a
verdict can be explained ("why is #123 here?") as rules: `kept` True raised it, False lowered it.

Score = size (1 small, 2 a skim's worth of code, 5 a design by size alone)
      + strong signals: a root-cause section 3, a benchmark table 2, a stated result 2 (+1 when large)
      + moderate ones: a design section 2 (a motivation section or a decision said in passing 1),
        a long review thread 1 or 2
      + weak ones, 1 at most together: "Fixes #N", a failure explained in passing, code named in prose
      - mechanical marks: dependency files only 3, a version bump 3, CI only 2, docs only 2 (or
        docs and wording: comments, docstrings, strings), a typo fix 2, a revert 4.
Read from 5, skim from 2. Floors and caps hold whatever the score, caps last: a change whose kind
is worth a look (kernel code, what users call, a setting's default: core/heuristic/reasons.py) is a skim at
least, so its card never gives a reason to read under a skip; a bot or dependency files only is a
skip; a revert, or a change without source code, is at most a skim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bot.core.heuristic.change_kinds import change_kind
from bot.core.heuristic.description import Description, read_description, word_count
from bot.core.heuristic.figures import ResultFigure, description_figures, is_benchmark
from bot.core.heuristic.headlines import title_figures
from bot.core.heuristic.reasons import leaning
from bot.core.heuristic.sentences import explains_failure, fixed_issues, names_code, quotable, states_decision
from bot.core.heuristic.shape import Stats, is_bump, is_revert, is_trivial_title, is_typo_fix, tags
from bot.core.strings.text import clean_line
from bot.models import VERDICT_ORDER, Comment, PRListing, PRSnapshot, Rule, SignalKind, Verdict

SKIM_SCORE, READ_SCORE = 2, 5
# Size, calibrated on the vLLM sample (shared/data): p50 is 68 changed lines, p90 534, p99 2,383.
SMALL_SIZE, SKIM_SIZE, READ_SIZE = 1, 2, 5
SKIM_MIN_LINES = 40  # less source/test than this rarely holds an idea worth minutes by its size
LARGE_SOURCE_LINES = 800  # past ~p95: a design, whatever the title says
CROSS_CUTTING_AREAS = 4  # distinct two-level source directories (vllm/v1, vllm/model_executor, csrc…)
CROSS_CUTTING_MIN_LINES = 200
TAGGED_READ_MIN_LINES = 100  # a [Perf]/[Kernel]/… PR this big usually carries a technique
READ_TAGS = frozenset({"perf", "kernel", "core", "feature", "rfc"})
# What readers of the example digest valued: the write-up of a cause (by itself a skim, and a read
# with a skim's worth of code), measurements, a stated win.
ROOT_CAUSE_SECTION = 3
BENCHMARK_TABLE = 2
RESULT_FIGURE, LARGE_RESULT = 2, 1
# How it was built and what was weighed is what readers learn from; why it was needed, less so.
DESIGN_SECTION, MOTIVATION = 2, 1
REVIEWS, LONG_REVIEWS = 1, 2
REVIEW_THREAD_COMMENTS, LONG_REVIEW_THREAD_COMMENTS = 10, 25  # vLLM's busy PRs run to dozens
# Weak signals show a description worth a look, not a change worth a careful read: together they
# add one point, enough to lift a one-line change with an explanation to a skim.
WEAK_TOTAL = 1
DEPENDENCIES, BUMP, CI_ONLY, DOCS_ONLY, TYPO, REVERT = -3, -3, -2, -2, -2, -4
# The kinds of change whose point argues for reading (core/heuristic/reasons.py), by the signal that holds
# the verdict at a skim: a card that says "Kernel code changed" gives a reason to look.
WORTH_A_LOOK: dict[str, SignalKind] = {
    "new_kernel": "kernel",
    "kind_kernel": "kernel",
    "kind_api": "api",
    "kind_default": "default",
}
# Reading speed: skimming ~40 changed lines a minute, careful reading ~25 (so the sample's p90 PR,
# 534 lines, reads in ~20 minutes); a description at ~200 words a minute.
SKIM_LINES_PER_MINUTE, SKIM_MINUTES = 40, (2, 10)
READ_LINES_PER_MINUTE, READ_MINUTES = 25, (10, 45)
WORDS_PER_MINUTE = 200
SKIP_MINUTES = 1
UNKNOWN_SIZE_SKIM_MINUTES = 5  # files unread: a typical skim
# A heading or a figure named in a rule: enough to recognise it.
MAX_DETAIL_CHARS = 60


@dataclass(frozen=True)
class Signal:
    kind: SignalKind
    weight: int
    detail: str = ""
    cap: Verdict | None = None  # the highest verdict the PR may get, whatever its score
    floor: Verdict | None = None  # the lowest, unless a cap says otherwise
    weak: bool = False

    @property
    def rule(self) -> Rule:
        raises = self.weight >= SKIM_SCORE if self.kind in ("size", "unread") else self.weight > 0
        return Rule(self.kind, raises or self.floor is not None, self.detail)


@dataclass(frozen=True)
class Judgement:
    verdict: Verdict
    minutes: int
    signals: tuple[Signal, ...]

    @property
    def rules(self) -> tuple[Rule, ...]:
        return tuple(signal.rule for signal in self.signals)


@dataclass(frozen=True)
class Evidence:
    """What the verdict reads: the title, the file list (None when unread), the description and thread."""

    listing: PRListing
    title: str  # cleaned
    stats: Stats | None
    description: Description
    figures: tuple[ResultFigure, ...]  # of the title and the description
    comments: tuple[Comment, ...] = ()

    @classmethod
    def of(cls, snapshot: PRSnapshot) -> Evidence:
        """What the verdict reads of a snapshot; no file list when its files were never fetched."""
        listing = snapshot.listing
        title = clean_line(listing.title, len(listing.title))
        description = read_description(listing.body)
        figures = [*title_figures(title), *description_figures(description)]
        stats = Stats.of(snapshot.files) if snapshot.complete else None
        return cls(listing, title, stats, description, tuple(figures), snapshot.comments)

    @property
    def mechanical(self) -> bool:
        """A bot's PR or a bump: its description is generated text, not an author's explanation."""
        return is_bot(self.listing) or is_bump(self.title)


def is_bot(listing: PRListing) -> bool:
    return listing.author_is_bot or listing.author.lower().endswith("[bot]")


def judge(evidence: Evidence) -> Judgement:
    signals = [*_size(evidence), *_kind(evidence), *_mechanical(evidence)]
    if not evidence.mechanical:
        signals += _description(evidence)
    weak = min(WEAK_TOTAL, sum(signal.weight for signal in signals if signal.weak))
    score = sum(signal.weight for signal in signals if not signal.weak) + weak
    verdict: Verdict = "read" if score >= READ_SCORE else "skim" if score >= SKIM_SCORE else "skip"
    for signal in signals:
        if signal.floor is not None and VERDICT_ORDER[signal.floor] < VERDICT_ORDER[verdict]:
            verdict = signal.floor
    for signal in signals:
        if signal.cap is not None and VERDICT_ORDER[signal.cap] > VERDICT_ORDER[verdict]:
            verdict = signal.cap
    return Judgement(verdict, _minutes(verdict, evidence), tuple(signals))


def verdict_rules(snapshot: PRSnapshot) -> tuple[Rule, ...]:
    """What raised or lowered the heuristic verdict of this PR, as rules a "why is it here?" shows."""
    return judge(Evidence.of(snapshot)).rules


def _size(evidence: Evidence) -> list[Signal]:
    stats, title = evidence.stats, evidence.title
    if stats is None:  # files unread: the title stands in for the size
        return [Signal("unread", SMALL_SIZE if is_trivial_title(title) else SKIM_SIZE)]
    if not stats.files:
        return [Signal("size", 0, "0", cap="skip")]
    areas = stats.source_areas()
    tagged = sorted(tags(title) & READ_TAGS)
    if stats.source_lines >= LARGE_SOURCE_LINES:
        return [Signal("large", READ_SIZE, str(stats.source_lines))]
    if len(areas) >= CROSS_CUTTING_AREAS and stats.source_lines >= CROSS_CUTTING_MIN_LINES:
        return [Signal("cross_cutting", READ_SIZE, str(len(areas)))]
    if tagged and stats.source_lines >= TAGGED_READ_MIN_LINES:
        return [Signal("tagged", READ_SIZE, ", ".join(tagged))]
    return [Signal("size", SKIM_SIZE if stats.reading >= SKIM_MIN_LINES else SMALL_SIZE, str(stats.reading))]


def _kind(evidence: Evidence) -> list[Signal]:
    """A kind of change worth a look holds the verdict at a skim; it weighs nothing by itself."""
    if evidence.stats is None:
        return []
    found = change_kind(evidence.stats, evidence.title)
    if found is None or leaning(found.name) != "read":
        return []
    return [Signal(WORTH_A_LOOK[found.name], 0, _clip(found.paths[0]), floor="skim")]


def _mechanical(evidence: Evidence) -> list[Signal]:
    stats, title, listing = evidence.stats, evidence.title, evidence.listing
    signals: list[Signal] = []
    if is_bot(listing):
        signals.append(Signal("bot", -SKIM_SCORE, _clip(listing.author), cap="skip"))
    if stats is not None and stats.only_dependencies():
        signals.append(Signal("dependencies", DEPENDENCIES, _first_path(stats), cap="skip"))
    elif is_bump(title):
        signals.append(Signal("bump", BUMP))
    if stats is not None and stats.only("ci"):
        signals.append(Signal("ci_only", CI_ONLY, _first_path(stats)))
    elif stats is not None and stats.only("docs"):
        signals.append(Signal("docs_only", DOCS_ONLY, _first_path(stats)))
    elif stats is not None and stats.only_wording():  # weighed as docs: no code changed
        signals.append(Signal("wording", DOCS_ONLY, _first_path(stats)))
    if is_typo_fix(title):
        signals.append(Signal("typo", TYPO))
    if is_revert(title):
        signals.append(Signal("revert", REVERT, cap="skim"))
    if stats is not None and stats.files and not stats.source_lines:
        signals.append(Signal("no_source", 0, cap="skim"))
    return signals


def _description(evidence: Evidence) -> list[Signal]:
    description = evidence.description
    signals: list[Signal] = []
    causes = description.of_kind("cause")
    if causes:
        signals.append(Signal("root_cause", ROOT_CAUSE_SECTION, _clip(causes[0].heading)))
    benchmarks = [table for table in description.tables() if is_benchmark(table)]
    if benchmarks:
        signals.append(Signal("benchmark", BENCHMARK_TABLE, _clip(" | ".join(benchmarks[0].header))))
    if evidence.figures:
        best = max(evidence.figures, key=lambda figure: figure.rank)
        weight = RESULT_FIGURE + (LARGE_RESULT if any(figure.large for figure in evidence.figures) else 0)
        signals.append(Signal("figure", weight, _clip(best.text)))
    sentences = [sentence for _, sentence in description.sentences() if quotable(sentence)]
    designs = description.of_kind("design") or description.of_kind("motivation")
    if designs and designs[0].kind == "design":
        signals.append(Signal("design", DESIGN_SECTION, _clip(designs[0].heading)))
    elif designs or any(states_decision(sentence) for sentence in sentences):
        signals.append(Signal("design", MOTIVATION, _clip(designs[0].heading) if designs else ""))
    reviews = sum(1 for comment in evidence.comments if _substantive(comment))
    if reviews >= REVIEW_THREAD_COMMENTS:
        signals.append(
            Signal("reviews", LONG_REVIEWS if reviews >= LONG_REVIEW_THREAD_COMMENTS else REVIEWS, str(reviews))
        )
    issues = fixed_issues(description)
    if issues:
        signals.append(Signal("fixes", 1, _clip(", ".join(issues)), weak=True))
    if not causes and any(explains_failure(sentence) for sentence in sentences):
        signals.append(Signal("cause", 1, weak=True))
    if any(names_code(sentence) for sentence in sentences):
        signals.append(Signal("explains", 1, weak=True))
    return signals


def _substantive(comment: Comment) -> bool:
    """A person's review comment that says something ("LGTM" and bots' reports do not count)."""
    author = comment.author.lower()
    return not author.endswith("[bot]") and word_count(comment.body) >= 3


def _minutes(verdict: Verdict, evidence: Evidence) -> int:
    if verdict == "skip":
        return SKIP_MINUTES
    if evidence.stats is None:
        return UNKNOWN_SIZE_SKIM_MINUTES if verdict == "skim" else READ_MINUTES[0]
    per_minute, (low, high) = (
        (SKIM_LINES_PER_MINUTE, SKIM_MINUTES) if verdict == "skim" else (READ_LINES_PER_MINUTE, READ_MINUTES)
    )
    description = 0 if evidence.mechanical else evidence.description.words / WORDS_PER_MINUTE
    return max(low, min(high, math.ceil(evidence.stats.reading / per_minute + description)))


def _first_path(stats: Stats) -> str:
    return _clip(max(stats.files, key=lambda change: change.changes).path)


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_DETAIL_CHARS else text[: MAX_DETAIL_CHARS - 1] + "…"
