"""CardStore on RedisKV against a real redis-server on loopback: TTLs, leases and outages are the
behaviour under test, so no fake stands in for Redis here."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

import pytest
import redis
from devkit.redis_server import RedisServer

from bot.models import Card, CardKey, Comment, Coverage, FileChange, PRListing, PRRef, PRSnapshot, SkippedFile
from bot.store.backends.redis_store import PREFIX, RedisKV
from bot.store.repos.cards import CARD_TTL, CardStore

LISTING = PRListing(
    repo="o/r",
    number=7,
    title="[Perf] Faster decode by 7.3x",
    body="Body <!-- hidden -->",
    author="alice",
    url="https://github.com/o/r/pull/7",
    merged_at=datetime(2026, 8, 5, 10, 0, tzinfo=UTC),
    merge_sha="a" * 40,
    labels=("perf",),
)
SNAPSHOT = PRSnapshot(
    listing=LISTING,
    files=(
        FileChange("vllm/x.py", "modified", 3, 1, "@@ -1 +1 @@\n-a\n+b"),
        FileChange("img.png", "added", 0, 0, None),
    ),
    comments=(Comment("bob", "why?", "vllm/x.py"),),
)
CARD = Card(
    headline="Decode is 7.3x faster",
    verdict="read",
    minutes=12,
    why=("A reusable pattern",),
    caveats=(),
    watch=("Follow-up kernels",),
    source="llm",
    coverage=Coverage(2, 1, (SkippedFile("img.png", "binary file"),)),
    language="zh-CN",
)
KEY = CardKey("o/r", 7, "a" * 40, "p1", "m", "zh-CN")


def store_at(url: str) -> CardStore:
    return CardStore(RedisKV.from_url(url))


def test_snapshot_round_trip_and_revision(redis_url: str) -> None:
    store = store_at(redis_url)
    assert store.get_snapshot(LISTING.ref, "a" * 40) is None
    store.put_snapshot(SNAPSHOT)
    assert store.get_snapshot(LISTING.ref, "a" * 40) == SNAPSHOT
    assert store.get_revision(PRRef("o/r", 7)) == "a" * 40


def test_incomplete_snapshots_are_never_stored(redis_url: str) -> None:
    store = store_at(redis_url)
    store.put_snapshot(PRSnapshot(listing=LISTING, complete=False))
    assert store.get_snapshot(LISTING.ref, "a" * 40) is None
    assert store.get_revision(LISTING.ref) is None


def test_card_round_trip_with_ttl_under_versioned_prefix(redis_url: str) -> None:
    store = store_at(redis_url)
    store.put_card(KEY, CARD)
    assert store.get_card(KEY) == CARD
    raw = redis.Redis.from_url(redis_url, decode_responses=True)
    keys = raw.keys("*")
    assert keys == [f"{PREFIX}card:o/r#7:{'a' * 40}:p1:m:zh-CN"]
    assert CARD_TTL - 5 < raw.ttl(keys[0]) <= CARD_TTL
    store.put_card(KEY, CARD, ttl_seconds=600)
    assert raw.ttl(keys[0]) <= 600
    raw.close()


def test_unreadable_stored_value_is_a_miss(redis_url: str) -> None:
    store = store_at(redis_url)
    raw = redis.Redis.from_url(redis_url)
    raw.set(f"{PREFIX}card:{KEY}", b'{"headline": 1}')
    raw.close()
    assert store.get_card(KEY) is None


def test_lease_is_exclusive_and_released_only_by_its_holder(redis_url: str) -> None:
    first, second = store_at(redis_url), store_at(redis_url)
    token = first.try_lock("card:x", 30)
    assert token is not None
    assert second.try_lock("card:x", 30) is None
    assert second.lock_held("card:x")
    second.release("card:x", "not-the-token")
    assert first.lock_held("card:x")
    first.release("card:x", token)
    assert not first.lock_held("card:x")
    assert second.try_lock("card:x", 30) is not None


def test_outage_degrades_to_no_cache_and_recovers(own_redis: RedisServer, caplog: pytest.LogCaptureFixture) -> None:
    store = store_at(own_redis.url)
    store.put_card(KEY, CARD)
    own_redis.stop()
    with caplog.at_level(logging.WARNING):
        assert store.get_card(KEY) is None
        store.put_card(KEY, CARD)  # dropped, not raised
        assert store.try_lock("card:y", 5) is not None  # granted: better twice than never
        assert store.get_snapshot(LISTING.ref, "a" * 40) is None
    warnings = [record.message for record in caplog.records if "unreachable" in record.message]
    assert len(warnings) == 1
    own_redis.start()
    with caplog.at_level(logging.WARNING):
        store.put_card(KEY, CARD)
        assert store.get_card(KEY) == CARD
    assert any("back" in record.message for record in caplog.records)
