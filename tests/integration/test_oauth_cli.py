"""The CLI in OAuth mode: `--team` picks the workspace whose token posts, `doctor` lists the
installations with their tokens masked, and each mistake in the environment is one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.cli.main import main
from tests.integration.conftest import REPO, told
from tests.integration.oauth_harness import (
    HOME,
    SECOND,
    SECOND_CHANNEL,
    SECRET_KEY,
    OAuthHarness,
    oauth_env,
)


@pytest.fixture
def oauth_cli(
    oauth: OAuthHarness,
    github: FakeGitHub,
    model: FakeOpenAI,
    redis_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> OAuthHarness:
    """The environment of a replica of `oauth`, for the CLI run in this process."""
    config = tmp_path / "prdigest.toml"
    for name, value in oauth_env(oauth.slack, github, model, redis_url, config).items():
        monkeypatch.setenv(name, value)
    return oauth


def test_digest_post_with_team_posts_with_that_workspaces_token(
    oauth_cli: OAuthHarness, capsys: pytest.CaptureFixture[str]
) -> None:
    oauth_cli.install(SECOND)
    before = len(oauth_cli.slack.tokens())

    assert main(["digest", REPO, "--post", SECOND_CHANNEL, "--team", SECOND, "--since", "24h"]) == 0

    assert SECOND_CHANNEL in capsys.readouterr().out
    used = oauth_cli.slack.tokens()[before:]
    assert used and set(used) <= set(oauth_cli.slack.workspaces.tokens_of(SECOND))


def test_a_workspace_that_never_installed_is_one_line(
    oauth_cli: OAuthHarness, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["digest", REPO, "--post", SECOND_CHANNEL, "--team", "T0NOBODY"]) == 1
    assert told(capsys.readouterr().err) == [
        "prdigest: workspace T0NOBODY has not installed prdigest (or has removed it): nothing was posted"
    ]
    assert main(["digest", REPO, "--post", SECOND_CHANNEL, "--team", "general"]) == 1
    assert "'general' is not a Slack team id" in capsys.readouterr().err


def test_doctor_lists_installations_with_tokens_masked(
    oauth_cli: OAuthHarness, capsys: pytest.CaptureFixture[str]
) -> None:
    oauth_cli.slack.workspaces.rotation = True
    oauth_cli.install(HOME)
    oauth_cli.install(SECOND)

    assert main(["doctor", "--team", SECOND]) == 0

    out = capsys.readouterr().out
    assert "OAuth mode" in out and f"installed in {SECOND}" in out and f"installed in {HOME}" in out
    assert f"ok  slack   {SECOND}: team Workspace {SECOND}" in out
    for team in (HOME, SECOND):
        for token in oauth_cli.slack.workspaces.tokens_of(team):
            assert token not in out and token[8:20] not in out
    assert SECRET_KEY not in out and "fake-client-secret" not in out


def test_team_in_single_workspace_mode_is_refused(
    github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    assert main(["digest", REPO, "--post", "C0DIGEST01", "--team", SECOND]) == 1
    assert told(capsys.readouterr().err)[0].startswith("prdigest: --team is for OAuth mode")


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"PRDIGEST_SECRET_KEY": ""}, "prdigest: PRDIGEST_SECRET_KEY is not set: OAuth mode keeps"),
        ({"PRDIGEST_SECRET_KEY": "not-a-key"}, "prdigest: PRDIGEST_SECRET_KEY is not a Fernet key"),
        ({"SLACK_CLIENT_SECRET": ""}, "prdigest: SLACK_CLIENT_SECRET is not set: OAuth mode needs both"),
        ({"SLACK_BOT_TOKEN": "xoxb-1"}, "prdigest: SLACK_BOT_TOKEN and SLACK_CLIENT_ID are both set"),
        ({"SLACK_SCOPES": "chat:write,bad scope"}, "prdigest: SLACK_SCOPES: 'bad scope' is not a scope name"),
    ],
)
def test_a_bad_oauth_environment_is_one_line(
    env: dict[str, str], said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    base = {"SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "s", "PRDIGEST_SECRET_KEY": SECRET_KEY}
    for name, value in (base | env).items():
        monkeypatch.setenv(name, value)
    assert main(["digest", REPO, "--post", "C0DIGEST01"]) == 1
    err = capsys.readouterr().err
    assert told(err) == [told(err)[0]] and told(err)[0].startswith(said), err
    assert SECRET_KEY not in err


def test_config_channels_need_their_workspace_in_oauth_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[[channels]]\nid = "C0DIGEST01"\nrepos = ["a/b"]\n', encoding="utf-8")
    env = {"PRDIGEST_CONFIG": str(config), "SLACK_CLIENT_ID": "1.2", "SLACK_CLIENT_SECRET": "s"}
    for name, value in (env | {"PRDIGEST_SECRET_KEY": SECRET_KEY}).items():
        monkeypatch.setenv(name, value)
    assert main(["doctor"]) == 1
    assert "OAuth mode needs [slack] home_team" in capsys.readouterr().err


def test_socket_mode_is_refused_in_oauth_mode(oauth_cli: OAuthHarness, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--socket"]) == 1
    assert told(capsys.readouterr().err)[0].startswith("prdigest: --socket is for one workspace")
