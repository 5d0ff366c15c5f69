"""The terminal's cache without Redis: one SQLite file under the user's cache directory, so a
second run asks GitHub and the model only for what is new (a past day: nothing at all)."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.cli.main import main
from bot.wiring.store import MEMORY_STORE_NOTE, file_store_note
from tests.integration.conftest import REPO, day

PER_PR = {"pull", "files", "comments", "reviews", "issue", "user"}
DAY = "2026-08-05"

# A run in a fresh interpreter, which says afterwards what it imported.
RUN = (
    "import json, sys; from bot.cli.main import main; code = main(sys.argv[1:]); "
    "print(json.dumps({'code': code, 'github': 'github' in sys.modules, 'openai': 'openai' in sys.modules}), "
    "file=sys.stderr)"
)


def _add_prs(github: FakeGitHub, merged: list[datetime]) -> None:
    for index, moment in enumerate(merged):
        number = 101 + index
        github.add_pr(
            REPO,
            number,
            title=f"[Perf] Fuse the decode kernels, step {number}",
            merged_at=moment,
            files=[{"path": f"vllm/kernels/decode_{number}.py", "additions": 40, "deletions": 4}],
            review_comments=[{"author": "reviewer", "body": "why 1.6us?", "path": f"vllm/kernels/decode_{number}.py"}],
        )


@pytest.fixture
def cached(github: FakeGitHub, model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No REDIS_URL and no PRDIGEST_CACHE, as on a user's machine: the cache under XDG_CACHE_HOME."""
    monkeypatch.delenv("PRDIGEST_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache-home"))
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{model.url}/v1")
    return tmp_path / "cache-home" / "prdigest" / "cache.sqlite3"


# Every run also says which config file it read (or where it looked): not what these tests are about.
CONFIG_LINE = re.compile(r"prdigest: (?:no config file at|config file) .*\n?")


def _err(err: str) -> str:
    return CONFIG_LINE.sub("", err)


# The same, where no file may grow past FULL_AT bytes (RLIMIT_FSIZE): a disk that fills while the
# run writes. Past the 32 kB SQLite's -shm needs at the open, with a few pages for the WAL.
FULL_AT = 48 * 1024
RUN_ON_A_FULL_DISK = f"import resource; resource.setrlimit(resource.RLIMIT_FSIZE, ({FULL_AT}, {FULL_AT})); {RUN}"


def _run(argv: list[str], run: str = RUN) -> tuple[dict[str, bool | int], str, str]:
    command = [sys.executable, "-c", run, *argv]
    done = subprocess.run(command, check=False, env=dict(os.environ), capture_output=True, text=True, timeout=120)
    *lines, last = _err(done.stderr).strip().splitlines()
    return json.loads(last), done.stdout, "\n".join(lines)


def test_a_past_day_digest_run_again_asks_github_and_the_model_nothing_and_imports_neither(
    cached: Path, github: FakeGitHub, model: FakeOpenAI
) -> None:
    _add_prs(github, [day(hours) for hours in (1, 5, 9)])
    argv = ["digest", REPO, "--date", DAY, "--format", "json"]
    first, first_out, first_err = _run(argv)
    assert first["code"] == 0 and first["github"]
    assert first_err == f"prdigest: {file_store_note(str(cached))}"  # said once, on stderr
    asked, written = len(github.requests), model.calls
    assert asked and written == 3

    second, second_out, second_err = _run(argv)
    assert second == {"code": 0, "github": False, "openai": False}
    assert (len(github.requests), model.calls) == (asked, written)
    assert second_out == first_out and json.loads(second_out)["total_merged"] == 3
    assert second_err == ""  # the cache's line is said once a machine (bot/cli/start_notes.py)


