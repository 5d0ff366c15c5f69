"""On GitHub Enterprise every link goes to the Enterprise host, never to github.com: `prdigest ask
OWNER/REPO "did anything revert #N?"` against a fake Enterprise server (its API under /api/v3)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
from devkit.fakes.github import FakeGitHub

from bot.cli import main
from tests.integration.conftest import REPO

RECENT = datetime.now(UTC) - timedelta(minutes=30)


@pytest.fixture
def enterprise(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    with FakeGitHub(enterprise=True) as server:
        monkeypatch.setenv("GITHUB_API_URL", server.api_url)
        server.add_pr(
            REPO,
            3002,
            title='Revert "[Perf] Cache the expert map" (#3001)',
            body="Reverts #3001: the cache went stale across reloads.",
            merged_at=RECENT,
            files=[{"path": "vllm/model_executor/layers/fused_moe/layer.py", "additions": 3, "deletions": 40}],
        )
        yield server


def test_a_revert_target_known_only_by_number_links_to_the_enterprise_host(
    enterprise: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", REPO, "did anything revert #3001 in the last 2 days?"]) == 0
    out = capsys.readouterr().out
    assert f"{enterprise.web_url}/{REPO}/pull/3002" in out  # the revert, from GitHub's listing
    assert f"{enterprise.web_url}/{REPO}/pull/3001" in out  # its target, known only by number
    assert "github.com" not in out
