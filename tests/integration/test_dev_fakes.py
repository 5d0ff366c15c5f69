"""scripts/dev_fakes.py, the fakes a newcomer starts by hand: where it looks for the data set,
what it says when the data set is not there, and the banner that says which days it serves."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from devkit.fakes import dataset
from devkit.fakes.dataset_releases import add_releases
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.cli.main import main
from bot.core.checks.prose import is_data
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


def test_the_fake_model_answers_a_question_in_words_citing_the_prs_files(
    github: FakeGitHub, model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """It answered every request with a card's JSON, a question too; `ask` printed the JSON."""
    (row,) = [row for row in shared_rows() if row["number"] == 51079]
    dataset.populate(github, [row])
    model.responder = dev_fakes.respond
    for name, value in (("GITHUB_API_URL", github.url), ("OPENAI_BASE_URL", f"{model.url}/v1")):
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    assert main(["ask", "vllm-project/vllm#51079", "what changed in the workflow?", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"] == "llm" and not is_data(data["answer"])
    assert data["cited_files"][0]["path"] == ".github/workflows/notify-ci-authorized.yml"
    assert data["card"]["headline"].endswith("summarised by the fake model")  # the card is still a card


def test_the_fake_model_fills_the_schema_it_is_given_and_nothing_else() -> None:
    reading = {
        "type": "json_schema",
        "json_schema": {
            "name": "reading",
            "schema": {
                "properties": {"first_day": {"default": None}, "topic": {"type": "array"}, "wants": {"default": "list"}}
            },
        },
    }
    assert dev_fakes.respond({"messages": [], "response_format": reading}) == {
        "first_day": None,
        "topic": [],
        "wants": "list",
    }
    digest = "vllm-project/vllm#7 [skim] Fix the sampler\n  headline: Fix the sampler\n  files: vllm/sampler.py"
    question = {"messages": [{"role": "user", "content": digest}, {"role": "user", "content": "anything?"}]}
    assert "#7 (Fix the sampler)" in str(dev_fakes.respond(question))


def test_the_fakes_serve_releases_over_the_data_set_that_release_reads(
    github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's tour shows a release, and the fakes served none."""
    end = datetime(2026, 8, 6, tzinfo=UTC)  # --date 2026-08-05, as the README starts them
    rows = [row for row in shared_rows() if dataset.parse_time(row["merged_at"]) < end]
    dataset.populate(github, rows, reviews=False)
    assert add_releases(github, "vllm-project/vllm", until=end) == ["v0.12.0", "v0.12.1rc1", "v0.12.1"]
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    assert main(["release", "vllm-project/vllm", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["tag"], data["since"]) == ("v0.12.1", "v0.12.0")  # the pre-release between is passed over
    assert sorted(item["number"] for item in data["items"]) == sorted(row["number"] for row in rows)


def test_releases_move_with_the_prs_and_none_is_after_the_last_day_served(github: FakeGitHub) -> None:
    shift = timedelta(days=120)
    assert add_releases(github, "o/r", until=datetime(2026, 8, 4, tzinfo=UTC), shift=shift) == ["v0.12.0"]
    tagged = github.history("o/r").releases
    assert [(release.tag, release.published_at) for release in tagged] == [
        ("v0.12.0", datetime(2026, 8, 3, 23, 59, tzinfo=UTC) + shift)
    ]
