"""The CLI as people expect it: options where they type them, --version, help, references in the
forms other messages offer, channels checked before anything is posted."""

from __future__ import annotations

import importlib.metadata
import json
from pathlib import Path

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.slack import FakeSlack

from bot.cli.main import build_parser, main
from bot.core.refs import parse_repo
from bot.errors import NotFound, UsageError
from tests.integration.conftest import REPO, day, told


@pytest.fixture
def env(github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> FakeGitHub:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    github.add_pr(REPO, 101, title="[Perf] Fuse the decode kernels", merged_at=day(1), files=[{"path": "k.py"}])
    return github


@pytest.mark.parametrize(
    "argv",
    [
        ["digest", REPO, "--debug", "--log-format", "json"],
        ["--debug", "digest", REPO, "--log-format", "json"],
        ["--debug", "--log-format", "json", "digest", REPO],
    ],
)
def test_global_options_are_taken_before_or_after_the_command(argv: list[str]) -> None:
    args = build_parser().parse_args(argv)
    assert (args.command, args.debug, args.log_format) == ("digest", True, "json")


def test_global_options_keep_their_defaults_when_not_given() -> None:
    args = build_parser().parse_args(["card", f"{REPO}#1"])
    assert (args.debug, args.log_format) == (False, "plain")


def test_debug_after_the_command_shows_the_traceback(env: FakeGitHub) -> None:
    with pytest.raises(NotFound):  # raised for the traceback, instead of the one line
        main(["card", f"{REPO}#999", "--debug"])
    assert main(["card", f"{REPO}#999"]) == 1


def test_version_is_the_installed_package_s(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out == f"prdigest {importlib.metadata.version('prdigest')}\n"


def test_bare_prdigest_prints_the_help_and_succeeds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("usage: prdigest") and "digest" in out and "doctor" in out
    assert err == ""


def test_serve_listens_on_this_machine_only_unless_told() -> None:
    assert build_parser().parse_args(["serve"]).host == "127.0.0.1"
    assert build_parser().parse_args(["serve", "--host", "0.0.0.0"]).host == "0.0.0.0"


def _config(monkeypatch: pytest.MonkeyPatch, *repos: str) -> None:
    channels = "".join(
        f'[[channels]]\nid = "C0000000{index}"\nrepos = ["{repo}"]\n' for index, repo in enumerate(repos)
    )
    with open("prdigest.toml", "w", encoding="utf-8") as handle:
        handle.write(channels)
    monkeypatch.setenv("PRDIGEST_CONFIG", "prdigest.toml")


def test_a_number_is_a_pr_of_the_config_s_only_repository(
    env: FakeGitHub, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(monkeypatch, REPO)
    assert main(["card", "#101", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["url"] == f"https://github.com/{REPO}/pull/101"
    assert main(["ask", "#101", "what", "changed?", "--format", "json"]) == 0


def test_a_number_with_several_repositories_says_which_it_could_be(
    env: FakeGitHub, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(monkeypatch, REPO, "acme/widgets")
    assert main(["card", "#101"]) == 1
    lines = told(capsys.readouterr().err)
    assert lines == [
        f"prdigest: '#101' does not say which repository the config means; write one of {REPO}#101, acme/widgets#101"
    ]


def test_a_number_without_a_configured_repository_asks_for_one(
    env: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["card", "#101"]) == 1
    assert "write owner/repo#101" in capsys.readouterr().err


@pytest.mark.parametrize(
    "url",
    [
        f"https://github.com/{REPO}",
        f"https://github.com/{REPO}/",
        f"https://github.com/{REPO}.git",
        f"https://ghe.example.com/{REPO}",
        f"<https://github.com/{REPO}>",
        f"<https://github.com/{REPO}|github.com/{REPO}>",
    ],
)
def test_a_repository_url_names_the_repository(url: str) -> None:
    assert parse_repo(url) == REPO


@pytest.mark.parametrize("text", ["https://github.com/vllm-project", "https://github.com/a/b/c/d", "ftp://x/a/b"])
def test_other_urls_are_not_repositories(text: str) -> None:
    with pytest.raises(UsageError):
        parse_repo(text)


def test_digest_takes_a_repository_url(env: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["digest", f"https://github.com/{REPO}", "--date", "2026-08-05", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["repos"] == [REPO] and data["total_merged"] == 1


def test_ask_across_days_takes_a_repository_url(env: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", f"https://github.com/{REPO}", "what merged this week?"]) == 0
    assert "not a repository" not in capsys.readouterr().err


def test_post_to_a_channel_name_is_refused_before_anything_is_posted(
    env: FakeGitHub, redis_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeSlack() as slack:
        monkeypatch.setenv("SLACK_API_URL", slack.api_url)
        monkeypatch.setenv("SLACK_BOT_TOKEN", slack.bot_token)
        monkeypatch.setenv("REDIS_URL", redis_url)
        assert main(["digest", REPO, "--date", "2026-08-05", "--post", "general"]) == 1
        posted = slack.count(lambda request: "chat." in request.path)
    assert posted == 0
    assert told(capsys.readouterr().err) == [
        "prdigest: --post: 'general' is not a Slack channel id (it looks like C0123456789)"
    ]


def test_the_config_file_not_found_is_said_once_with_where_it_was_looked_for(
    env: FakeGitHub, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["card", f"{REPO}#101"]) == 0
    err = capsys.readouterr().err
    looked = tmp_path / "config" / "prdigest.toml"
    said = f"prdigest: no config file at {looked} (PRDIGEST_CONFIG names one): built-in defaults"
    assert err.splitlines().count(said) == 1


def test_the_config_file_in_use_is_said_once(
    env: FakeGitHub, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    _config(monkeypatch, REPO)
    assert main(["doctor"]) in (0, 1)
    err = capsys.readouterr().err
    assert err.splitlines().count(f"prdigest: config file {tmp_path / 'prdigest.toml'}") == 1


def test_help_and_version_say_no_config(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--version"], ["digest", "--help"]):
        with pytest.raises(SystemExit):
            main(argv)
        assert "config" not in capsys.readouterr().err
