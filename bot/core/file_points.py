"""A heuristic card's points read off the file list and the title: areas, tests, caveats, watch.

Pure. Every figure or identifier in a point is a path, a count GitHub states, or a word of the
title, never a sum of ours: a card states no figure the PR does not (DESIGN.md §1).
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

from bot.core.context import NO_ROOM
from bot.core.files import skip_reason
from bot.core.patterns import lazy
from bot.core.shape import Stats, area, is_bump, is_dependency_file, is_revert, tags
from bot.core.signals import CROSS_CUTTING_AREAS
from bot.core.text import clean_line
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
_PERMISSIONS_LINE = lazy(r"permissions|:\s*write\b")
# Kernel sources: CUDA, HIP and C++ under csrc/, and the Python kernels (Triton, CuTe) kept in
# directories named for them.
_KERNEL_SUFFIXES = (".cu", ".cuh", ".hip")
_KERNEL_DIRS = frozenset({"csrc", "kernels", "ops"})
# Where a PR changes settings rather than behaviour: vLLM's config package and its env variables.
_CONFIG_DIRS = frozenset({"config", "configs"})
_CONFIG_FILES = frozenset({"envs.py", "config.py"})
_DEFAULT_LINE = lazy(r"\bdefault\b|=\s*(?:True|False|None|\d)", re.IGNORECASE)
# Model code: one model's file(s), not the engine every model runs on.
_MODEL_DIRS = ("vllm/model_executor/models/", "vllm/models/")
# A title that says it moves a version, and the files that hold versions besides the dependency
# manifests: build images and their version lists.
_BUMP_WORD = lazy(r"\b(?:bump|upgrade|pin)s?\b", re.IGNORECASE)
_BUILD_DIRS = frozenset({"docker", "cmake"})
_BUILD_NAMES = frozenset({"CMakeLists.txt", "setup.py", "versions.json", "Cargo.toml"})
# What users call: the HTTP server and its routes, the command line's options.
_API_PARTS = ("/entrypoints/", "/routes/", "/server/", "cli_args", "/api/")
MIN_ADDED_LINES = 10  # below this, "adds only" says nothing a title would not
REMOVAL_RATIO = 3  # deletions this many times the additions: the PR mostly takes code out
MIN_REMOVED_LINES = 20


class Texts:
    """The heuristic card's sentences in one language (bot/words `heuristic.*`)."""

    def __init__(self, language: Language) -> None:
        self.language = language

    def __call__(self, name: str, **values: str | int) -> str:
        return text(self.language, f"heuristic.{name}", **values)


# -- why --------------------------------------------------------------------------------------------


def file_points(stats: Stats, verdict: Verdict, texts: Texts, title: str = "") -> list[str]:
    """What kind of change it is (a revert, tests only, a bump, a kernel, a setting, one model's
    code), then where: the file list's points, without the description's."""
    for only, key in (("ci", "only_ci"), ("docs", "only_docs")):
        if stats.only(only):
            return [texts(key, paths=_paths(_largest(stats.files), texts))]
    if stats.only("test"):
        return [texts("only_tests", paths=_some(_largest(stats.files), texts))]
    if stats.files and all(kind in ("test", "ci") for kind in stats.kinds):
        return [texts("only_tests_ci", paths=_some(_largest(stats.files), texts))]
    if stats.files and all(_is_build(change.path) for change in stats.files):
        return [texts("only_build", paths=_some(_largest(stats.files), texts))]
    kind = change_kind(stats, title, texts)
    if stats.only_dependencies():  # the dependency caveat names the files
        return [kind] if kind else []
    points = _area_points(stats, texts, named=kind or "")
    if verdict == "skip":  # trivia: what kind, or where it is, and whether a test came with it
        return ([kind] if kind else points[:1]) + _test_points(stats, texts)
    areas = stats.source_areas()
    if len(areas) >= CROSS_CUTTING_AREAS:  # the spread says more than the runner-up
        ranked = sorted(areas, key=lambda name: -sum(change.changes for change in areas[name]))
        points[1:] = [texts("areas", count=len(areas), paths=_paths(ranked, texts))]
    if kind:
        points.insert(0, kind)
    points += _test_points(stats, texts)
    # A new kernel the kind point names is not named again.
    added = [c for c in stats.of_kind("source") if c.status == "added" and clean_line(c.path) not in (kind or "")]
    if added:
        points.append(texts("new_files", paths=_paths(_largest(added), texts)))
    return points


