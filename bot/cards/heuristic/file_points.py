"""A heuristic card's points read off the file list and the title: the kind of change
(core/heuristic/change_kinds.py's, in words), areas, tests, caveats, watch. Each "why" point keeps the name
of its sentence, for core/heuristic/reasons.py to tell which way it argues.

Pure. Every figure or identifier in a point is a path, a count GitHub states, or a word of the
title, never a sum of ours: a card states no figure the PR does not (DESIGN.md §1).
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Sequence

from bot.core.heuristic.change_kinds import ChangeKind, change_kind, is_build, largest
from bot.core.heuristic.files import skip_reason
from bot.core.heuristic.patch_reads import widens_permissions
from bot.core.heuristic.reasons import Point, against
from bot.core.heuristic.shape import Stats, area, is_dependency_file, is_revert, tags
from bot.core.heuristic.signals import CROSS_CUTTING_AREAS
from bot.core.prompting.context import NO_ROOM
from bot.core.strings.patterns import lazy
from bot.core.strings.text import clean_line
from bot.models import Coverage, FileChange, Language, PRSnapshot, Verdict
from bot.words import text

# Paths named in one point before "and N more": a point is a line, not a listing.
MAX_PATHS_NAMED = 2
LARGE_CHANGE_CAVEAT_LINES = 1500  # ~p98 of the vLLM sample: a reader should budget for it
UNTESTED_SOURCE_LINES = 20  # below this a missing test is not worth a caveat

_PR_REFERENCE = lazy(r"#\d+")
_FOLLOW_UP = lazy(
    r"\b(?:TODO|WIP|part\s*\d+|step\s*\d+|phase\s*\d+)\b|[(\[](?P<n>\d+)\s*/\s*(?P<of>\d+|N)[)\]]", re.IGNORECASE
)


class Texts:
    """The heuristic card's sentences in one language (bot/words `heuristic.*`)."""

    def __init__(self, language: Language) -> None:
        self.language = language

    def __call__(self, name: str, **values: str | int) -> str:
        return text(self.language, f"heuristic.{name}", **values)

    def point(self, name: str, **values: str | int) -> Point:
        """A reason with its sentence's name, so core/heuristic/reasons.py can tell which way it argues."""
        return Point(name, self(name, **values))


# -- why --------------------------------------------------------------------------------------------


def file_points(stats: Stats, verdict: Verdict, texts: Texts, title: str = "") -> list[Point]:
    """What kind of change it is (a revert, tests only, a bump, a kernel, a setting, one model's
    code, only wording), then where: the file list's points, without the description's."""
    for only, key in (("ci", "only_ci"), ("docs", "only_docs")):
        if stats.only(only):
            return [texts.point(key, paths=_paths(largest(stats.files), texts))]
    if stats.only_wording():  # comments, docstrings or strings, and perhaps docs: no code
        key = "only_wording" if stats.only("wording") else "docs_and_wording"
        return [texts.point(key, paths=_paths(largest(stats.files), texts))]
    if stats.only("test"):
        return [texts.point("only_tests", paths=_some(largest(stats.files), texts))]
    if stats.files and all(kind in ("test", "ci") for kind in stats.kinds):
        return [texts.point("only_tests_ci", paths=_some(largest(stats.files), texts))]
    if stats.files and all(is_build(change.path) for change in stats.files):
        return [texts.point("only_build", paths=_some(largest(stats.files), texts))]
    found = change_kind(stats, title)
    kind = _kind_point(found, texts) if found else None
    if stats.only_dependencies():  # the dependency caveat names the files
        return [kind] if kind else []
    if kind and against(verdict, kind.name):  # a cap held a kernel change at a skip: say where, not why to read
        kind = None
    points = _area_points(stats, texts, named=kind.text if kind else "")
    if verdict == "skip":  # trivia: what kind, or where it is, and whether a test came with it
        return ([kind] if kind else points[:1]) + _test_points(stats, texts)
    areas = stats.source_areas()
    if len(areas) >= CROSS_CUTTING_AREAS:  # the spread says more than the runner-up
        ranked = sorted(areas, key=lambda name: -sum(change.changes for change in areas[name]))
        points[1:] = [texts.point("areas", count=len(areas), paths=_paths(ranked, texts))]
    if kind:
        points.insert(0, kind)
    points += _test_points(stats, texts)
    # A new kernel the kind point names is not named again.
    named = kind.text if kind else ""
    added = [c for c in stats.of_kind("source") if c.status == "added" and clean_line(c.path) not in named]
    if added:
        points.append(texts.point("new_files", paths=_paths(largest(added), texts)))
    return points


def _kind_point(kind: ChangeKind, texts: Texts) -> Point:
    """The kind of change in words, with where it is."""
    if kind.name in ("new_kernel", "kind_one_line"):
        return texts.point(kind.name, path=clean_line(kind.paths[0]))
    if kind.name == "kind_bump_and_code":
        return texts.point(kind.name, paths=_some(kind.paths, texts), code=_some(kind.code, texts))
    return texts.point(kind.name, paths=_some(kind.paths, texts))


