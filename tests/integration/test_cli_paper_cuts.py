"""The CLI as people expect it: options where they type them, --version, help, references in the
forms other messages offer, channels checked before anything is posted."""

from __future__ import annotations

import importlib.metadata

import pytest
from devkit.fakes.github import FakeGitHub

from bot.cli import build_parser, main
from bot.errors import NotFound
from tests.integration.conftest import REPO, day


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
