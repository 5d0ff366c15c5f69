"""The posting lease: short, renewed while held, taken over when its holder dies; on a single
Redis and on a cluster, where the lease and its ledger share a slot."""

from __future__ import annotations

import time

import pytest
import redis
from devkit.redis_server import RedisServer
from redis.cluster import RedisCluster

from bot.digests.lease import PostLease
from bot.errors import PublishError
from bot.store.backends.redis_store import RedisKV
from bot.store.ledger import PostLedger


@pytest.fixture
def ledger(any_redis_url: str) -> PostLedger:
    return PostLedger(RedisKV.from_url(any_redis_url))


def raw_client(url: str) -> redis.Redis | RedisCluster:
    with redis.Redis.from_url(url) as probe:
        clustered = probe.info("cluster").get("cluster_enabled") == 1
    return RedisCluster.from_url(url) if clustered else redis.Redis.from_url(url)


def test_a_held_lease_is_renewed_past_its_ttl(ledger: PostLedger) -> None:
    with PostLease(ledger, "C1", "2026-08-05", ttl=1.5) as lease:
        assert lease.acquire()
        time.sleep(3.5)  # well past the TTL: only the heartbeat (every 0.5 s) keeps it
        lease.check()
        with PostLease(ledger, "C1", "2026-08-05", ttl=1.5) as rival:
            assert not rival.acquire()
    with PostLease(ledger, "C1", "2026-08-05", ttl=1.5) as after:
        assert after.acquire()  # released on exit


def test_a_dead_holders_lease_expires_and_is_taken_over(ledger: PostLedger) -> None:
    assert ledger.take_lease("C1", "2026-08-05", "dead-replica", ttl_seconds=0.3)
    with PostLease(ledger, "C1", "2026-08-05", ttl=0.3) as lease:
        assert not lease.acquire()
    time.sleep(0.4)
    with PostLease(ledger, "C1", "2026-08-05", ttl=0.3) as lease:
        assert lease.acquire()


def test_a_lost_lease_stops_the_next_post(ledger: PostLedger, any_redis_url: str) -> None:
    with PostLease(ledger, "C1", "2026-08-05", ttl=0.3) as lease:
        assert lease.acquire()
        raw = raw_client(any_redis_url)
        raw.set("prdigest:v1:lock:post:{C1}:2026-08-05", b"someone-else")  # it stalled and lost it
        raw.close()
        time.sleep(0.3)
        with pytest.raises(PublishError, match="the posting lease was lost"):
            lease.check()


def test_a_lease_that_cannot_be_renewed_while_redis_is_away_stops_the_next_post(own_redis: RedisServer) -> None:
    ledger = PostLedger(RedisKV.from_url(own_redis.url))
    with PostLease(ledger, "C1", "2026-08-05", ttl=0.3) as lease:
        assert lease.acquire()
        own_redis.stop()  # meanwhile another replica may take the lease: this one must not post
        time.sleep(0.3)  # three heartbeats
        with pytest.raises(PublishError, match="the posting lease was lost"):
            lease.check()


def test_a_part_is_claimed_only_while_the_lease_holds(ledger: PostLedger, any_redis_url: str) -> None:
    with PostLease(ledger, "C1", "2026-08-05", ttl=30) as lease:
        assert lease.acquire()
        lease.claim("pending:0")
        # Taken over between two heartbeats: the holder's next claim fails at once, not a beat later.
        raw = raw_client(any_redis_url)
        raw.set("prdigest:v1:lock:post:{C1}:2026-08-05", b"someone-else")
        with pytest.raises(PublishError, match="the posting lease was lost"):
            lease.claim("pending:1")
        raw.close()
    assert ledger.entries("C1", "2026-08-05") == {"pending:0": "1"}


def test_a_ledger_written_before_the_hash_tag_is_still_read(ledger: PostLedger, any_redis_url: str) -> None:
    raw = raw_client(any_redis_url)
    raw.hset("prdigest:v1:ledger:C1:2026-08-05", mapping={"part:0": "1.0", "done": "1"})
    raw.close()
    assert ledger.entries("C1", "2026-08-05") == {"part:0": "1.0", "done": "1"}
