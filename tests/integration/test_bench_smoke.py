"""The benchmark's smoke run: every scenario still runs end to end (its figures are not judged)."""

from __future__ import annotations

import pytest

from bench.__main__ import main


@pytest.mark.slow
def test_every_benchmark_scenario_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--smoke"]) == 0
    out = capsys.readouterr().out
    for scenario in (
        "cold digest",
        "warm digest",
        "GitHub requests per PR",
        "naive digest",
        "token budget",
        "acks under load",
        "parsing a question",
        "messages of 40,000 characters",
        "first visible sign",
        "answer posted",
        "Slack's pace",
        "memory: digest",
        "memory: server",
    ):
        assert scenario in out
