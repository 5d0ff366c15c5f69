"""Cards without a model: headline, verdict and points read off a PR's title and file list.

Used when no LLM is configured or the model failed. Pure. Every figure or identifier in a text
is copied from the title or computed from the file list (paths, counts), never invented, so the
faithfulness check that guards model cards holds here too.
"""

from __future__ import annotations

import math
import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bot.core.context import NO_ROOM
from bot.core.files import LOCK_FILES, file_kind, skip_reason
from bot.core.text import clean_line, count_cjk
from bot.models import Card, Coverage, FileChange, Language, PRSnapshot, Verdict
from bot.words import text

# The card's headline limits (DESIGN.md, the card): CJK characters carry about twice the meaning.
MAX_HEADLINE_CHARS = 120
MAX_HEADLINE_CJK_CHARS = 60
# The card's point limits (DESIGN.md, the card).
MAX_WHY, MAX_CAVEATS, MAX_WATCH = 3, 3, 2
# Paths named in one point before "and N more": a point is a line, not a listing.
MAX_PATHS_NAMED = 2

# Verdict thresholds, calibrated on the vLLM sample (shared/data): p50 is 68 changed lines,
# p90 534, p99 2,383.
TINY_CHANGE_LINES = 5  # a one-line fix or a version bump: the headline says it all
SKIM_MIN_LINES = 40  # less source/test than this rarely holds an idea worth minutes
LARGE_SOURCE_LINES = 800  # past ~p95: a design, whatever the title says
CROSS_CUTTING_AREAS = 4  # distinct two-level source directories (vllm/v1, vllm/model_executor, csrc…)
CROSS_CUTTING_MIN_LINES = 200
TAGGED_READ_MIN_LINES = 100  # a [Perf]/[Kernel]/… PR this big usually carries a technique
LARGE_CHANGE_CAVEAT_LINES = 1500  # ~p98: a reader should budget for it
UNTESTED_SOURCE_LINES = 20  # below this a missing test is not worth a caveat
# Reading speed for the minutes estimate: skimming ~40 changed lines a minute, careful reading ~25
# (so the sample's p90 PR, 534 lines, reads in ~20 minutes).
SKIM_LINES_PER_MINUTE, SKIM_MINUTES = 40, (2, 10)
READ_LINES_PER_MINUTE, READ_MINUTES = 25, (10, 45)
SKIP_MINUTES = 1
UNKNOWN_SIZE_SKIM_MINUTES = 5  # files unread: a typical skim

READ_TAGS = frozenset({"perf", "kernel", "core", "feature", "rfc"})
TRIVIAL_TAGS = frozenset({"ci", "doc", "docs", "misc"})
_LEADING_TAGS = re.compile(r"^(?:\s*\[[^\]]*\])+\s*[-:|]?\s*")
_TAG = re.compile(r"\[([^\]]*)\]")
# Capitalise "fix the…" but not an identifier that opens a title ("llmd+vllm…", "kimi_k3: …").
_PLAIN_FIRST_WORD = re.compile(r"[a-z][a-z'-]*[:,]?(?:\s|$)")
_TRIVIAL_WORDS = re.compile(r"\b(?:bump|typo)s?\b", re.IGNORECASE)
# A title that starts with "revert" in any case, or says "Revert" anywhere ("Fix revert path" does not).
_REVERT = re.compile(r"^(?:\s*\[[^\]]*\])*\s*(?i:revert)\b|\bReverts?\b")
_PR_REFERENCE = re.compile(r"#\d+")
_FOLLOW_UP = re.compile(
    r"\b(?:TODO|WIP|part\s*\d+|step\s*\d+|phase\s*\d+)\b|[(\[](?P<n>\d+)\s*/\s*(?P<of>\d+|N)[)\]]", re.IGNORECASE
)
_PERMISSIONS_LINE = re.compile(r"permissions|:\s*write\b")
# Manifests that hold versions and nothing else; pyproject.toml and package.json also carry tool
# configuration, so a change there is not by itself a dependency change.
_DEPENDENCY_NAMES = frozenset({"go.mod", "Pipfile", "Gemfile", "environment.yml"})


