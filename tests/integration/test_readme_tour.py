"""The README's "A 30-second tour" is what its commands print: each console block is run again
against the bundled fakes (scripts/readme_tour.py) and must come out as the README has it. Its
counts and titles had drifted from every run (52 merged, 26 to skim; a release of 461 PRs the
fakes did not serve)."""

from __future__ import annotations

import subprocess

import pytest

from scripts import readme_tour
from tests.shared_data import shared_rows

pytestmark = [pytest.mark.filterwarnings("error"), pytest.mark.slow]


def test_the_tour_is_what_its_commands_print() -> None:
    shared_rows()  # skips (fails on CI) without the data set the fakes serve
    if subprocess.run(["make", "-q", "setup"], cwd=readme_tour.REPO_ROOT, capture_output=True, check=False).returncode:
        pytest.skip("`make setup` would install packages: the tour runs the checkout's .venv/bin/prdigest")
    readme = readme_tour.README.read_text(encoding="utf-8")
    blocks = readme_tour.run_tour()
    assert readme_tour.rewritten(readme, blocks) == readme, "run scripts/readme_tour.py and commit the README"


def test_every_step_of_the_tour_is_a_command_the_readme_shows() -> None:
    readme = readme_tour.README.read_text(encoding="utf-8")
    tour = readme.split(readme_tour.TOUR_HEADING, 1)[1].split("\n## ", 1)[0]
    for block in readme_tour.TOUR:
        for step in block:
            shown = " ".join(readme_tour.shown(arg) for arg in step.args)
            assert f"$ {readme_tour.PROGRAM} {shown}\n" in tour
