"""How long SqliteKV keeps what it is given (store/backends/sqlite_kv.py): each kind of value lives its TTL
and no longer, read through another handle on the same file (the expiry is in the file, in Unix
seconds, so every process on the host sees it alike); a counter's window is fixed by its first
step; a renewed lease lives its new TTL.

Real short TTLs, watched by polling: a value seen gone must have been written at least its TTL
before, and a value seen after its TTL had passed since the write ended is a failure. No test
here sleeps and then asserts."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.store.backends.sqlite_kv import SqliteKV

pytestmark = pytest.mark.slow  # each waits out a TTL of up to 1.5 s

POLL_SECONDS = 0.02  # between looks: well under every TTL here
GIVE_UP_SECONDS = 10.0  # past the TTL, a value still there fails the test (not a busy machine)


class Handles:
    """Two handles on one file: `writer` writes, `reader` (as another process would) reads."""

    def __init__(self, path: Path) -> None:
        self.writer = SqliteKV.open(path)
        self.reader = SqliteKV.open(path)

    def close(self) -> None:
        self.writer.close()
        self.reader.close()


@pytest.fixture
def kv(tmp_path: Path) -> Iterator[Handles]:
    handles = Handles(tmp_path / "cache.sqlite3")
    yield handles
    handles.close()


def timed(write: Callable[[], object]) -> tuple[float, float]:
    """When `write` began and ended (Unix seconds, the clock SqliteKV stamps expiries with)."""
    began = time.time()
    write()
    return began, time.time()


def gone_at(present: Callable[[], bool], written: tuple[float, float], ttl: float) -> float:
    """When `present` first answered False, polled from now: never before `ttl` had passed since
    the write began, and never True once `ttl` had passed since it ended."""
    began, ended = written
    while True:
        before = time.time()
        there = present()
        after = time.time()
        if not there:
            assert after >= began + ttl, f"gone {after - began:.3f}s after the write, before its {ttl}s"
            return after
        assert before < ended + ttl, f"still there {before - ended:.3f}s after the write, past its {ttl}s"
        assert after < ended + ttl + GIVE_UP_SECONDS
        time.sleep(POLL_SECONDS)


def test_a_string_lives_its_ttl_in_seconds_as_another_handle_reads_it(kv: Handles) -> None:
    kv.writer.set("kept", b"2", ttl=None)
    written = timed(lambda: kv.writer.set("brief", b"1", ttl=1))
    gone_at(lambda: kv.reader.get("brief") == b"1", written, 1.0)
    assert not kv.reader.exists("brief") and kv.writer.get("brief") is None
    assert kv.reader.get("kept") == b"2"  # written before "brief": kept past the second it lived


def test_a_claim_lives_its_ttl_in_milliseconds_then_can_be_claimed_again(kv: Handles) -> None:
    written = timed(lambda: kv.writer.set_nx("claim", b"first", ttl_ms=300))
    # Refused while it lives; the first call it grants is the new claim.
    gone_at(lambda: not kv.reader.set_nx("claim", b"second", ttl_ms=60_000), written, 0.3)
    assert kv.writer.get("claim") == b"second"


def test_a_hash_and_a_list_live_their_ttl(kv: Handles) -> None:
    hashed = timed(lambda: kv.writer.hset("thread", "lead", b"1.000", ttl=1))
    pushed = timed(lambda: kv.writer.push("turns", b"hello", keep=5, ttl=1))
    gone_at(lambda: kv.reader.hgetall("thread") == {"lead": b"1.000"}, hashed, 1.0)
    gone_at(lambda: kv.reader.items("turns") == [b"hello"], pushed, 1.0)


def test_a_counter_keeps_the_window_its_first_step_opened(kv: Handles) -> None:
    # Counted every poll: a step must not move the window's end, so the count starts again at 1
    # once the first step's TTL has passed, however often it was counted meanwhile.
    opened = timed(lambda: kv.writer.incr("starts", ttl_ms=1000))
    counted = [1]

    def counting_on() -> bool:
        counted.append(kv.reader.incr("starts", ttl_ms=1000))
        return counted[-1] != 1

    gone_at(counting_on, opened, 1.0)
    assert counted[:-1] == list(range(1, len(counted))) and len(counted) > 2


def test_a_renewed_lease_lives_its_new_ttl_and_a_stale_holder_cannot_renew(kv: Handles) -> None:
    assert kv.writer.set_nx("lease", b"mine", ttl_ms=300)
    renewed = timed(lambda: kv.writer.renew("lease", b"mine", ttl_ms=1500))
    assert not kv.reader.renew("lease", b"theirs", ttl_ms=60_000)
    gone_at(lambda: kv.reader.get("lease") == b"mine", renewed, 1.5)
    assert not kv.writer.renew("lease", b"mine", ttl_ms=1500)  # lost once expired: no renewing
