"""The KV port's contract, held by every backend (memory, Redis, a SQLite file): what a store
written once may rely on."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.store.backends.memory import MemoryKV
from bot.store.backends.redis_store import RedisKV
from bot.store.backends.sqlite_kv import SqliteKV
from bot.store.kv import KV


@pytest.fixture(params=["memory", "redis", "cluster", "sqlite"])
def kv(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[KV]:
    if request.param == "memory":
        yield MemoryKV()
        return
    if request.param == "sqlite":
        embedded = SqliteKV.open(tmp_path / "cache.sqlite3")
        yield embedded
        embedded.close()
        return
    backend = RedisKV.from_url(request.getfixturevalue("redis_url" if request.param == "redis" else "cluster_url"))
    yield backend
    backend.close()


def test_get_set_delete(kv: KV) -> None:
    assert kv.get("a") is None
    kv.set("a", b"1", ttl=60)
    assert kv.get("a") == b"1" and kv.exists("a")
    kv.delete("a")
    assert kv.get("a") is None and not kv.exists("a")


def test_set_nx_claims_once_and_expires(kv: KV) -> None:
    assert kv.set_nx("claim", b"x", ttl_ms=200)
    assert not kv.set_nx("claim", b"y", ttl_ms=200)
    time.sleep(0.3)
    assert kv.set_nx("claim", b"z", ttl_ms=200)


def test_delete_if_only_for_the_holder(kv: KV) -> None:
    kv.set_nx("lease", b"mine", ttl_ms=5000)
    kv.delete_if("lease", b"theirs")
    assert kv.exists("lease")
    kv.delete_if("lease", b"mine")
    assert not kv.exists("lease")


def test_hash_fields(kv: KV) -> None:
    assert kv.hgetall("h") == {}
    kv.hset("h", "lead", b"1.000", ttl=60)
    kv.hset("h", "part:0", b"2.000", ttl=60)
    assert kv.hgetall("h") == {"lead": b"1.000", "part:0": b"2.000"}


def test_capped_list_keeps_the_newest(kv: KV) -> None:
    for index in range(5):
        kv.push("turns", str(index).encode(), keep=3, ttl=60)
    assert kv.items("turns") == [b"2", b"3", b"4"]


def test_delete_prefix_deletes_only_that_prefix(kv: KV) -> None:
    for key in ("team:T1:ledger:C1:d", "team:T1:run:C1", "team:T1*:x", "team:T12:ledger:C1:d", "card:x"):
        kv.set(key, b"1", ttl=60)
    kv.hset("team:T1:h", "f", b"1", ttl=60)

    assert kv.delete_prefix("team:T1:") == 3
    assert [key for key in ("team:T1:ledger:C1:d", "team:T1:run:C1", "team:T1:h") if kv.exists(key)] == []
    # A glob character in a key is itself, and a longer team id is another team.
    assert kv.exists("team:T1*:x") and kv.exists("team:T12:ledger:C1:d") and kv.exists("card:x")


def test_a_value_without_ttl_is_kept_and_a_field_deleted(kv: KV) -> None:
    kv.set("installation", b"1", ttl=None)
    kv.hset("installations", "T1", b"a", ttl=None)
    kv.hset("installations", "T2", b"b", ttl=None)
    kv.hdel("installations", "T1")
    assert kv.get("installation") == b"1"
    assert kv.hgetall("installations") == {"T2": b"b"}


def test_delete_if_says_whether_it_deleted(kv: KV) -> None:
    kv.set_nx("state", b"1", ttl_ms=5000)
    assert kv.delete_if("state", b"1") is True
    assert kv.delete_if("state", b"1") is False


def test_hincrby_adds_to_each_field_from_zero(kv: KV) -> None:
    kv.delete("counts")
    kv.hincrby("counts", {"all": 5, "in|total|m": 3}, ttl=60)
    kv.hincrby("counts", {"all": 2}, ttl=60)
    assert kv.hgetall("counts") == {"all": b"7", "in|total|m": b"3"}


def test_hincrby_below_adds_only_while_the_counted_fields_are_below_the_limit(kv: KV) -> None:
    def add(amount: int) -> bool | None:
        return kv.hincrby_below("day", "held", amount, counted=("spent", "held"), limit=1000, ttl=60)

    assert add(600) is True  # a missing field counts 0
    kv.hincrby("day", {"spent": 300}, ttl=60)
    assert add(600) is True  # 900 is below 1,000: added, and the sum passes the limit by this amount
    assert add(1) is False
    assert kv.hgetall("day") == {"held": b"1200", "spent": b"300"}
    kv.hincrby("day", {"held": -1000}, ttl=60)
    assert add(50) is True and kv.hgetall("day")["held"] == b"250"


def test_hset_held_writes_only_while_the_lease_holds_the_token(kv: KV) -> None:
    # The lease and the hash share a hash tag: one slot on a cluster.
    lease, ledger = "lock:post:{C1}:d", "ledger:{C1}:d"
    assert kv.hset_held(ledger, "pending:0", b"1", 60, lease=lease, token=b"mine") is False  # no lease yet
    kv.set_nx(lease, b"mine", ttl_ms=5000)
    assert kv.hset_held(ledger, "pending:0", b"1", 60, lease=lease, token=b"mine") is True
    assert kv.hset_held(ledger, "pending:1", b"1", 60, lease=lease, token=b"theirs") is False
    assert kv.hgetall(ledger) == {"pending:0": b"1"}
