"""SqliteKV: the KV port in one SQLite file, for one host without Redis (the terminal, a lone `serve`).

The standard library's sqlite3, nothing to install. The file is in WAL mode with a busy timeout,
so two processes on one host share it: a reader never waits for a writer, and every
read-modify-write (set-if-absent, counters, hashes, lists) runs in a BEGIN IMMEDIATE
transaction, which takes the file's write lock before it reads. Not for several hosts: SQLite's
locks need one machine's file system (the docs say to use Redis then).

Each key is one row: its kind, its value, and when it expires (Unix seconds, since the clock is
shared by processes; NULL keeps it). A hash or a list is held as one JSON value, rewritten whole:
they hold a few dozen items. Expired rows are read as absent, and swept when the file is opened.
A call that fails (the file locked past the timeout, a full disk) answers as a miss and is logged
once, as RedisKV does; the strict view raises StoreError instead.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from bot.errors import ConfigError, StoreError
from bot.store.kv import PREFIX

log = logging.getLogger(__name__)

T = TypeVar("T")

# Seconds a call waits for another process's write lock before it counts as failed. Writes here
# take microseconds; a long wait means the other process is stuck, and the cache must not stall us.
BUSY_TIMEOUT = 5.0
OPEN_RETRY_SECONDS = 0.01  # between tries of a new file's setup that another process holds
SCHEMA_VERSION = 1  # PRAGMA user_version: a later layout reads its own version and migrates

_SCHEMA = """
CREATE TABLE IF NOT EXISTS kv (
    key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    value BLOB NOT NULL,
    expires REAL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS kv_expires ON kv (expires) WHERE expires IS NOT NULL;
"""

STRING, HASH, LIST = "string", "hash", "list"


def _encode(value: dict[str, bytes] | list[bytes]) -> bytes:
    # Latin-1 maps every byte to one code point and back: any bytes survive JSON unchanged.
    if isinstance(value, dict):
        return json.dumps({name: item.decode("latin-1") for name, item in value.items()}).encode()
    return json.dumps([item.decode("latin-1") for item in value]).encode()


def _hash(raw: bytes) -> dict[str, bytes]:
    loaded: dict[str, str] = json.loads(raw)
    return {name: item.encode("latin-1") for name, item in loaded.items()}


def _list(raw: bytes) -> list[bytes]:
    loaded: list[str] = json.loads(raw)
    return [item.encode("latin-1") for item in loaded]


def store_error(exc: sqlite3.Error) -> StoreError:
    """Ours for any sqlite3 failure; only its kind, as for Redis (store/redis_store.py)."""
    return StoreError("error.cache_unusable", error=type(exc).__name__)


class _Shared:
    """What the open and the strict view share: the connection, its lock, the outage flag."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self.connection = connection
        self.path = path
        # One connection for the process, one call at a time: each takes microseconds, and the
        # digest's twenty threads then never open twenty file handles.
        self.lock = threading.Lock()
        self.degraded = threading.Event()


def open_database(path: Path, busy_timeout: float = BUSY_TIMEOUT) -> sqlite3.Connection:
    """The file at `path`, made with its directory if missing, in WAL mode; ConfigError (one line,
    naming the file) when it cannot be made or is not a SQLite database."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit (isolation_level None): transactions are ours, BEGIN IMMEDIATE where we read
        # before we write. check_same_thread off: the lock in _Shared serialises the threads.
        connection = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
    except OSError as exc:
        raise ConfigError(f"{path}: the cache cannot be made here ({exc.strerror})") from None
    except sqlite3.Error as exc:
        raise ConfigError(f"{path}: the cache cannot be opened ({exc})") from None
    try:
        _prepare_within(connection, busy_timeout)
    except sqlite3.DatabaseError as exc:
        connection.close()
        if "not a database" in str(exc) or "malformed" in str(exc):
            raise ConfigError(
                f"{path}: not a SQLite database (delete it, or set PRDIGEST_CACHE to another file)"
            ) from None
        raise ConfigError(f"{path}: the cache cannot be opened ({type(exc).__name__}: {exc})") from None
    return connection


def _prepare_within(connection: sqlite3.Connection, busy_timeout: float) -> None:
    """_prepare, tried again while another process holds the file, for up to `busy_timeout`.

    SQLite answers "database is locked" at once, without its busy handler, to a connection that
    asks for WAL mode while another one is making the same new file (two terminals started
    together): a wait the timeout would give anywhere else is given here by hand.
    """
    deadline = time.monotonic() + busy_timeout
    while True:
        try:
            _prepare(connection)
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() >= deadline:
                raise
            time.sleep(OPEN_RETRY_SECONDS)


def _prepare(connection: sqlite3.Connection) -> None:
    """WAL mode, the table (once per file), and a sweep of what expired since the last run."""
    if connection.execute("PRAGMA journal_mode=WAL").fetchone()[0] != "wal":
        raise sqlite3.DatabaseError("the file cannot be put in WAL mode")
    # NORMAL is safe in WAL mode (no corruption on a crash; at worst the last writes are lost):
    # this is a cache, and FULL's fsync per write would cost every card.
    connection.execute("PRAGMA synchronous=NORMAL")
    if connection.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
        connection.executescript(_SCHEMA)
        connection.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    # Another process writing (the file locked): the sweep waits for the next start.
    with contextlib.suppress(sqlite3.OperationalError):
        connection.execute("DELETE FROM kv WHERE expires <= ?", (time.time(),))


class SqliteKV:
    def __init__(self, shared: _Shared, *, fail_closed: bool = False) -> None:
        self._shared = shared
        self._db = shared.connection
        self._fail_closed = fail_closed

    @classmethod
    def open(cls, path: Path, *, busy_timeout: float = BUSY_TIMEOUT) -> SqliteKV:
        return cls(_Shared(open_database(path, busy_timeout), path))

    @property
    def path(self) -> Path:
        return self._shared.path

    def strict(self) -> SqliteKV:
        return SqliteKV(self._shared, fail_closed=True)

    @property
    def degraded(self) -> bool:
        return self._shared.degraded.is_set()

    def close(self) -> None:
        with self._shared.lock:
            self._db.close()

    def _call(self, action: Callable[[], T], fallback: T) -> T:
        degraded = self._shared.degraded
        try:
            with self._shared.lock:
                result = action()
        except sqlite3.Error as exc:
            if not degraded.is_set():
                degraded.set()
                log.warning(
                    "the cache file %s cannot be used (%s): going on without it until it can",
                    self._shared.path,
                    type(exc).__name__,
                )
            if self._fail_closed:
                raise store_error(exc) from exc
            return fallback
        if degraded.is_set():
            degraded.clear()
            log.warning("the cache file is usable again")
        return result

    def _write(self, change: Callable[[float], T]) -> T:
        """`change(now)` in one BEGIN IMMEDIATE transaction: the write lock is taken before the
        first read, so another process's read-modify-write of the same key waits for ours."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            result = change(time.time())
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        return result

    def _row(self, key: str, now: float) -> tuple[str, bytes, float | None] | None:
        row = self._db.execute("SELECT kind, value, expires FROM kv WHERE key = ?", (PREFIX + key,)).fetchone()
        if row is None or (row[2] is not None and row[2] <= now):
            return None
        return row[0], bytes(row[1]), row[2]

    def _live(self, key: str, kind: str, now: float) -> bytes | None:
        row = self._row(key, now)
        return row[1] if row is not None and row[0] == kind else None

    def _put(self, key: str, kind: str, value: bytes, expires: float | None) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO kv (key, kind, value, expires) VALUES (?, ?, ?, ?)",
            (PREFIX + key, kind, value, expires),
        )

    def get(self, key: str) -> bytes | None:
        return self._call(lambda: self._live(key, STRING, time.time()), None)

    def set(self, key: str, value: bytes, ttl: int | None) -> None:
        expires = None if ttl is None else time.time() + ttl
        self._call(lambda: self._put(key, STRING, value, expires), None)

    def set_nx(self, key: str, value: bytes, ttl_ms: int) -> bool:
        def claim(now: float) -> bool:
            if self._row(key, now) is not None:
                return False
            self._put(key, STRING, value, now + ttl_ms / 1000)
            return True

        return self._call(lambda: self._write(claim), True)

    def delete(self, key: str) -> None:
        self._call(lambda: self._db.execute("DELETE FROM kv WHERE key = ?", (PREFIX + key,)), None)

    def delete_if(self, key: str, value: bytes) -> bool:
        def delete(now: float) -> bool:
            if self._live(key, STRING, now) != value:
                return False
            self._db.execute("DELETE FROM kv WHERE key = ?", (PREFIX + key,))
            return True

        return self._call(lambda: self._write(delete), False)

    def renew(self, key: str, value: bytes, ttl_ms: int) -> bool:
        def renew(now: float) -> bool:
            if self._live(key, STRING, now) != value:
                return False
            self._put(key, STRING, value, now + ttl_ms / 1000)
            return True

        # Open view, file unusable: the lease is not known to be lost (as RedisKV). Leases are strict.
        return self._call(lambda: self._write(renew), True)

    def exists(self, key: str) -> bool:
        return self._call(lambda: self._row(key, time.time()) is not None, False)

    def hset(self, key: str, field: str, value: bytes, ttl: int | None) -> None:
        def write(now: float) -> None:
            raw = self._live(key, HASH, now)
            mapping = _hash(raw) if raw is not None else {}
            mapping[field] = value
            self._put(key, HASH, _encode(mapping), None if ttl is None else now + ttl)

        self._call(lambda: self._write(write), None)

    def hgetall(self, key: str) -> dict[str, bytes]:
        def read() -> dict[str, bytes]:
            raw = self._live(key, HASH, time.time())
            return _hash(raw) if raw is not None else {}

        return self._call(read, {})

    def hincrby(self, key: str, amounts: dict[str, int], ttl: int) -> None:
        def write(now: float) -> None:
            raw = self._live(key, HASH, now)
            mapping = _hash(raw) if raw is not None else {}
            for name, amount in amounts.items():
                mapping[name] = str(int(mapping.get(name, b"0")) + amount).encode()
            self._put(key, HASH, _encode(mapping), now + ttl)

        self._call(lambda: self._write(write), None)

    def incr(self, key: str, ttl_ms: int) -> int:
        def count(now: float) -> int:
            row = self._row(key, now)
            if row is None or row[0] != STRING:
                self._put(key, STRING, b"1", now + ttl_ms / 1000)
                return 1
            counted = int(row[1]) + 1
            self._put(key, STRING, str(counted).encode(), row[2])  # the window's end stays
            return counted

        return self._call(lambda: self._write(count), 0)

    def push(self, key: str, value: bytes, keep: int, ttl: int) -> None:
        def write(now: float) -> None:
            raw = self._live(key, LIST, now)
            values = _list(raw) if raw is not None else []
            values.append(value)
            self._put(key, LIST, _encode(values[-keep:]), now + ttl)

        self._call(lambda: self._write(write), None)

    def items(self, key: str) -> list[bytes]:
        def read() -> list[bytes]:
            raw = self._live(key, LIST, time.time())
            return _list(raw) if raw is not None else []

        return self._call(read, [])

    def hdel(self, key: str, field: str) -> None:
        def write(now: float) -> None:
            row = self._row(key, now)
            if row is None or row[0] != HASH:
                return
            mapping = _hash(row[1])
            mapping.pop(field, None)
            if mapping:
                self._put(key, HASH, _encode(mapping), row[2])
            else:
                self._db.execute("DELETE FROM kv WHERE key = ?", (PREFIX + key,))

        self._call(lambda: self._write(write), None)

    def delete_prefix(self, prefix: str) -> int:
        start = PREFIX + prefix

        def purge(now: float) -> int:
            # substr, not LIKE: a key's `%` or `_` is itself. Expired keys are gone already, not counted.
            self._db.execute("DELETE FROM kv WHERE expires <= ?", (now,))
            cursor = self._db.execute("DELETE FROM kv WHERE substr(key, 1, ?) = ?", (len(start), start))
            return cursor.rowcount

        return self._call(lambda: self._write(purge), 0)
