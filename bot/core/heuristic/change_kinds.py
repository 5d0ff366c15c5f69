"""The kind of change a PR's file list and title show: a revert, a bump, a kernel, a setting, one
model's code, what users call… Pure, and without words: cards/heuristic/file_points.py words the kind as a
card's first "why" point, and core/heuristic/signals.py lets the kinds worth a look (core/heuristic/reasons.py) hold
the verdict at a skim at least.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.core.heuristic.shape import Stats, is_bump, is_dependency_file, is_revert
from bot.core.strings.patterns import lazy
from bot.models import FileChange

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


@dataclass(frozen=True)
class ChangeKind:
    """A kind of change, by the name of its point (`heuristic.NAME` in bot/words), and its files,
    largest first; `code` is a bump's code files besides the versions."""

    name: str
    paths: tuple[str, ...]
    code: tuple[str, ...] = ()


def change_kind(stats: Stats, title: str) -> ChangeKind | None:
    """The kind of change the file list and the title show, with where it is; None when no rule
    says (a change across the engine says its kind through the area points)."""
    source = stats.of_kind("source")
    if is_revert(title):
        return ChangeKind("kind_revert", largest(stats.files))
    versions = [change for change in stats.files if is_dependency_file(change.path) or is_build(change.path)]
    if versions and (is_bump(title) or _BUMP_WORD.search(title) or stats.only_dependencies()):
        code = [change for change in source if not is_build(change.path)]
        if not code:
            return ChangeKind("kind_bump", largest(versions))
        return ChangeKind("kind_bump_and_code", largest(versions), largest(code))
    kernels = [change for change in source if _is_kernel(change.path)]
    new_kernels = [change for change in kernels if change.status == "added"]
    if new_kernels:
        return ChangeKind("new_kernel", largest(new_kernels)[:1])
    if kernels and 2 * sum(change.changes for change in kernels) >= stats.source_lines:
        return ChangeKind("kind_kernel", largest(kernels))
    if source and len(stats.files) == 1 and source[0].additions <= 1 and source[0].deletions <= 1:
        return ChangeKind("kind_one_line", (source[0].path,))
    settings = [change for change in source if _is_config(change.path)]
    if settings and 2 * sum(change.changes for change in settings) >= stats.source_lines:
        name = "kind_default" if any(sets_a_default(change) for change in settings) else "kind_config"
        return ChangeKind(name, largest(settings))
    removed = sum(change.deletions for change in source)
    if removed >= MIN_REMOVED_LINES and removed >= REMOVAL_RATIO * sum(change.additions for change in source):
        return ChangeKind("kind_removal", largest(source))
    if source and all(change.path.startswith(_MODEL_DIRS) for change in source):
        return ChangeKind("kind_model", largest(source))
    if not source and stats.files and all(kind == "config" for kind in stats.kinds):
        return ChangeKind("kind_data", largest(stats.files))
    api = [change for change in source if any(part in f"/{change.path}" for part in _API_PARTS)]
    if api:
        return ChangeKind("kind_api", largest(api))
    if sum(change.additions for change in source) >= MIN_ADDED_LINES and not any(c.deletions for c in source):
        return ChangeKind("kind_additions", largest(source))
    return None


def largest(files: list[FileChange] | tuple[FileChange, ...]) -> tuple[str, ...]:
    return tuple(change.path for change in sorted(files, key=lambda change: -change.changes))


def is_build(path: str) -> bool:
    *dirs, name = path.split("/")
    return name.startswith("Dockerfile") or name in _BUILD_NAMES or bool(_BUILD_DIRS.intersection(dirs[:1]))


def _is_kernel(path: str) -> bool:
    *dirs, name = path.split("/")
    return name.endswith(_KERNEL_SUFFIXES) or bool(_KERNEL_DIRS.intersection(dirs))


def _is_config(path: str) -> bool:
    *dirs, name = path.split("/")
    return name in _CONFIG_FILES or bool(_CONFIG_DIRS.intersection(dirs[:2]))


def sets_a_default(change: FileChange) -> bool:
    """A settings file (vLLM's config package, its env variables) with an added line that sets a
    default (`default=`, `= True`, `"default": 4`), as the patch shows."""
    if not _is_config(change.path) or not change.patch:
        return False
    added = (line[1:] for line in change.patch.splitlines() if line.startswith("+") and not line.startswith("+++"))
    return any(_DEFAULT_LINE.search(line) for line in added)