class _Texts:
    """The heuristic card's sentences in one language (bot/words `heuristic.*`)."""

    def __init__(self, language: Language) -> None:
        self.language = language

    def __call__(self, name: str, **values: str | int) -> str:
        return text(self.language, f"heuristic.{name}", **values)


def heuristic_card(snapshot: PRSnapshot, coverage: Coverage, language: Language) -> Card:
    """A card from metadata alone: real signal (what changed, where, what is missing), no model."""
    texts = _Texts(language)
    title = clean_line(snapshot.listing.title, len(snapshot.listing.title))
    if not snapshot.complete:
        verdict: Verdict = "skip" if _is_trivial_title(title) else "skim"
        minutes = SKIP_MINUTES if verdict == "skip" else UNKNOWN_SIZE_SKIM_MINUTES
        why: list[str] = []
        caveats = [texts("title_only")]
    else:
        stats = _Stats.of(snapshot.files)
        verdict, minutes = _verdict(title, stats)
        why = _why(stats, verdict, texts)
        caveats = _caveats(snapshot, title, stats, coverage, texts)
    return Card(
        headline=headline(title) or text(language, "card.untitled"),
        verdict=verdict,
        minutes=minutes,
        why=tuple(why[:MAX_WHY]),
        caveats=tuple(caveats[:MAX_CAVEATS]),
        watch=tuple(_watch(title, texts)[:MAX_WATCH]),
        source="heuristic",
        coverage=coverage,
        language=language,
    )


# -- headline ------------------------------------------------------------------------------------


def headline(title: str) -> str:
    """The title without its leading [Tags], first letter capitalised, cut to the card's length."""
    text = clean_line(title, len(title))
    rest = _LEADING_TAGS.sub("", text, count=1).strip()
    if not rest:  # "[CI]" alone: the tag is all the title says
        rest = ", ".join(tag for tag in (t.strip() for t in _TAG.findall(text)) if tag)
    if _PLAIN_FIRST_WORD.match(rest):
        rest = rest[0].upper() + rest[1:]
    return _cut(rest, MAX_HEADLINE_CJK_CHARS if _mostly_cjk(rest) else MAX_HEADLINE_CHARS)


def _mostly_cjk(text: str) -> bool:
    visible = len(text) - text.count(" ")
    return visible > 0 and 2 * count_cjk(text) >= visible


def _cut(text: str, limit: int) -> str:
    """At most `limit` characters, cut between words with "…", never through a figure like 16.98."""
    if len(text) <= limit:
        return text
    end = limit - 1
    cut = end
    while cut > 0 and _joined(text[cut - 1], text[cut]):
        cut -= 1
    if cut < end // 2:  # one giant token: a hard cut beats an empty headline
        cut = end
    return text[:cut].rstrip(" ,;:-–—/(") + "…"


def _joined(left: str, right: str) -> bool:
    """True when a cut between the two characters would split a word or a number."""
    return not (left.isspace() or right.isspace() or _is_cjk(left) or _is_cjk(right))


def _is_cjk(char: str) -> bool:
    return count_cjk(char) == 1


# -- verdict -------------------------------------------------------------------------------------


def _tags(title: str) -> set[str]:
    """Lower-case words of the leading [Tags]: "[CI/Build][Perf]" gives {"ci", "build", "perf"}."""
    match = _LEADING_TAGS.match(title)
    if not match:
        return set()
    words = re.split(r"[/,|&]", " ".join(_TAG.findall(match.group())).replace(" ", "/"))
    return {word.strip().lower() for word in words if word.strip()}


def _is_trivial_title(title: str) -> bool:
    return bool(_tags(title) & TRIVIAL_TAGS) or bool(_TRIVIAL_WORDS.search(title))


def _is_revert(title: str) -> bool:
    return bool(_REVERT.search(title))


