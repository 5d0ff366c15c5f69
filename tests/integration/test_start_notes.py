"""The setup lines every command said on stderr (`config file …`, `REDIS_URL is not set: the cache
is kept in …`): the first time on this machine, again when what they say changes, every time with
--verbose; the marker that remembers them is private as the cache is (bot/cli/start_notes.py)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from devkit.fakes.github import FakeGitHub

from bot.cli.main import main
from bot.cli.start_notes import StartNotes
from bot.wiring.store import file_store_note
from tests.integration.conftest import REPO, day

REF = f"{REPO}#101"


@pytest.fixture
def cache(github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No REDIS_URL and no PRDIGEST_CACHE, as on a newcomer's machine: the cache under XDG_CACHE_HOME."""
    monkeypatch.delenv("PRDIGEST_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-home"))
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    github.add_pr(REPO, 101, title="[CI] Bump the runner", merged_at=day(1), files=[{"path": "ci.yml"}])
    return tmp_path / "cache-home" / "prdigest" / "cache.sqlite3"


def setup_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if "config file" in line or "REDIS_URL is not set" in line]


def test_the_setup_lines_are_said_the_first_time_and_under_verbose(
    cache: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["card", REF]) == 0
    first = setup_lines(capsys.readouterr().err)
    assert len(first) == 2 and first[1] == f"prdigest: {file_store_note(str(cache))}"
    assert main(["card", REF]) == 0
    assert setup_lines(capsys.readouterr().err) == []
    assert main(["--verbose", "card", REF]) == 0
    assert setup_lines(capsys.readouterr().err) == first
    assert main(["card", REF, "--verbose"]) == 0
    assert setup_lines(capsys.readouterr().err) == first


def test_a_line_that_says_something_new_is_said_again(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["card", REF]) == 0
    capsys.readouterr()
    other = cache.parent / "other.sqlite3"  # beside the first: the same marker
    monkeypatch.setenv("PRDIGEST_CACHE", str(other))
    assert main(["card", REF]) == 0
    assert setup_lines(capsys.readouterr().err) == [f"prdigest: {file_store_note(str(other))}"]


def test_the_marker_is_this_users_alone(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["card", REF]) == 0
    marker = cache.parent / "said"
    assert stat.S_IMODE(marker.stat().st_mode) == 0o600
    assert stat.S_IMODE(marker.parent.stat().st_mode) == 0o700


def test_a_marker_that_cannot_be_written_holds_nothing_back(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("", encoding="utf-8")
    notes = StartNotes.beside(blocked / "cache.sqlite3", always=False)
    notes.say("config file x")
    notes.say("config file x")
    assert capsys.readouterr().err == "prdigest: config file x\nprdigest: config file x\n"


def test_a_worker_says_them_at_every_start(cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Its logs are read long after it started. (Without REDIS_URL it stops at once, after saying them.)"""
    for _ in range(2):
        assert main(["worker"]) == 1
        assert len([line for line in setup_lines(capsys.readouterr().err) if "config file" in line]) == 1
