"""A PR's shape: its title's tags, whether it is a revert or a bump, and what its file list holds.

Owns the reading of a title's conventions and the per-kind line counts of the file list, shared by
the verdict (core/heuristic/signals.py) and the heuristic card's points (cards/heuristic/file_points.py). Pure.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from bot.core.heuristic.files import LOCK_FILES, file_kind
from bot.core.heuristic.wording import wording_only
from bot.core.strings.patterns import lazy
from bot.models import FileChange

TRIVIAL_TAGS = frozenset({"ci", "doc", "docs", "misc"})
LEADING_TAGS = lazy(r"^(?:\s*\[[^\]]*\])+\s*[-:|]?\s*")
TAG = lazy(r"\[([^\]]*)\]")
_TRIVIAL_WORDS = lazy(r"\b(?:bump|typo)s?\b", re.IGNORECASE)
# A title that starts with "revert" in any case, or says "Revert" anywhere ("Fix revert path" does not).
_REVERT = lazy(r"^(?:\s*\[[^\]]*\])*\s*(?i:revert)\b|\bReverts?\b")
# Dependabot's and Renovate's titles, and people's: "Bump torch from 2.9.0 to 2.10.0",
# "chore(deps): update dependency ruff to v0.15.2", "[CI/Build] Bump flashinfer to v0.6.8". The
# version needs a dot and ends the title, so "Update the scheduler to v2 semantics" and "Upgrade
# MiniJinja to 2.22 & remove a workaround" are not bumps.
_BUMP = lazy(
    r"^(?:\s*\[[^\]]*\])*\s*(?:[a-z]+(?:\([^)]*\))?!?:\s*)?(?:bump|update|upgrade|pin)\s+(?:dependency\s+|the\s+)?"
    r"[\w.@/\[\]-]+\s+(?:(?:requirement\s+)?from\s+\S+\s+)?to\s+v?\d+\.\d[\w.+-]*(?:\s+in\s+\S+)?\s*(?:\(#\d+\))?\s*$",
    re.IGNORECASE,
)
_TYPO = lazy(r"\btypos?\b|\bspelling\b|\bmisspell", re.IGNORECASE)
# The kinds of file whose diff may be only wording (comments, docstrings, strings): such a file
# is of kind "wording", weighed as docs are. Tests and CI files keep their kind: it says as much.
_WORDED_KINDS = frozenset({"source", "config"})
# Manifests that hold versions and nothing else; pyproject.toml and package.json also carry tool
# configuration, so a change there is not by itself a dependency change.
_DEPENDENCY_NAMES = frozenset({"go.mod", "Pipfile", "Gemfile", "environment.yml"})


def tags(title: str) -> set[str]:
    """Lower-case words of the leading [Tags]: "[CI/Build][Perf]" gives {"ci", "build", "perf"}."""
    match = LEADING_TAGS.match(title)
    if not match:
        return set()
    words = re.split(r"[/,|&]", " ".join(TAG.findall(match.group())).replace(" ", "/"))
    return {word.strip().lower() for word in words if word.strip()}


def is_trivial_title(title: str) -> bool:
    return bool(tags(title) & TRIVIAL_TAGS) or bool(_TRIVIAL_WORDS.search(title))


def is_revert(title: str) -> bool:
    return bool(_REVERT.search(title))


def is_bump(title: str) -> bool:
    return bool(_BUMP.search(title))


def is_typo_fix(title: str) -> bool:
    return bool(_TYPO.search(title))


def is_dependency_file(path: str) -> bool:
    *dirs, name = path.split("/")
    requirements = name.startswith(("requirements", "constraints")) and name.endswith((".txt", ".in"))
    return requirements or "requirements" in dirs or name in LOCK_FILES or name in _DEPENDENCY_NAMES


def area(path: str) -> str:
    """The first two directory levels of a path: vllm/v1/core/sched/x.py is in vllm/v1."""
    dirs = path.split("/")[:-1]
    return "/".join(dirs[:2]) if dirs else "."


def kind_of(change: FileChange) -> str:
    """The file's kind (core/heuristic/files.py), or "wording" for a source or config file whose
    diff changes only comments, docstrings or strings."""
    kind = file_kind(change.path)
    return "wording" if kind in _WORDED_KINDS and wording_only(change.path, change.patch) else kind


@dataclass(frozen=True)
class Stats:
    """What the verdict and the points need from the file list, computed once."""

    files: tuple[FileChange, ...]
    kinds: tuple[str, ...]
    lines: int
    source_lines: int
    test_lines: int

    @classmethod
    def of(cls, files: tuple[FileChange, ...]) -> Stats:
        """The file list's kinds and line counts; a source or config file whose diff changes only
        comments, docstrings or strings is of kind "wording", and not source."""
        kinds = tuple(kind_of(change) for change in files)
        by_kind: dict[str, int] = defaultdict(int)
        for change, kind in zip(files, kinds, strict=True):
            by_kind[kind] += change.changes
        return cls(files, kinds, sum(by_kind.values()), by_kind["source"], by_kind["test"])

    @property
    def reading(self) -> int:
        """Lines a reader reads: source and tests."""
        return self.source_lines + self.test_lines

    def of_kind(self, kind: str) -> list[FileChange]:
        return [change for change, k in zip(self.files, self.kinds, strict=True) if k == kind]

    def only(self, kind: str) -> bool:
        return bool(self.files) and all(k == kind for k in self.kinds)

    def only_wording(self) -> bool:
        """Only docs and files whose diff is wording, at least one of those: no code changed."""
        return "wording" in self.kinds and all(k in ("docs", "wording") for k in self.kinds)

    def only_dependencies(self) -> bool:
        return bool(self.files) and all(is_dependency_file(change.path) for change in self.files)

    def source_areas(self) -> dict[str, list[FileChange]]:
        areas: dict[str, list[FileChange]] = defaultdict(list)
        for change in self.of_kind("source"):
            areas[area(change.path)].append(change)
        return areas
