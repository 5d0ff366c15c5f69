"""The cache file is this user's alone (store/backends/private_file.py): made 0600 in a 0700 directory
whatever the umask, SQLite's -wal and -shm following it; an older version's readable files
tightened; a file or directory of another user, or one others may write, refused in one line."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.errors import ConfigError
from bot.store.backends.private_file import modes
from bot.store.backends.sqlite_kv import SqliteKV


def mode(place: Path) -> int:
    return stat.S_IMODE(place.stat().st_mode)


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The usual umask, under which SQLite alone makes a database 0644 and mkdir a directory 0755."""
    before = os.umask(0o022)
    yield
    os.umask(before)


def old_file(directory: Path, file_mode: int, directory_mode: int = 0o700) -> Path:
    """A cache file as an older version (or another hand) left it."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "cache.sqlite3"
    sqlite3.connect(path).close()
    os.chmod(path, file_mode)
    os.chmod(directory, directory_mode)
    return path


def test_a_new_file_its_wal_and_shm_and_directory_are_the_users_alone(umask_022: None, tmp_path: Path) -> None:
    path = tmp_path / "xdg" / "prdigest" / "cache.sqlite3"
    kv = SqliteKV.open(path, own_directory=True)
    kv.set("card", b"a private PR's words", ttl=60)
    wal, shm = path.with_name("cache.sqlite3-wal"), path.with_name("cache.sqlite3-shm")
    assert wal.exists() and shm.exists()  # open: SQLite has made them
    assert [mode(place) for place in (path, wal, shm)] == [0o600] * 3
    assert mode(path.parent) == mode(path.parent.parent) == 0o700  # what was missing, made 0700
    assert modes(path) == "file 0600, -wal 0600, -shm 0600, directory 0700"
    kv.close()


def test_an_older_versions_readable_file_and_directory_are_tightened_without_a_word(
    umask_022: None, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = old_file(tmp_path / "prdigest", 0o644, 0o755)
    wal = path.with_name("cache.sqlite3-wal")
    wal.write_bytes(b"")  # left by a run that ended without closing the file
    os.chmod(wal, 0o644)
    SqliteKV.open(path, own_directory=True).close()
    assert (mode(path), mode(path.parent)) == (0o600, 0o700)
    assert caplog.records == []


def test_a_directory_prdigest_cache_points_into_keeps_its_read_bits(umask_022: None, tmp_path: Path) -> None:
    # PRDIGEST_CACHE=~/work/prdigest.db: ~/work is the user's folder; the files in it are private anyway.
    path = old_file(tmp_path / "work", 0o644, 0o755)
    SqliteKV.open(path).close()
    assert (mode(path), mode(path.parent)) == (0o600, 0o755)


@pytest.mark.parametrize("file_mode", [0o664, 0o666, 0o646], ids=["0664", "0666", "0646"])
def test_a_file_others_may_write_is_refused_in_one_line_saying_how(tmp_path: Path, file_mode: int) -> None:
    path = old_file(tmp_path / "prdigest", file_mode)
    with pytest.raises(ConfigError) as caught:
        SqliteKV.open(path, own_directory=True)
    assert str(caught.value) == (
        f"{path}: other users may write to the cache file (mode {file_mode:04o}); run `chmod 600 {path}`, "
        "or set PRDIGEST_CACHE to another file"
    )
    assert mode(path) == file_mode  # not ours to trust: left as it is


def test_a_directory_others_may_write_is_refused(tmp_path: Path) -> None:
    path = old_file(tmp_path / "prdigest", 0o600, 0o770)
    with pytest.raises(ConfigError) as caught:
        SqliteKV.open(path, own_directory=True)
    assert str(caught.value) == (
        f"{path.parent}: other users may write to the cache directory (mode 0770); "
        f"run `chmod 700 {path.parent}`, or set PRDIGEST_CACHE to another file"
    )


def test_a_shared_directory_such_as_tmp_is_refused_without_a_chmod_to_run(tmp_path: Path) -> None:
    shared = tmp_path / "tmp"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    with pytest.raises(ConfigError) as caught:
        SqliteKV.open(shared / "prdigest.db")
    assert str(caught.value) == (
        f"{shared}: the cache directory is shared by every user (mode 1777); "
        "set PRDIGEST_CACHE to a file in a directory of your own"
    )
    assert not (shared / "prdigest.db").exists()


def test_a_directory_of_another_user_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = old_file(tmp_path / "prdigest", 0o600)
    owner = path.parent.stat().st_uid
    monkeypatch.setattr(os, "getuid", lambda: owner + 1)  # this process, as the next account
    with pytest.raises(ConfigError, match=r"the cache directory belongs to another user \(") as caught:
        SqliteKV.open(path, own_directory=True)
    assert str(caught.value).startswith(f"{path.parent}: ")
    assert str(caught.value).endswith("; set PRDIGEST_CACHE to a file in a directory of your own")


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another account needs root")
def test_a_file_of_another_user_writable_by_all_is_refused(tmp_path: Path) -> None:
    path = old_file(tmp_path / "prdigest", 0o666)
    nobody = 65534
    os.chown(path, nobody, nobody)
    with pytest.raises(ConfigError) as caught:
        SqliteKV.open(path, own_directory=True)
    assert str(caught.value).startswith(f"{path}: the cache file belongs to another user (")
    assert str(caught.value).endswith("); set PRDIGEST_CACHE to a file of your own")
    assert mode(path) == 0o666 and path.stat().st_uid == nobody
