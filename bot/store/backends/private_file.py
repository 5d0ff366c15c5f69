"""Who may open the cache file: this user alone. Its directory is made 0700, the file 0600, whatever
the umask, and SQLite's -wal and -shm beside it follow the file. A file or directory of another
user, or one that others may write (they could read the cache, or plant a -wal of their own), is
refused in one line that says how to fix it; our own files that an older version left readable are
tightened without a word. Owns nothing else: opening the database is store/backends/sqlite_kv.py's.
"""

from __future__ import annotations

import os
import pwd
import shlex
import stat
from pathlib import Path

from bot.errors import ConfigError

FILE_MODE = 0o600
DIRECTORY_MODE = 0o700  # the XDG Base Directory spec's mode for a directory it makes, too
# SQLite keeps these beside the database in WAL mode and makes them with the database file's own
# permissions (os_unix.c: findCreateFileMode for -wal, unixOpenSharedMemory for -shm).
COMPANIONS = ("-wal", "-shm")
GROUP_OR_OTHERS = 0o077
OTHERS_WRITE = stat.S_IWGRP | stat.S_IWOTH


def companions(path: Path) -> list[Path]:
    return [path.with_name(path.name + suffix) for suffix in COMPANIONS]


def make_private(path: Path, *, own_directory: bool) -> None:
    """The cache file at `path`, made if missing, and its directory, private to this user, else
    ConfigError. `own_directory`: the directory is prdigest's own (the default place), so its modes
    are ours to tighten; one that PRDIGEST_CACHE points into keeps its read bits (a user's folder),
    since the files in it are private anyway. OSError when the directory cannot be made."""
    directory = path.parent
    made = _make_directories(directory)
    info = directory.stat()
    _refuse(directory, info, "directory")
    if (made or own_directory) and info.st_mode & GROUP_OR_OTHERS:
        os.chmod(directory, DIRECTORY_MODE)
    _make_file(path)
    for place in (path, *companions(path)):
        try:
            info = place.stat()
        except FileNotFoundError:  # -wal and -shm exist only while a process has the file open
            continue
        if not stat.S_ISREG(info.st_mode):  # a directory or a device: SQLite says it cannot open it
            continue
        _refuse(place, info, "file")
        if info.st_mode & GROUP_OR_OTHERS:
            os.chmod(place, FILE_MODE)


def modes(path: Path) -> str:
    """The modes of the file, its -wal and -shm (those that exist) and its directory: `doctor`'s words."""
    shown = [f"file {_mode(path)}"]
    shown += [f"{place.name.removeprefix(path.name)} {_mode(place)}" for place in companions(path) if place.exists()]
    return ", ".join([*shown, f"directory {_mode(path.parent)}"])


def _mode(place: Path) -> str:
    return f"{stat.S_IMODE(place.stat().st_mode):04o}"


def _make_directories(directory: Path) -> bool:
    """Each missing directory down to `directory` made 0700; whether `directory` was made now."""
    missing = []
    for place in (directory, *directory.parents):
        if place.exists():
            break
        missing.append(place)
    for place in reversed(missing):
        try:
            place.mkdir(mode=DIRECTORY_MODE)
        except FileExistsError:  # another process made it in the meantime: as good
            continue
        os.chmod(place, DIRECTORY_MODE)  # mkdir's mode goes through the umask
    return bool(missing)


def _make_file(path: Path) -> None:
    """An empty file at `path`, 0600, unless one is there: SQLite takes an empty file as an empty
    database, and it would make a new one 0644 under the usual umask."""
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:  # kept from an earlier run, or another process made it just now
        return
    try:
        os.fchmod(descriptor, FILE_MODE)  # os.open's mode goes through the umask
    finally:
        os.close(descriptor)


def _refuse(place: Path, info: os.stat_result, kind: str) -> None:
    mode = stat.S_IMODE(info.st_mode)
    elsewhere = "a file of your own" if kind == "file" else "a file in a directory of your own"
    if info.st_uid != os.getuid():
        raise ConfigError(
            f"{place}: the cache {kind} belongs to another user ({_owner(info.st_uid)}); "
            f"set PRDIGEST_CACHE to {elsewhere}"
        )
    if not mode & OTHERS_WRITE:
        return
    if kind == "directory" and mode & stat.S_ISVTX:  # /tmp and its kind: shared by design, not ours to chmod
        raise ConfigError(
            f"{place}: the cache directory is shared by every user (mode {mode:04o}); set PRDIGEST_CACHE to {elsewhere}"
        )
    fix = f"chmod {FILE_MODE if kind == 'file' else DIRECTORY_MODE:o} {shlex.quote(str(place))}"
    raise ConfigError(
        f"{place}: other users may write to the cache {kind} (mode {mode:04o}); run `{fix}`, "
        "or set PRDIGEST_CACHE to another file"
    )


def _owner(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:  # a uid with no account here (a volume from another machine)
        return f"uid {uid}"
