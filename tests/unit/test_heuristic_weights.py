"""Every heuristic signal pulls the verdict its own way (core/heuristic/signals.py): what a reader values
raises it, a mechanical mark lowers it, a cap alone weighs nothing. One row per signal, and a
signal added without a row fails here: a flipped sign changes verdicts with no other test noticing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import get_args

import pytest

from bot.core.heuristic.description import read_description
from bot.core.heuristic.figures import description_figures, text_figures
from bot.core.heuristic.shape import Stats
from bot.core.heuristic.signals import SKIM_SCORE, Evidence, judge, verdict_rules
from bot.core.strings.text import clean_line
from bot.models import PRSnapshot, SignalKind
from tests.unit.builders import make_comment, make_file, make_snapshot

RAISES, NOTHING, LOWERS = 1, 0, -1

# A small source change: one point for size, nothing else, so each row adds only its signal.
SMALL = [("vllm/v1/core/block_pool.py", 6, 2)]
REVIEW = "This branch misses the preempted case, does it not?"
DOCSTRING = (
    '@@ -1,3 +1,3 @@ class BlockPool:\n     """Keeps the free blocks.\n-    Old words.\n+    New words.\n     """'
)
DEFAULT = (
    "@@ -1,2 +1,2 @@\n-    block_size: int = 16\n-    swap: int = 4\n+    block_size: int = 32\n+    swap: int = 8"
)


def section(heading: str, text: str) -> str:
    return f"## {heading}\n{text}"


@dataclass(frozen=True)
class Row:
    kind: SignalKind
    snapshot: PRSnapshot
    sign: int  # of the signal's weight
    kept: bool  # what a "why is it here?" says: True raised the verdict, False lowered it


ROWS = [
    # Size stands for the reading it takes: never negative; it raises the verdict from a skim's worth.
    Row("size", make_snapshot(SMALL, title="Tidy the pool"), RAISES, False),
    Row("size", make_snapshot([("vllm/v1/core/block_pool.py", 50, 10)], title="Tidy the pool"), RAISES, True),
    Row("unread", make_snapshot(SMALL, title="Fix typo in the pool", complete=False), RAISES, False),
    Row("unread", make_snapshot(SMALL, title="Rework the block pool", complete=False), RAISES, True),
    Row("large", make_snapshot([("vllm/v1/core/block_pool.py", 900, 20)], title="Rework the pool"), RAISES, True),
    Row(
        "cross_cutting",
        make_snapshot(
            [(f"{area}/impl.py", 60, 0) for area in ("vllm/v1", "vllm/model_executor", "vllm/entrypoints", "csrc/moe")],
            title="Thread the request id through",
        ),
        RAISES,
        True,
    ),
    Row(
        "tagged", make_snapshot([("vllm/v1/attention/mla.py", 150, 10)], title="[Perf] Fuse the MLA path"), RAISES, True
    ),
    Row(
        "root_cause",
        make_snapshot(
            SMALL,
            title="Fix double free",
            body=section(
                "Root cause", "The pool frees a block twice when a request is aborted during eviction, so it is reused."
            ),
        ),
        RAISES,
        True,
    ),
    Row(
        "benchmark",
        make_snapshot(
            SMALL,
            title="Fuse the path",
            body="| batch | before | after |\n| --- | --- | --- |\n| 1 | 10 ms | 8 ms |\n| 64 | 90 ms | 60 ms |\n",
        ),
        RAISES,
        True,
    ),
    Row(
        "figure", make_snapshot(SMALL, title="Use the fused path", body="Decode gets 8% faster on H100."), RAISES, True
    ),
    Row(
        "design",
        make_snapshot(
            SMALL,
            title="Add a parser",
            body=section(
                "Design", "The parser reads one token ahead and never backtracks, so a stream is parsed in linear time."
            ),
        ),
        RAISES,
        True,
    ),
    Row(
        "design",  # a motivation section counts for less, and still raises
        make_snapshot(
            SMALL,
            title="Add a parser",
            body=section(
                "Motivation",
                "Users asked for a parser that streams its output instead of waiting for the whole answer.",
            ),
        ),
        RAISES,
        True,
    ),
    Row(
        "reviews",
        make_snapshot(SMALL, title="Tidy the pool", comments=[make_comment(f"{REVIEW} {i}") for i in range(12)]),
        RAISES,
        True,
    ),
    Row("fixes", make_snapshot(SMALL, title="Tidy the pool", body="Fixes #48213"), RAISES, True),
    Row(
        "cause",
        make_snapshot(SMALL, title="Tidy the pool", body="The server crashed because the pool was freed twice."),
        RAISES,
        True,
    ),
    Row(
        "explains",
        make_snapshot(SMALL, title="Tidy the pool", body="The pool now calls `free_block` once per request."),
        RAISES,
        True,
    ),
    Row("bot", make_snapshot(SMALL, title="Tidy the pool", author="pre-commit-ci[bot]"), LOWERS, False),
    Row("dependencies", make_snapshot([("requirements/cuda.txt", 1, 1)], title="Pin flashinfer"), LOWERS, False),
    Row("bump", make_snapshot(SMALL, title="Bump flashinfer from 0.6.7 to 0.6.8"), LOWERS, False),
    Row("ci_only", make_snapshot([(".github/workflows/ci.yml", 3, 1)], title="Run the tests twice"), LOWERS, False),
    Row("docs_only", make_snapshot([("docs/usage/pool.md", 30, 2)], title="Explain the pool"), LOWERS, False),
    Row(
        "wording",
        make_snapshot([make_file("vllm/v1/core/block_pool.py", 1, 1, patch=DOCSTRING)], title="Tidy"),
        LOWERS,
        False,
    ),
    # Floors, no weight: a kind of change worth a look is a skim at least, and says it raised it.
    Row("kernel", make_snapshot([("csrc/attention/paged.cu", 2, 1)], title="Tidy the kernel"), NOTHING, True),
    Row("api", make_snapshot([("vllm/entrypoints/openai/cli_args.py", 2, 1)], title="Tidy"), NOTHING, True),
    Row(
        "default", make_snapshot([make_file("vllm/config/cache.py", 2, 2, patch=DEFAULT)], title="Tidy"), NOTHING, True
    ),
    Row("typo", make_snapshot(SMALL, title="Fix typo in the pool"), LOWERS, False),
    Row("revert", make_snapshot(SMALL, title='Revert "Tidy the pool"'), LOWERS, False),
    # A cap, no weight: a change without source code is at most a skim, whatever else it has.
    Row("no_source", make_snapshot([("docs/usage/pool.md", 30, 2)], title="Explain the pool"), NOTHING, False),
]


def evidence(snapshot: PRSnapshot) -> Evidence:
    """What the verdict reads, as core/heuristic/signals.py Evidence.of reads it from a snapshot."""
    title = clean_line(snapshot.listing.title, len(snapshot.listing.title))
    description = read_description(snapshot.listing.body)
    figures = (*text_figures(title), *description_figures(description))
    stats = Stats.of(snapshot.files) if snapshot.complete else None
    return Evidence(snapshot.listing, title, stats, description, figures, snapshot.comments)


def sign(weight: int) -> int:
    return (weight > 0) - (weight < 0)


@pytest.mark.parametrize("row", ROWS, ids=[f"{row.kind}-{i}" for i, row in enumerate(ROWS)])
def test_each_signal_pulls_the_verdict_its_own_way(row: Row) -> None:
    weights = [signal.weight for signal in judge(evidence(row.snapshot)).signals if signal.kind == row.kind]
    assert len(weights) == 1, judge(evidence(row.snapshot)).signals
    assert sign(weights[0]) == row.sign
    if row.kind in ("size", "unread"):
        assert (weights[0] >= SKIM_SCORE) == row.kept
    kept = [rule.kept for rule in verdict_rules(row.snapshot) if rule.kind == row.kind]
    assert kept == [row.kept]


def test_every_signal_has_a_row() -> None:
    assert {row.kind for row in ROWS} == set(get_args(SignalKind))
