"""The PR classes whose card metadata alone settles (`[defaults] skip_model_for`), and their
look-alikes that still go to the model."""

from __future__ import annotations

from typing import Any

import pytest

from bot.core.heuristic.skipping import SKIP_CLASSES, matches, skip_class
from bot.models import SkipClass
from tests.unit.builders import make_snapshot

BOT: dict[str, Any] = {"author": "dependabot[bot]"}
BUMP = "Bump requests from 2.31.0 to 2.32.0"
LOCK = [("uv.lock", 120, 80)]

# (class, files, listing fields, matches)
CASES: list[tuple[SkipClass, list[tuple[str, int, int]], dict[str, Any], bool]] = [
    ("bot-bumps", [("requirements.txt", 1, 1)], {"title": BUMP, **BOT}, True),
    ("bot-bumps", [("package.json", 1, 1)], {"title": "chore(deps): bump lodash from 4.17.20 to 4.17.21", **BOT}, True),
    ("bot-bumps", [], {"title": BUMP, "author": "renovate", "author_is_bot": True}, True),
    ("bot-bumps", [("requirements.txt", 1, 1)], {"title": BUMP, "author": "alice"}, False),  # a person's bump
    ("bot-bumps", [("src/a.py", 4, 1)], {"title": "Fix flaky test", **BOT}, False),  # a bot, no bump
    ("bot-bumps", [("docs/x.md", 1, 1)], {"title": "Bump the docs", **BOT}, False),  # no version
    ("bot-bumps", [("x", 1, 1)], {"title": "[Bot] Bump vllm from 0.9 to 0.10", "author": "robot-alice"}, False),
    ("lockfile-only", LOCK, {}, True),
    ("lockfile-only", [("web/yarn.lock", 9, 9), ("Cargo.lock", 3, 3), ("go.sum", 2, 0)], {}, True),
    ("lockfile-only", [("uv.lock", 10, 10), ("pyproject.toml", 1, 1)], {}, False),  # the manifest too
    ("lockfile-only", [("requirements/cuda.txt", 1, 1)], {}, False),  # pins people write
    ("lockfile-only", [("docs/uv.lock.md", 1, 1)], {}, False),  # a name that only contains one
    ("lockfile-only", [("my-uv.lock", 1, 1)], {}, False),
    ("ci-one-line", [(".github/workflows/test.yml", 1, 1)], {}, True),
    ("ci-one-line", [(".buildkite/pipeline.yaml", 1, 0)], {}, True),
    ("ci-one-line", [(".buildkite/a.yaml", 1, 0), (".github/workflows/b.yml", 0, 1)], {}, True),  # 1 + 1 in all
    ("ci-one-line", [(".github/workflows/test.yml", 2, 1)], {}, False),  # two lines added
    ("ci-one-line", [(".buildkite/a.yaml", 1, 0), (".buildkite/b.yaml", 1, 0)], {}, False),  # two in all
    ("ci-one-line", [(".github/workflows/test.yml", 1, 1), ("src/a.py", 0, 0)], {}, False),  # not CI only
    ("ci-one-line", [(".github/CODEOWNERS", 1, 1)], {}, False),  # .github, not its workflows
    ("ci-one-line", [("ci/run.sh", 1, 1)], {}, False),  # other CI directories are not listed
]


@pytest.mark.parametrize(("kind", "files", "fields", "expected"), CASES)
def test_each_class_takes_its_prs_and_not_their_look_alikes(
    kind: SkipClass, files: list[tuple[str, int, int]], fields: dict[str, Any], expected: bool
) -> None:
    assert matches(make_snapshot(files, **fields), kind) is expected


@pytest.mark.parametrize("kind", ["lockfile-only", "ci-one-line"])
def test_a_pr_whose_files_are_unknown_or_not_all_listed_is_not_judged_by_its_files(kind: SkipClass) -> None:
    files = LOCK if kind == "lockfile-only" else [(".github/workflows/t.yml", 1, 1)]
    assert matches(make_snapshot(files), kind)
    assert not matches(make_snapshot(files, complete=False), kind)
    assert not matches(make_snapshot(files, files_reported=3001), kind)
    assert not matches(make_snapshot([]), kind)


def test_only_the_classes_the_operator_listed_apply() -> None:
    snapshot = make_snapshot(LOCK, title=BUMP, author="dependabot[bot]")
    assert skip_class(snapshot, ()) is None
    assert skip_class(snapshot, ("ci-one-line",)) is None
    assert skip_class(snapshot, ("lockfile-only", "bot-bumps")) == "lockfile-only"
    assert skip_class(snapshot, SKIP_CLASSES) == "bot-bumps"
