"""The benchmark's smoke run: every scenario still runs end to end and gives its row (its figures
are not judged: the latencies are too small for the bounds to mean anything)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = (
    "prdigest --help",
    "cold digest",
    "warm digest",
    "GitHub requests per PR, 24-hour path",
    "memory: digest",
    "warm digest of a past day",
    "speed-up over a naive digest loop",
    "token budget",
    "acks under load",
    "thread question: time to the status",
    "model's first sentence → first streamed words",
    "thread question → answer posted",
    "across-days question",
    "across-days: model's first sentence",
    "parsing a question",
    "messages of 40,000 characters",
    "a path against the worst globs",
    "Slack's pace",
    "memory: server",
    "acks while a digest filters with the worst globs",
    "cards made by 2 worker processes",
    "the poller already carded",
    "webhook → card ready",
    "3 workers vs 1",
    "-PR release, every card cached, posted",
    "GitHub requests per PR, --date path",
)


@pytest.mark.slow
def test_every_benchmark_scenario_gives_a_row_without_an_error() -> None:
    # Run as people run it: `python -m bench` from the checkout (bench is not an installed package).
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    rule = next(index for index, line in enumerate(lines) if line.startswith("-"))  # under the headers
    rows = lines[rule + 1 : -1]  # the last line is the run's duration
    assert len(rows) == len(SCENARIOS), done.stdout
    for scenario, row in zip(SCENARIOS, rows, strict=True):
        assert scenario in row.split(" | ")[0], row
        assert row.rstrip().endswith(("pass", "MISS")), row


@pytest.mark.slow
def test_the_release_row_posts_as_many_prs_as_its_name_says() -> None:
    # Five rows in the world and a release of a dozen: each PR needs a merge commit of its own, or
    # the range holds five, and the row says so as an error (its lead must say "12 merged").
    done = subprocess.run(
        [sys.executable, "-m", "bench", "--smoke", "--only", "release", "--prs", "5"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = [line for line in done.stdout.splitlines() if "-PR release" in line]
    assert row.startswith("a 12-PR release") and "ERROR" not in done.stdout, done.stdout
