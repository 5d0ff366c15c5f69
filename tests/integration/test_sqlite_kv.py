"""SqliteKV beyond the contract: two processes on one file, a file kept between runs, a bad file."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bot.errors import ConfigError, StoreError
from bot.store.sqlite_kv import SqliteKV

ROUNDS = 300
CLAIMS = 200

# One racer: waits for the start file, then counts and claims as fast as it can.
RACER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from bot.store.sqlite_kv import SqliteKV

    path, go, name = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    rounds, claims = int(sys.argv[4]), int(sys.argv[5])
    kv = SqliteKV.open(path)
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.001)
    counts = [kv.incr("starts", ttl_ms=60_000) for _ in range(rounds)]
    won = [n for n in range(claims) if kv.set_nx(f"claim:{n}", name.encode(), ttl_ms=60_000)]
    print(json.dumps({"counts": counts, "won": won, "degraded": kv.degraded}), flush=True)
    kv.close()
    """
)


def _racer(path: Path, go: Path, name: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", RACER, str(path), str(go), name, str(ROUNDS), str(CLAIMS)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    return process


def test_two_processes_count_and_claim_on_one_file_without_losing_a_step(tmp_path: Path) -> None:
    path, go = tmp_path / "cache.sqlite3", tmp_path / "go"
    racers = [_racer(path, go, name) for name in ("a", "b")]
    here = SqliteKV.open(path)  # and this process's threads, through the one connection
    go.touch()
    mine = [here.incr("starts", ttl_ms=60_000) for _ in range(ROUNDS)]
    results = [json.loads(racer.communicate(timeout=60)[0]) for racer in racers]

    counts = sorted(mine + [count for result in results for count in result["counts"]])
    assert counts == list(range(1, 3 * ROUNDS + 1))  # every step seen once: none lost, none twice
    won = [number for result in results for number in result["won"]]
    assert sorted(won) == list(range(CLAIMS))  # each claim granted to exactly one process
    for name, result in zip(("a", "b"), results, strict=True):
        assert not result["degraded"]
        assert all(here.get(f"claim:{number}") == name.encode() for number in result["won"])
    here.close()


def test_what_one_run_kept_the_next_one_reads_until_it_expires(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    first = SqliteKV.open(path)
    first.set("snapshot", b"\x00\xffkept", ttl=60)
    first.set("brief", b"1", ttl=1)
    first.push("turns", b"\x80", keep=2, ttl=60)
    first.close()
    time.sleep(1.1)
    second = SqliteKV.open(path)
    assert second.get("snapshot") == b"\x00\xffkept" and second.items("turns") == [b"\x80"]
    assert second.get("brief") is None and not second.exists("brief")
    second.close()


def test_a_file_that_is_not_a_database_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("shopping list\n" * 200)
    with pytest.raises(ConfigError) as caught:
        SqliteKV.open(path)
    assert str(caught.value) == f"{path}: not a SQLite database (delete it, or set PRDIGEST_CACHE to another file)"


def test_a_directory_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(ConfigError, match="the cache cannot be made here"):
        SqliteKV.open(tmp_path / "file" / "prdigest" / "cache.sqlite3")


def test_a_locked_file_misses_when_open_and_fails_closed_when_strict(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    kv = SqliteKV.open(path)
    kv.set("lease", b"old", ttl=60)
    kv.close()
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys; db = sqlite3.connect(sys.argv[1], isolation_level=None);"
            " db.execute('BEGIN IMMEDIATE'); print('held', flush=True); sys.stdin.read()",
            str(path),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        kv = SqliteKV.open(path, busy_timeout=0.05)
        assert kv.set_nx("claim", b"x", ttl_ms=1000) is True  # open: granted, work may be done twice
        assert kv.degraded
        with pytest.raises(StoreError):
            kv.strict().set_nx("claim", b"x", ttl_ms=1000)
        assert kv.get("lease") == b"old"  # WAL: reading never waits for the writer
    finally:
        assert holder.stdin is not None
        holder.communicate(timeout=10)  # closes its stdin (it lets go) and its stdout
    assert kv.set_nx("claim", b"x", ttl_ms=1000) and not kv.degraded
    kv.close()


# One opener: waits for the start file, then opens a file no one has made yet and claims a key.
OPENER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from bot.store.sqlite_kv import SqliteKV

    go = Path(sys.argv[2])
    print("ready", flush=True)
    while not go.exists():
        time.sleep(0.0005)
    kv = SqliteKV.open(Path(sys.argv[1]))
    print(kv.set_nx("claim", sys.argv[3].encode(), ttl_ms=60_000), kv.degraded, flush=True)
    """
)


def test_processes_that_make_the_file_at_once_all_open_it_and_one_claims(tmp_path: Path) -> None:
    path, go = tmp_path / "new" / "cache.sqlite3", tmp_path / "go"
    openers = []
    for name in ("a", "b", "c", "d"):
        opener = subprocess.Popen(
            [sys.executable, "-c", OPENER, str(path), str(go), name],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert opener.stdout is not None and opener.stdout.readline().strip() == "ready"
        openers.append(opener)
    go.touch()
    said = [opener.communicate(timeout=60) for opener in openers]
    assert [err for _, err in said if err] == []
    assert sorted(out.strip() for out, _ in said) == ["False False"] * 3 + ["True False"]
