"""SqliteKV beyond the contract: two processes on one file, a file kept between runs, a bad file."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from bot.errors import ConfigError, StoreError
from bot.store.backends.sqlite_kv import SqliteKV
from bot.store.kv import PREFIX

ROUNDS = 300
CLAIMS = 200

# One racer: waits for the start file, then counts and claims as fast as it can.
RACER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from bot.store.backends.sqlite_kv import SqliteKV

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
    from bot.store.backends.sqlite_kv import SqliteKV

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


def _edit(path: Path, sql: str, *args: object) -> None:
    """The file changed behind the store's back, as a hand with the sqlite3 shell would."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute(sql, args)
    db.close()


def test_rows_not_as_written_read_as_missing_said_once_and_are_replaced(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "cache.sqlite3"
    kv = SqliteKV.open(path)
    kv.set("text value", b"card", ttl=60)
    kv.set("text expiry", b"card", ttl=60)
    kv.hset("not json", "lead", b"1", ttl=60)
    kv.push("not a list", b"turn", keep=5, ttl=60)
    kv.incr("not a number", ttl_ms=60_000)
    kv.hincrby("counts", {"in": 5}, ttl=60)
    _edit(path, "UPDATE kv SET value = CAST(value AS TEXT) WHERE key = ?", f"{PREFIX}text value")
    _edit(path, "UPDATE kv SET value = CAST(X'ff00fe' AS TEXT) WHERE key = ?", f"{PREFIX}not a list")  # not UTF-8
    # A number in TEXT is stored as REAL again (the column's affinity): a word stays TEXT.
    _edit(path, "UPDATE kv SET expires = 'tomorrow' WHERE key = ?", f"{PREFIX}text expiry")
    _edit(path, "UPDATE kv SET value = X'7b7b' WHERE key = ?", f"{PREFIX}not json")
    _edit(path, "UPDATE kv SET value = CAST('many' AS BLOB) WHERE key = ?", f"{PREFIX}not a number")
    _edit(path, 'UPDATE kv SET value = CAST(\'{"in": "five"}\' AS BLOB) WHERE key = ?', f"{PREFIX}counts")

    assert kv.get("text value") is None and kv.get("text expiry") is None and not kv.exists("text expiry")
    assert kv.hgetall("not json") == {} and kv.items("not a list") == []
    assert kv.incr("not a number", ttl_ms=60_000) == 1  # counts again from the start
    kv.hincrby("counts", {"in": 2}, ttl=60)
    assert kv.hgetall("counts") == {"in": b"2"}
    assert not kv.degraded  # the file is fine: only those rows are not
    said = [record.getMessage() for record in caplog.records]
    assert said == [f"the cache file {path} holds entries that cannot be read: they count as missing"]

    assert kv.set_nx("text value", b"claimed", ttl_ms=60_000)  # missing: a claim takes it
    kv.set("text expiry", b"again", ttl=60)
    kv.hset("not json", "lead", b"2", ttl=60)
    kv.push("not a list", b"turn", keep=5, ttl=60)
    assert kv.get("text value") == b"claimed" and kv.get("text expiry") == b"again"
    assert kv.hgetall("not json") == {"lead": b"2"} and kv.items("not a list") == [b"turn"]
    kv.close()


def test_a_file_that_cannot_be_written_is_said_once_and_the_open_view_goes_on_in_memory(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "cache.sqlite3"
    kv = SqliteKV.open(path)
    kv.set("kept", b"before", ttl=60)
    # A full disk, as SQLite meets it: the file may not grow by a page (SQLITE_FULL).
    kv._shared.connection.execute("PRAGMA max_page_count = 1")
    for number in range(50):
        kv.set(f"card:{number}", b"x" * 10_000, ttl=60)
        assert kv.get(f"card:{number}") == b"x" * 10_000  # from memory, for the rest of the run
    assert kv.set_nx("lease", b"mine", ttl_ms=60_000) and not kv.set_nx("lease", b"theirs", ttl_ms=60_000)
    assert kv.renew("lease", b"mine", ttl_ms=60_000) and not kv.renew("lease", b"theirs", ttl_ms=60_000)
    assert kv.incr("starts", ttl_ms=60_000) == 1 and kv.incr("starts", ttl_ms=60_000) == 2
    assert kv.degraded
    said = [record.getMessage() for record in caplog.records]
    assert said == [
        f"the cache file {path} cannot be used (database or disk is full): this run keeps its cache in memory"
    ]

    strict = kv.strict()
    assert strict.get("kept") == b"before"  # the strict view still reads the file
    with pytest.raises(StoreError):
        strict.set("ledger", b"x" * 10_000, ttl=60)  # and fails closed where it cannot write
    assert len(caplog.records) == 1
    kv.close()