def _area_points(stats: Stats, texts: Texts, named: str = "") -> list[Point]:
    """The biggest area by changed lines, and the runner-up when the biggest holds under half;
    none that the kind point (`named`) already names."""
    reading = stats.of_kind("source") or [c for c, k in zip(stats.files, stats.kinds, strict=True) if k != "ci"]
    groups: dict[str, list[FileChange]] = defaultdict(list)
    for change in reading:
        groups[area(change.path)].append(change)
    total = sum(change.changes for change in reading)
    ranked = sorted(groups.values(), key=lambda group: -sum(change.changes for change in group))
    points: list[Point] = []
    for key, group in zip(("largest", "also"), ranked, strict=False):
        adds, dels = sum(c.additions for c in group), sum(c.deletions for c in group)
        if adds + dels == 0:
            break
        if _common_place(group) in named:
            return points
        # Line counts only for a single file: GitHub states those; a folder's sum is ours, and a
        # card states no figure the PR does not (DESIGN.md §1).
        size = texts("size", adds=adds, dels=dels) if len(group) == 1 else ""
        if not points and 2 * (adds + dels) >= total:
            return [texts.point("most_in", area=_common_place(group), size=size)]
        points.append(texts.point(key, area=_common_place(group), size=size))
    return points


def _common_place(group: Sequence[FileChange]) -> str:
    """The one file, or the deepest directory holding every file of the group."""
    if len(group) == 1:
        return clean_line(group[0].path)
    common = posixpath.commonpath([posixpath.dirname(change.path) for change in group])
    return clean_line(common) or "."


def _test_points(stats: Stats, texts: Texts) -> list[Point]:
    tests = stats.of_kind("test")
    added = [change for change in tests if change.status == "added"]
    if added:
        return [texts.point("adds_tests", paths=_paths(largest(added), texts))]
    if tests:
        return [texts.point("updates_tests", paths=_paths(largest(tests), texts))]
    return []


def caveats(snapshot: PRSnapshot, title: str, stats: Stats, coverage: Coverage, texts: Texts) -> list[str]:
    caveats: list[str] = []
    workflows = [change.path for change in snapshot.files if widens_permissions(change)]
    if workflows:
        caveats.append(texts("permissions", paths=_paths(workflows, texts)))
    # A [Doc] PR that edits docstrings in code does not need a test.
    documents = bool(tags(title) & {"doc", "docs"})
    # Lock files count as source by their kind (core/heuristic/files.py); they need no test.
    untested = stats.source_lines > UNTESTED_SOURCE_LINES and not stats.only_dependencies()
    if untested and not stats.of_kind("test") and not documents:
        caveats.append(texts("no_tests"))
    dependencies = [change.path for change in snapshot.files if is_dependency_file(change.path)]
    if dependencies:
        caveats.append(texts("deps", paths=_paths(dependencies, texts)))
    if stats.lines > LARGE_CHANGE_CAVEAT_LINES:
        key = "large_single" if snapshot.files_total == 1 else "large"
        caveats.append(texts(key, files=snapshot.files_total, adds=snapshot.additions, dels=snapshot.deletions))
    binaries = sum(1 for change in snapshot.files if skip_reason(change) == "binary file")
    if binaries:
        caveats.append(texts("binary", count=binaries))
    if coverage.partial or any(skipped.reason == NO_ROOM for skipped in coverage.skipped):
        caveats.append(texts("partial"))
    return caveats


def watch(title: str, texts: Texts) -> list[str]:
    points: list[str] = []
    if is_revert(title):
        reference = _PR_REFERENCE.search(title)
        points.append(texts("revert", ref=reference.group()) if reference else texts("revert_plain"))
    follow_up = _FOLLOW_UP.search(title)
    # "(2/2)" is the last part: nothing more to wait for.
    if follow_up and not (follow_up.group("n") and follow_up.group("n") == follow_up.group("of")):
        points.append(texts("follow_up", word=follow_up.group()))
    return points


# -- helpers -------------------------------------------------------------------------------------


def _some(paths: Sequence[str], texts: Texts) -> str:
    """The first paths by name, and "and others" for the rest: a count of ours ("54 more") would
    be a figure the PR does not state."""
    named = texts("sep").join(clean_line(path) for path in paths[:MAX_PATHS_NAMED])
    return named if len(paths) <= MAX_PATHS_NAMED else texts("others", paths=named)


def _paths(paths: Sequence[str], texts: Texts) -> str:
    """The first paths by name (cleaned: paths are untrusted text), then a count of the rest."""
    named = texts("sep").join(clean_line(path) for path in paths[:MAX_PATHS_NAMED])
    if len(paths) <= MAX_PATHS_NAMED:
        return named
    return texts("more", paths=named, count=len(paths) - MAX_PATHS_NAMED)
