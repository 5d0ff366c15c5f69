"""scripts/dev_fakes.py, the fakes a newcomer starts by hand: where it looks for the data set,
what it says when the data set is not there, and the banner that says which days it serves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from devkit.fakes import dataset

from scripts import dev_fakes
from tests.shared_data import shared_rows

pytestmark = pytest.mark.filterwarnings("error")

REPO_ROOT = Path(__file__).resolve().parents[2]


def row(merged_at: str, number: int) -> dict[str, object]:
    return {"number": number, "merged_at": merged_at}


def test_the_banner_counts_the_days_served_and_the_chosen_days_prs() -> None:
    rows = [row("2026-08-04T10:00:00Z", 1), row("2026-08-05T01:00:00Z", 2), row("2026-08-05T23:00:00Z", 3)]
    assert dev_fakes.banner(rows, "o/r", "2026-08-05", ends_now=False) == (
        "# fake GitHub: 3 merged PRs of o/r over 2 days (2026-08-04 to 2026-08-05), 2 of them merged on 2026-08-05"
    )
    assert dev_fakes.banner(rows, "o/r", None, ends_now=False) == (
        "# fake GitHub: 3 merged PRs of o/r over 2 days (2026-08-04 to 2026-08-05)"
    )


def test_with_ends_now_the_banner_counts_the_day_before_it_is_moved() -> None:
    """It said "0 of them merged on 2026-08-05": it counted the rows after moving them to today."""
    rows = [row for row in shared_rows() if row["merged_at"][:10] <= "2026-08-05"]
    line = dev_fakes.banner(rows, "vllm-project/vllm", "2026-08-05", ends_now=True)
    assert line == (
        "# fake GitHub: 92 merged PRs of vllm-project/vllm over 2 days (2026-08-04 to 2026-08-05), "
        "52 of them merged on 2026-08-05, moved into the 24 hours that end now"
    )


def clean_env(**extra: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items() if name != dataset.DATA_ENV}
    return env | extra


def run_fakes(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "dev_fakes.py"), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_without_the_data_set_the_fakes_say_in_one_line_where_it_is_expected(tmp_path: Path) -> None:
    done = run_fakes("--date", "2026-08-05", env=clean_env(PRDIGEST_DATA=str(tmp_path)))
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr == (
        f"dev_fakes: the vLLM data set is not at {tmp_path / 'vllm-prs.jsonl'}: put the shared folder beside "
        "the repository (../shared/data) or set PRDIGEST_DATA to the folder that holds vllm-prs.jsonl\n"
    )


def test_the_data_set_is_looked_for_beside_the_repository_unless_a_folder_is_named(tmp_path: Path) -> None:
    probe = "from devkit.fakes import dataset; print(dataset.DATASET_PATH)"
    beside = subprocess.run(
        [sys.executable, "-c", probe], env=clean_env(), capture_output=True, text=True, check=True
    ).stdout.strip()
    assert Path(beside) == REPO_ROOT.parent / "shared" / "data" / "vllm-prs.jsonl"
    named = subprocess.run(
        [sys.executable, "-c", probe],
        env=clean_env(PRDIGEST_DATA=str(tmp_path)),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(named) == tmp_path / "vllm-prs.jsonl"


def test_a_bad_day_or_ends_now_without_a_day_is_one_usage_line(tmp_path: Path) -> None:
    for args, said in (
        (("--date", "Aug 5"), "argument --date: not a day as YYYY-MM-DD: 'Aug 5'"),
        (("--ends-now",), "--ends-now moves the day given by --date: add --date YYYY-MM-DD"),
    ):
        done = run_fakes(*args, env=clean_env(PRDIGEST_DATA=str(tmp_path)))
        assert done.returncode == 2
        assert done.stderr.splitlines()[-1] == f"dev_fakes.py: error: {said}"
        assert "Traceback" not in done.stderr