def test_a_24h_digest_run_again_asks_only_for_the_list(
    cached: Path, github: FakeGitHub, model: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    now = datetime.now(UTC)
    _add_prs(github, [now - timedelta(hours=hours) for hours in (2, 6, 10)])
    assert main(["digest", REPO, "--since", "24h", "--format", "json"]) == 0
    first = json.loads(capsys.readouterr().out)
    before = github.counts_by_kind()
    assert model.calls == 3 and PER_PR & before.keys()
    github.reset_requests()

    assert main(["digest", REPO, "--since", "24h", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["items"] == first["items"]
    assert set(github.counts_by_kind()) == {"pulls"}  # the list pages only: GitHub says what merged since
    assert model.calls == 3


def test_prdigest_cache_off_keeps_nothing(
    cached: Path,
    github: FakeGitHub,
    model: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("PRDIGEST_CACHE", "OFF")
    _add_prs(github, [day(1)])
    for _ in range(2):
        assert main(["digest", REPO, "--date", DAY]) == 0
        assert _err(capsys.readouterr().err) == f"prdigest: {MEMORY_STORE_NOTE}\n"
    assert model.calls == 2 and github.counts_by_kind()["files"] == 2
    assert not cached.parent.exists()


def test_no_cache_is_memory_for_one_run(
    cached: Path, github: FakeGitHub, model: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    _add_prs(github, [day(1)])
    assert main(["card", f"{REPO}#101"]) == 0
    assert main(["card", f"{REPO}#101", "--no-cache"]) == 0
    assert _err(capsys.readouterr().err).splitlines()[-1] == f"prdigest: {MEMORY_STORE_NOTE}"
    assert model.calls == 2 and github.counts_by_kind()["files"] == 2
    assert main(["card", f"{REPO}#101"]) == 0  # the file still holds the first run's card
    assert model.calls == 2 and github.counts_by_kind()["files"] == 2


def test_prdigest_cache_names_the_file(
    cached: Path, github: FakeGitHub, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    chosen = tmp_path / "elsewhere" / "prdigest.db"
    monkeypatch.setenv("PRDIGEST_CACHE", str(chosen))
    _add_prs(github, [day(1)])
    assert main(["card", f"{REPO}#101", "--format", "json"]) == 0
    assert chosen.is_file() and not cached.exists()


def test_a_named_file_that_is_not_a_database_is_one_line_and_exit_1(
    cached: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("not a database\n" * 100)
    monkeypatch.setenv("PRDIGEST_CACHE", str(notes))
    assert main(["digest", REPO, "--date", DAY]) == 1
    assert _err(capsys.readouterr().err) == (
        f"prdigest: {notes}: not a SQLite database (delete it, or set PRDIGEST_CACHE to another file)\n"
    )


def test_a_cache_directory_that_cannot_be_made_leaves_memory_and_one_line(
    cached: Path,
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The default place, unusable (a read-only home in a container): the digest is still made.
    (tmp_path / "a-file").write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "a-file"))
    _add_prs(github, [day(1)])
    assert main(["digest", REPO, "--date", DAY]) == 0
    out, err = capsys.readouterr()
    assert "1 merged" in out
    [line] = _err(err).splitlines()
    assert line.startswith(
        f"prdigest: {tmp_path / 'a-file' / 'prdigest' / 'cache.sqlite3'}: the cache cannot be made here"
    )
    assert line.endswith(
        "the store is in memory, nothing is kept after this run (PRDIGEST_CACHE names another file, or off)."
    )


def test_doctor_names_the_cache_file(cached: Path, capsys: pytest.CaptureFixture[str]) -> None:
    main(["doctor"])
    out = capsys.readouterr().out
    assert re.search(rf"^ +ok +store +{re.escape(str(cached))} \(REDIS_URL not set: one host only", out, re.MULTILINE)
    assert "tokens are counted in each process only" not in out  # the file keeps them: shown


def _tamper(path: Path, column: str) -> None:
    """Every row's value, or its expiry, made TEXT, as a hand with the sqlite3 shell could."""
    db = sqlite3.connect(path, isolation_level=None)
    if column == "value":
        db.execute("UPDATE kv SET value = CAST(value AS TEXT)")
    else:  # a number in TEXT is stored as REAL again (the column's affinity): a word stays TEXT
        db.execute("UPDATE kv SET expires = 'tomorrow'")
    db.close()


@pytest.mark.parametrize("column", ["value", "expires"])
@pytest.mark.parametrize("argv", [["card", f"{REPO}#101"], ["digest", REPO, "--date", DAY], ["doctor"]])
def test_a_tampered_cache_is_one_line_and_the_command_goes_on(
    cached: Path, github: FakeGitHub, model: FakeOpenAI, argv: list[str], column: str
) -> None:
    _add_prs(github, [day(1)])
    for warm in (["card", f"{REPO}#101"], ["digest", REPO, "--date", DAY]):
        assert _run(warm)[0]["code"] == 0
    good, good_out, good_err = _run(argv)
    _tamper(cached, column)
    done, out, err = _run(argv)
    assert done["code"] == good["code"] == 0
    if argv != ["doctor"]:  # whose token counts, unreadable now, show as none
        assert out == good_out
    assert err.splitlines() == [
        *good_err.splitlines(),
        f"prdigest: the cache file {cached} holds entries that cannot be read: they count as missing",
    ]


def test_a_disk_that_fills_during_a_digest_is_one_line_and_the_digest_is_made(
    cached: Path, github: FakeGitHub, model: FakeOpenAI
) -> None:
    _add_prs(github, [day(hours) for hours in range(1, 21)])
    done, out, err = _run(["digest", REPO, "--date", DAY, "--format", "json"], RUN_ON_A_FULL_DISK)
    assert done["code"] == 0 and json.loads(out)["total_merged"] == 20 and model.calls == 20
    assert err.splitlines() == [
        f"prdigest: {file_store_note(str(cached))}",
        f"prdigest: the cache file {cached} cannot be used (disk I/O error): this run keeps its cache in memory",
    ]