def change_kind(stats: Stats, title: str, texts: Texts) -> str | None:
    """The kind of change the file list and the title show, with where it is; None when no rule
    says (a change across the engine says its kind through the area points)."""
    source = stats.of_kind("source")
    if is_revert(title):
        return texts("kind_revert", paths=_some(_largest(stats.files), texts))
    versions = [change for change in stats.files if is_dependency_file(change.path) or _is_build(change.path)]
    if versions and (is_bump(title) or _BUMP_WORD.search(title) or stats.only_dependencies()):
        code = [change for change in source if not _is_build(change.path)]
        if not code:
            return texts("kind_bump", paths=_some(_largest(versions), texts))
        return texts("kind_bump_and_code", paths=_some(_largest(versions), texts), code=_some(_largest(code), texts))
    kernels = [change for change in source if _is_kernel(change.path)]
    new_kernels = [change for change in kernels if change.status == "added"]
    if new_kernels:
        return texts("new_kernel", path=clean_line(_largest(new_kernels)[0]))
    if kernels and 2 * sum(change.changes for change in kernels) >= stats.source_lines:
        return texts("kind_kernel", paths=_some(_largest(kernels), texts))
    if source and len(stats.files) == 1 and source[0].additions <= 1 and source[0].deletions <= 1:
        return texts("kind_one_line", path=clean_line(source[0].path))
    settings = [change for change in source if _is_config(change.path)]
    if settings and 2 * sum(change.changes for change in settings) >= stats.source_lines:
        key = "kind_default" if any(_changes_a_default(change) for change in settings) else "kind_config"
        return texts(key, paths=_some(_largest(settings), texts))
    removed = sum(change.deletions for change in source)
    if removed >= MIN_REMOVED_LINES and removed >= REMOVAL_RATIO * sum(change.additions for change in source):
        return texts("kind_removal", paths=_some(_largest(source), texts))
    if source and all(change.path.startswith(_MODEL_DIRS) for change in source):
        return texts("kind_model", paths=_some(_largest(source), texts))
    if not source and stats.files and all(kind == "config" for kind in stats.kinds):
        return texts("kind_data", paths=_some(_largest(stats.files), texts))
    api = [change for change in source if any(part in f"/{change.path}" for part in _API_PARTS)]
    if api:
        return texts("kind_api", paths=_some(_largest(api), texts))
    if sum(change.additions for change in source) >= MIN_ADDED_LINES and not any(c.deletions for c in source):
        return texts("kind_additions", paths=_some(_largest(source), texts))
    return None


def _is_kernel(path: str) -> bool:
    *dirs, name = path.split("/")
    return name.endswith(_KERNEL_SUFFIXES) or bool(_KERNEL_DIRS.intersection(dirs))


def _is_build(path: str) -> bool:
    *dirs, name = path.split("/")
    return name.startswith("Dockerfile") or name in _BUILD_NAMES or bool(_BUILD_DIRS.intersection(dirs[:1]))


def _is_config(path: str) -> bool:
    *dirs, name = path.split("/")
    return name in _CONFIG_FILES or bool(_CONFIG_DIRS.intersection(dirs[:2]))


def _changes_a_default(change: FileChange) -> bool:
    """An added line that sets a default (`default=`, `= True`, `"default": 4`), as the patch shows."""
    if not change.patch:
        return False
    added = (line[1:] for line in change.patch.splitlines() if line.startswith("+") and not line.startswith("+++"))
    return any(_DEFAULT_LINE.search(line) for line in added)


def _area_points(stats: Stats, texts: Texts, named: str = "") -> list[str]:
    """The biggest area by changed lines, and the runner-up when the biggest holds under half;
    none that the kind point (`named`) already names."""
    reading = stats.of_kind("source") or [c for c, k in zip(stats.files, stats.kinds, strict=True) if k != "ci"]
    groups: dict[str, list[FileChange]] = defaultdict(list)
    for change in reading:
        groups[area(change.path)].append(change)
    total = sum(change.changes for change in reading)
    ranked = sorted(groups.values(), key=lambda group: -sum(change.changes for change in group))
    points: list[str] = []
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
            return [texts("most_in", area=_common_place(group), size=size)]
        points.append(texts(key, area=_common_place(group), size=size))
    return points


def _common_place(group: Sequence[FileChange]) -> str:
    """The one file, or the deepest directory holding every file of the group."""
    if len(group) == 1:
        return clean_line(group[0].path)
    common = posixpath.commonpath([posixpath.dirname(change.path) for change in group])
    return clean_line(common) or "."


def _test_points(stats: Stats, texts: Texts) -> list[str]:
    tests = stats.of_kind("test")
    added = [change for change in tests if change.status == "added"]
    if added:
        return [texts("adds_tests", paths=_paths(_largest(added), texts))]
    if tests:
        return [texts("updates_tests", paths=_paths(_largest(tests), texts))]
    return []


def caveats(snapshot: PRSnapshot, title: str, stats: Stats, coverage: Coverage, texts: Texts) -> list[str]:
    caveats: list[str] = []
    workflows = [change.path for change in snapshot.files if _widens_permissions(change)]
    if workflows:
        caveats.append(texts("permissions", paths=_paths(workflows, texts)))
    # A [Doc] PR that edits docstrings in code does not need a test.
    documents = bool(tags(title) & {"doc", "docs"})
    # Lock files count as source by their kind (core/files.py); they need no test.
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


def _widens_permissions(change: FileChange) -> bool:
    """A workflow whose diff adds a `permissions` block or a `: write` scope."""
    if not change.path.startswith(".github/workflows/") or not change.patch:
        return False
    added = (line for line in change.patch.splitlines() if line.startswith("+") and not line.startswith("+++"))
    return any(_PERMISSIONS_LINE.search(line) for line in added)


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


def _largest(files: Iterable[FileChange]) -> list[str]:
    return [change.path for change in sorted(files, key=lambda change: -change.changes)]


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