@dataclass(frozen=True)
class _Stats:
    """What the verdict and the points need from the file list, computed once."""

    files: tuple[FileChange, ...]
    kinds: tuple[str, ...]
    lines: int
    source_lines: int
    test_lines: int

    @classmethod
    def of(cls, files: tuple[FileChange, ...]) -> _Stats:
        kinds = tuple(file_kind(change.path) for change in files)
        by_kind: dict[str, int] = defaultdict(int)
        for change, kind in zip(files, kinds, strict=True):
            by_kind[kind] += change.changes
        return cls(files, kinds, sum(by_kind.values()), by_kind["source"], by_kind["test"])

    def of_kind(self, kind: str) -> list[FileChange]:
        return [change for change, k in zip(self.files, self.kinds, strict=True) if k == kind]

    def only(self, kind: str) -> bool:
        return bool(self.files) and all(k == kind for k in self.kinds)

    def only_dependencies(self) -> bool:
        return bool(self.files) and all(_is_dependency_file(change.path) for change in self.files)

    def source_areas(self) -> dict[str, list[FileChange]]:
        areas: dict[str, list[FileChange]] = defaultdict(list)
        for change in self.of_kind("source"):
            areas[_area(change.path)].append(change)
        return areas


def _is_dependency_file(path: str) -> bool:
    *dirs, name = path.split("/")
    requirements = name.startswith(("requirements", "constraints")) and name.endswith((".txt", ".in"))
    return requirements or "requirements" in dirs or name in LOCK_FILES or name in _DEPENDENCY_NAMES


def _area(path: str) -> str:
    """The first two directory levels of a path: vllm/v1/core/sched/x.py is in vllm/v1."""
    dirs = path.split("/")[:-1]
    return "/".join(dirs[:2]) if dirs else "."


def _verdict(title: str, stats: _Stats) -> tuple[Verdict, int]:
    trivial = stats.only("ci") or stats.only("docs") or stats.only_dependencies() or stats.lines <= TINY_CHANGE_LINES
    if trivial or _is_revert(title) or not stats.files:
        return "skip", SKIP_MINUTES
    reading = stats.source_lines + stats.test_lines
    cross_cutting = len(stats.source_areas()) >= CROSS_CUTTING_AREAS and stats.source_lines >= CROSS_CUTTING_MIN_LINES
    tagged = bool(_tags(title) & READ_TAGS) and stats.source_lines >= TAGGED_READ_MIN_LINES
    if stats.source_lines >= LARGE_SOURCE_LINES or cross_cutting or tagged:
        return "read", _minutes(reading, READ_LINES_PER_MINUTE, READ_MINUTES)
    if reading >= SKIM_MIN_LINES:
        return "skim", _minutes(reading, SKIM_LINES_PER_MINUTE, SKIM_MINUTES)
    return "skip", SKIP_MINUTES


def _minutes(lines: int, per_minute: int, bounds: tuple[int, int]) -> int:
    low, high = bounds
    return max(low, min(high, math.ceil(lines / per_minute)))


# -- points --------------------------------------------------------------------------------------


def _why(stats: _Stats, verdict: Verdict, texts: _Texts) -> list[str]:
    for kind, key in (("ci", "only_ci"), ("docs", "only_docs")):
        if stats.only(kind):
            return [texts(key, paths=_paths(_largest(stats.files), texts))]
    if stats.only_dependencies():  # the dependency caveat names the files
        return []
    points = _area_points(stats, texts)
    if verdict == "skip":  # trivia: where it is, at most
        return points[:1]
    areas = stats.source_areas()
    if len(areas) >= CROSS_CUTTING_AREAS:  # the spread says more than the runner-up
        ranked = sorted(areas, key=lambda area: -sum(change.changes for change in areas[area]))
        points[1:] = [texts("areas", count=len(areas), paths=_paths(ranked, texts))]
    points += _test_points(stats, texts)
    added = [change for change in stats.of_kind("source") if change.status == "added"]
    if added:
        points.append(texts("new_files", paths=_paths(_largest(added), texts)))
    return points


