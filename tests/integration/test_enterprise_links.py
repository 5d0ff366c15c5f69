"""On GitHub Enterprise every link goes to the Enterprise host, never to github.com: `prdigest ask
OWNER/REPO "did anything revert #N?"`, and a workspace installed besides the home one (OAuth),
against a fake Enterprise server (its API under /api/v3)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.cli.main import main
from tests.integration.conftest import REPO
from tests.integration.oauth_harness import HOME, HUMAN, SECOND, SECOND_CHANNEL, OAuthHarness, serve_oauth
from tests.integration.slack_harness import wait_for

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


OTHER = "acme/widgets"


@pytest.fixture
def enterprise_oauth(model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[tuple[OAuthHarness, FakeGitHub]]:
    with FakeGitHub(enterprise=True) as github:
        github.add_repo(REPO)
        github.add_repo(OTHER)
        with serve_oauth(github, model, redis_url, tmp_path) as harness:
            yield harness, github


def test_a_non_home_workspace_links_a_pr_known_by_number_to_the_enterprise_host(
    enterprise_oauth: tuple[OAuthHarness, FakeGitHub],
) -> None:
    """A channel of the second workspace follows two repositories, and a mention names a PR of
    each: the answer is a choice of the two, known only by reference, and both link to the
    Enterprise host."""
    oauth, github = enterprise_oauth
    oauth.install(HOME)
    oauth.install(SECOND)
    oauth.slack.members[SECOND_CHANNEL] = [HUMAN]
    for repo in (REPO, OTHER):
        url = oauth.slack.new_response_url()
        assert oauth.command(SECOND, SECOND_CHANNEL, f"follow {repo}", response_url=url).status_code == 200
        hook = url.rsplit("/", 1)[-1]
        wait_for(lambda: oauth.slack.responses[hook])  # noqa: B023 - waited for before the next turn
    oauth.settle()
    assert oauth.mention(SECOND, SECOND_CHANNEL, f"what do {REPO}#7 and {OTHER}#7 change?").status_code == 200
    (posted,) = wait_for(lambda: [m for m in oauth.slack.all_messages() if m.get("thread_ts")])
    oauth.settle()
    # The reply may be posted as a placeholder first and finished by chat.update: read it settled.
    shown = json.dumps(oauth.slack.message(posted["channel"], posted["ts"]))
    assert f"{github.web_url}/{REPO}/pull/7" in shown and f"{github.web_url}/{OTHER}/pull/7" in shown
    assert "github.com" not in shown
