"""`prdigest ask OWNER/REPO "question across days"` in-process, against fake GitHub on loopback:
the span's merged PRs that match, as a Slack thread lists them; a question that names no span is
one line and exit 1."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from devkit.fakes.github import FakeGitHub

from bot.cli.main import main
from tests.integration.conftest import REPO
from tests.integration.test_cli_ask import stderr_lines

# The CLI reads the real clock: PRs merged half an hour ago are inside "the last 2 days" at any hour.
RECENT = datetime.now(UTC) - timedelta(minutes=30)


@pytest.fixture
def env(github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> FakeGitHub:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    github.add_pr(
        REPO,
        2001,
        title="[Bugfix][MoE] Filter packed expert weights during EP loading",
        merged_at=RECENT,
        files=[{"path": "vllm/model_executor/layers/fused_moe/layer.py", "additions": 40, "deletions": 3}],
    )
    github.add_pr(
        REPO,
        2002,
        title="[Docs] Fix two docs build warnings",
        merged_at=RECENT,
        files=[{"path": "docs/index.md", "additions": 2, "deletions": 2}],
    )
    return github


def test_a_repository_and_a_span_list_the_matching_prs(env: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", REPO, "what merged in the last 2 days about MoE?"]) == 0
    out = capsys.readouterr().out
    # The days said with their dates ("(Dec 3–4)"), whichever they are on the real clock.
    days = r"\([A-Z][a-z]{2} \d{1,2}–(?:[A-Z][a-z]{2} )?\d{1,2}\)"
    assert re.match(rf"1 of the 2 PRs merged in {REPO} in the last 2 days {days} matches “moe”", out)
    assert f"https://github.com/{REPO}/pull/2001" in out and "#2002" not in out


def test_the_matches_as_json(env: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", REPO, "what", "merged", "in", "the", "last", "2", "days?", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["repo"], data["merged"], data["span"]["kind"]) == (REPO, 2, "days")
    assert sorted(item["number"] for item in data["items"]) == [2001, 2002]


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("what does it change?", "names no PR: ask about a span of days"),
        ("what merged in the last 90 days?", "A question may span at most 31 days"),
        ("what merged since 2026-13-45?", '"2026-13-45" is not a date'),
    ],
)
def test_a_question_that_cannot_be_answered_is_one_line_and_exit_1(
    env: FakeGitHub, capsys: pytest.CaptureFixture[str], question: str, said: str
) -> None:
    assert main(["ask", REPO, question]) == 1
    (line,) = stderr_lines(capsys.readouterr().err)
    assert said in line