def _area_points(stats: _Stats, texts: _Texts) -> list[str]:
    """The biggest area by changed lines, and the runner-up when the biggest holds under half."""
    reading = stats.of_kind("source") or [c for c, k in zip(stats.files, stats.kinds, strict=True) if k != "ci"]
    groups: dict[str, list[FileChange]] = defaultdict(list)
    for change in reading:
        groups[_area(change.path)].append(change)
    total = sum(change.changes for change in reading)
    ranked = sorted(groups.values(), key=lambda group: -sum(change.changes for change in group))
    points: list[str] = []
    for key, group in zip(("largest", "also"), ranked, strict=False):
        adds, dels = sum(c.additions for c in group), sum(c.deletions for c in group)
        if adds + dels == 0:
            break
        # Line counts only for a single file: GitHub states those; a folder's sum is ours, and a
        # card states no figure the PR does not (DESIGN.md §1).
        size = texts("size", adds=adds, dels=dels) if len(group) == 1 else ""
        if not points and 2 * (adds + dels) >= total:
            return [texts("most_in", area=_common_place(group), size=size)]
        points.append(texts(key, area=_common_place(group), size=size))
    return points


def _common_place(group: Sequence[FileChange]) -> str:
    """The one file, or the deepest directory holding every file of the group."""
    if len(group) == 1:
        return clean_line(group[0].path)
    common = posixpath.commonpath([posixpath.dirname(change.path) for change in group])
    return clean_line(common) or "."


def _test_points(stats: _Stats, texts: _Texts) -> list[str]:
    tests = stats.of_kind("test")
    added = [change for change in tests if change.status == "added"]
    if added:
        return [texts("adds_tests", paths=_paths(_largest(added), texts))]
    if tests:
        return [texts("updates_tests", paths=_paths(_largest(tests), texts))]
    return []


def _caveats(snapshot: PRSnapshot, title: str, stats: _Stats, coverage: Coverage, texts: _Texts) -> list[str]:
    caveats: list[str] = []
    workflows = [change.path for change in snapshot.files if _widens_permissions(change)]
    if workflows:
        caveats.append(texts("permissions", paths=_paths(workflows, texts)))
    # A [Doc] PR that edits docstrings in code does not need a test.
    documents = bool(_tags(title) & {"doc", "docs"})
    if stats.source_lines > UNTESTED_SOURCE_LINES and not stats.of_kind("test") and not documents:
        caveats.append(texts("no_tests"))
    dependencies = [change.path for change in snapshot.files if _is_dependency_file(change.path)]
    if dependencies:
        caveats.append(texts("deps", paths=_paths(dependencies, texts)))
    if stats.lines > LARGE_CHANGE_CAVEAT_LINES:
        caveats.append(texts("large", files=snapshot.files_total, adds=snapshot.additions, dels=snapshot.deletions))
    binaries = sum(1 for change in snapshot.files if skip_reason(change) == "binary file")
    if binaries:
        caveats.append(texts("binary", count=binaries))
    if coverage.partial or any(skipped.reason == NO_ROOM for skipped in coverage.skipped):
        caveats.append(texts("partial"))
    return caveats


def _widens_permissions(change: FileChange) -> bool:
    """A workflow whose diff adds a `permissions` block or a `: write` scope."""
    if not change.path.startswith(".github/workflows/") or not change.patch:
        return False
    added = (line for line in change.patch.splitlines() if line.startswith("+") and not line.startswith("+++"))
    return any(_PERMISSIONS_LINE.search(line) for line in added)


def _watch(title: str, texts: _Texts) -> list[str]:
    points: list[str] = []
    if _is_revert(title):
        reference = _PR_REFERENCE.search(title)
        points.append(texts("revert", ref=reference.group()) if reference else texts("revert_plain"))
    follow_up = _FOLLOW_UP.search(title)
    # "(2/2)" is the last part: nothing more to wait for.
    if follow_up and not (follow_up.group("n") and follow_up.group("n") == follow_up.group("of")):
        points.append(texts("follow_up", word=follow_up.group()))
    return points


# -- helpers -------------------------------------------------------------------------------------


def _largest(files: Iterable[FileChange]) -> list[str]:
    return [change.path for change in sorted(files, key=lambda change: -change.changes)]


def _paths(paths: Sequence[str], texts: _Texts) -> str:
    """The first paths by name (cleaned: paths are untrusted text), then a count of the rest."""
    named = texts("sep").join(clean_line(path) for path in paths[:MAX_PATHS_NAMED])
    if len(paths) <= MAX_PATHS_NAMED:
        return named
    return texts("more", paths=named, count=len(paths) - MAX_PATHS_NAMED)
