"""SqliteKV: the KV port in one SQLite file, for one host without Redis (the terminal, a lone `serve`).

The standard library's sqlite3, nothing to install. The file is in WAL mode with a busy timeout,
so two processes on one host share it: a reader never waits for a writer, and every
read-modify-write (set-if-absent, counters, hashes, lists) runs in a BEGIN IMMEDIATE
transaction, which takes the file's write lock before it reads. Not for several hosts: SQLite's
locks need one machine's file system (the docs say to use Redis then).

Each key is one row: its kind, its value, and when it expires (Unix seconds, since the clock is
shared by processes; NULL keeps it). A hash or a list is held as one JSON value, rewritten whole:
they hold a few dozen items. Expired rows are read as absent, and swept when the file is opened;
a row not as this code writes it (a TEXT value or expiry, a hash that is not JSON) is read as absent
too, said once a run, and replaced by the next write. The file is this user's alone
(store/backends/private_file.py). A call that finds the file locked past the timeout answers as a miss and is
logged once, as RedisKV does; any other failure (a full disk, a read-only file) is said once and
the open view goes on in memory for the rest of the run. The strict view raises StoreError instead.
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
from bot.store.backends.memory import MemoryKV
from bot.store.backends.private_file import make_private
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


class _Undecodable(ValueError):
    """A stored value that is not as this code writes it (another version's, or edited by hand)."""


def _hash(raw: bytes) -> dict[str, bytes]:
    loaded = json.loads(raw)  # ValueError when not JSON; UnicodeEncodeError (one too) below
    if not isinstance(loaded, dict) or not all(isinstance(item, str) for item in loaded.values()):
        raise _Undecodable("not a hash")
    return {name: item.encode("latin-1") for name, item in loaded.items()}


def _list(raw: bytes) -> list[bytes]:
    loaded = json.loads(raw)
    if not isinstance(loaded, list) or not all(isinstance(item, str) for item in loaded):
        raise _Undecodable("not a list")
    return [item.encode("latin-1") for item in loaded]


def store_error(exc: sqlite3.Error) -> StoreError:
    """Ours for any sqlite3 failure; only its kind, as for Redis (store/backends/redis_store.py)."""
    return StoreError("error.cache_unusable", error=type(exc).__name__)


def _passing(exc: sqlite3.Error) -> bool:
    """Whether a failure passes by itself: another process held the file's lock past the timeout
    (SQLITE_BUSY, SQLITE_LOCKED, and their extended codes in the low byte, as SQLite's docs define
    them). Any other (a full disk, a read-only or damaged file, a closed handle) lasts the run."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


class _Shared:
    """What the open and the strict view share: the connection, its lock, the outage flag, and
    the memory the open view goes on in once the file cannot be used for the rest of the run."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self.connection = connection
        self.path = path
        # One connection for the process, one call at a time: each takes microseconds, and the
        # digest's twenty threads then never open twenty file handles.
        self.lock = threading.Lock()
        self.degraded = threading.Event()
        self.memory: MemoryKV | None = None

    def given_up(self, exc: sqlite3.Error) -> MemoryKV:
        """The memory the open view keeps its keys in from now on: said once, when first made."""
        with self.lock:
            if self.memory is None:
                self.memory = MemoryKV()
                self.degraded.set()
                _say_once("the cache file %s cannot be used (%s): this run keeps its cache in memory", self.path, exc)
            return self.memory

    def undecodable(self) -> None:
        """A row this code cannot read (another version's, or edited by hand): read as missing."""
        _say_once("the cache file %s holds entries that cannot be read: they count as missing", self.path)


# What this process has said of each file, so that a run that opens it more than once (`doctor`
# builds the store for each check) says each thing once.
_SAID: set[tuple[str, Path]] = set()
_SAID_LOCK = threading.Lock()


def _say_once(message: str, path: Path, *values: object) -> None:
    with _SAID_LOCK:
        if (message, path) in _SAID:
            return
        _SAID.add((message, path))
    log.warning(message, path, *values)


def open_database(path: Path, busy_timeout: float = BUSY_TIMEOUT, *, own_directory: bool = False) -> sqlite3.Connection:
    """The file at `path`, made with its directory if missing, private to this user
    (store/backends/private_file.py), in WAL mode; ConfigError (one line, naming the file) when it cannot be
    made, is not ours alone, or is not a SQLite database."""
    try:
        make_private(path, own_directory=own_directory)
        # Autocommit (isolation_level None): transactions are ours, BEGIN IMMEDIATE where we read
        # before we write. check_same_thread off: the lock in _Shared serialises the threads.
        connection = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None, check_same_thread=False)
        # Text this code did not write (a value edited into TEXT) comes back readable, to be
        # refused by _row, instead of failing the whole call as if the file could not be used.
        connection.text_factory = lambda raw: raw.decode("utf-8", "replace")
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
    def open(cls, path: Path, *, busy_timeout: float = BUSY_TIMEOUT, own_directory: bool = False) -> SqliteKV:
        """`own_directory`: the file is in prdigest's own directory, whose modes are ours to tighten."""
        return cls(_Shared(open_database(path, busy_timeout, own_directory=own_directory), path))

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

    def _call(self, action: Callable[[], T], fallback: T, in_memory: Callable[[MemoryKV], T] | None = None) -> T:
        """`action` on the file. A lock held past the timeout answers `fallback` until the file
        answers again; any other failure lasts the run, and the open view then answers from memory
        (`in_memory`; `fallback` without it). The strict view raises StoreError for either."""
        shared = self._shared
        if shared.memory is not None and not self._fail_closed:
            return fallback if in_memory is None else in_memory(shared.memory)
        try:
            with shared.lock:
                result = action()
        except sqlite3.Error as exc:
            if not _passing(exc):
                memory = shared.given_up(exc)
                if self._fail_closed:
                    raise store_error(exc) from exc
                return fallback if in_memory is None else in_memory(memory)
            if not shared.degraded.is_set():
                shared.degraded.set()
                log.warning(
                    "the cache file %s cannot be used (%s): going on without it until it can",
                    shared.path,
                    type(exc).__name__,
                )
            if self._fail_closed:
                raise store_error(exc) from exc
            return fallback
        except ValueError as exc:  # a value that does not decode, where the call has no missing to read it as
            shared.undecodable()
            if self._fail_closed:
                raise StoreError("error.cache_unusable", error=type(exc).__name__) from exc
            return fallback
        if shared.degraded.is_set() and shared.memory is None:
            shared.degraded.clear()
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
        """The key's row while it lives; None when missing, expired, or not as this code writes it
        (a value that is not a BLOB, an expiry that is not a number), which counts as missing."""
        row = self._db.execute("SELECT kind, value, expires FROM kv WHERE key = ?", (PREFIX + key,)).fetchone()
        if row is None:
            return None
        kind, value, expires = row
        if not isinstance(value, bytes) or not (expires is None or isinstance(expires, int | float)):
            self._shared.undecodable()
            return None
        if expires is not None and expires <= now:
            return None
        return kind, value, expires

    def _live(self, key: str, kind: str, now: float) -> bytes | None:
        row = self._row(key, now)
        return row[1] if row is not None and row[0] == kind else None

    def _live_hash(self, key: str, now: float) -> dict[str, bytes]:
        raw = self._live(key, HASH, now)
        try:
            return _hash(raw) if raw is not None else {}
        except ValueError:
            self._shared.undecodable()
            return {}

    def _live_list(self, key: str, now: float) -> list[bytes]:
        raw = self._live(key, LIST, now)
        try:
            return _list(raw) if raw is not None else []
        except ValueError:
            self._shared.undecodable()
            return []

    def _number(self, raw: bytes) -> int | None:
        try:
            return int(raw)
        except ValueError:
            self._shared.undecodable()
            return None

    def _put(self, key: str, kind: str, value: bytes, expires: float | None) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO kv (key, kind, value, expires) VALUES (?, ?, ?, ?)",
            (PREFIX + key, kind, value, expires),
        )

    def get(self, key: str) -> bytes | None:
        return self._call(lambda: self._live(key, STRING, time.time()), None, lambda memory: memory.get(key))

    def set(self, key: str, value: bytes, ttl: int | None) -> None:
        expires = None if ttl is None else time.time() + ttl
        self._call(lambda: self._put(key, STRING, value, expires), None, lambda memory: memory.set(key, value, ttl))

    def set_nx(self, key: str, value: bytes, ttl_ms: int) -> bool:
        def claim(now: float) -> bool:
            if self._row(key, now) is not None:
                return False
            self._put(key, STRING, value, now + ttl_ms / 1000)
            return True

        return self._call(lambda: self._write(claim), True, lambda memory: memory.set_nx(key, value, ttl_ms))

    def delete(self, key: str) -> None:
        self._call(lambda: self._delete(key), None, lambda memory: memory.delete(key))

    def _delete(self, key: str) -> None:
        self._db.execute("DELETE FROM kv WHERE key = ?", (PREFIX + key,))

    def delete_if(self, key: str, value: bytes) -> bool:
        def delete(now: float) -> bool:
            if self._live(key, STRING, now) != value:
                return False
            self._db.execute("DELETE FROM kv WHERE key = ?", (PREFIX + key,))
            return True

        return self._call(lambda: self._write(delete), False, lambda memory: memory.delete_if(key, value))

    def renew(self, key: str, value: bytes, ttl_ms: int) -> bool:
        def renew(now: float) -> bool:
            if self._live(key, STRING, now) != value:
                return False
            self._put(key, STRING, value, now + ttl_ms / 1000)
            return True

        def in_memory(memory: MemoryKV) -> bool:
            # A lease taken on the file before it failed is not in memory: not known to be lost either.
            return memory.renew(key, value, ttl_ms) or memory.set_nx(key, value, ttl_ms)

        # Open view, file unusable: the lease is not known to be lost (as RedisKV). Leases are strict.
        return self._call(lambda: self._write(renew), True, in_memory)

    def exists(self, key: str) -> bool:
        return self._call(lambda: self._row(key, time.time()) is not None, False, lambda memory: memory.exists(key))

    def hset(self, key: str, field: str, value: bytes, ttl: int | None) -> None:
        def write(now: float) -> None:
            mapping = self._live_hash(key, now)
            mapping[field] = value
            self._put(key, HASH, _encode(mapping), None if ttl is None else now + ttl)

        self._call(lambda: self._write(write), None, lambda memory: memory.hset(key, field, value, ttl))

    def hset_held(self, key: str, field: str, value: bytes, ttl: int | None, *, lease: str, token: bytes) -> bool:
        def write(now: float) -> bool:
            if self._live(lease, STRING, now) != token:
                return False
            mapping = self._live_hash(key, now)
            mapping[field] = value
            self._put(key, HASH, _encode(mapping), None if ttl is None else now + ttl)
            return True

        def in_memory(memory: MemoryKV) -> bool:
            return memory.hset_held(key, field, value, ttl, lease=lease, token=token)

        return self._call(lambda: self._write(write), False, in_memory)

    def hgetall(self, key: str) -> dict[str, bytes]:
        return self._call(lambda: self._live_hash(key, time.time()), {}, lambda memory: memory.hgetall(key))

    def hincrby(self, key: str, amounts: dict[str, int], ttl: int) -> None:
        def write(now: float) -> None:
            mapping = self._live_hash(key, now)
            for name, amount in amounts.items():
                mapping[name] = str((self._number(mapping.get(name, b"0")) or 0) + amount).encode()
            self._put(key, HASH, _encode(mapping), now + ttl)

        self._call(lambda: self._write(write), None, lambda memory: memory.hincrby(key, amounts, ttl))

    def hincrby_below(
        self, key: str, field: str, amount: int, *, counted: tuple[str, ...], limit: int, ttl: int
    ) -> bool | None:
        def write(now: float) -> bool:
            mapping = self._live_hash(key, now)
            if sum(self._number(mapping.get(name, b"0")) or 0 for name in counted) >= limit:
                return False
            mapping[field] = str((self._number(mapping.get(field, b"0")) or 0) + amount).encode()
            self._put(key, HASH, _encode(mapping), now + ttl)
            return True

        # None when the file is locked past the timeout: the open view grants without holding,
        # as RedisKV's; given up for the run, the memory's counters hold instead.
        found: bool | None = self._call(
            lambda: self._write(write),
            None,
            lambda memory: memory.hincrby_below(key, field, amount, counted=counted, limit=limit, ttl=ttl),
        )
        return found

    def incr(self, key: str, ttl_ms: int) -> int:
        def count(now: float) -> int:
            row = self._row(key, now)
            counted = self._number(row[1]) if row is not None and row[0] == STRING else None
            if row is None or counted is None:
                self._put(key, STRING, b"1", now + ttl_ms / 1000)
                return 1
            self._put(key, STRING, str(counted + 1).encode(), row[2])  # the window's end stays
            return counted + 1

        return self._call(lambda: self._write(count), 0, lambda memory: memory.incr(key, ttl_ms))

    def push(self, key: str, value: bytes, keep: int, ttl: int) -> None:
        def write(now: float) -> None:
            values = self._live_list(key, now)
            values.append(value)
            self._put(key, LIST, _encode(values[-keep:]), now + ttl)

        self._call(lambda: self._write(write), None, lambda memory: memory.push(key, value, keep, ttl))

    def items(self, key: str) -> list[bytes]:
        return self._call(lambda: self._live_list(key, time.time()), [], lambda memory: memory.items(key))

    def hdel(self, key: str, field: str) -> None:
        def write(now: float) -> None:
            row = self._row(key, now)
            if row is None or row[0] != HASH:
                return
            mapping = self._live_hash(key, now)
            mapping.pop(field, None)
            if mapping:
                self._put(key, HASH, _encode(mapping), row[2])
            else:
                self._delete(key)

        self._call(lambda: self._write(write), None, lambda memory: memory.hdel(key, field))

    def delete_prefix(self, prefix: str) -> int:
        start = PREFIX + prefix

        def purge(now: float) -> int:
            # substr, not LIKE: a key's `%` or `_` is itself. Expired keys are gone already, not counted.
            self._db.execute("DELETE FROM kv WHERE expires <= ?", (now,))
            cursor = self._db.execute("DELETE FROM kv WHERE substr(key, 1, ?) = ?", (len(start), start))
            return cursor.rowcount

        return self._call(lambda: self._write(purge), 0, lambda memory: memory.delete_prefix(prefix))
