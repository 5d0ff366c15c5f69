"""The posting lease: short, renewed while held, taken over when its holder dies."""

from __future__ import annotations

import time

import pytest
from devkit.redis_server import RedisServer

from bot.digests.lease import PostLease
from bot.errors import PublishError
from bot.store.backends.redis_store import RedisKV
from bot.store.ledger import PostLedger


@pytest.fixture
def ledger(redis_url: str) -> PostLedger:
    return PostLedger(RedisKV.from_url(redis_url))


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


def test_a_lost_lease_stops_the_next_post(ledger: PostLedger, redis_url: str) -> None:
    import redis

    with PostLease(ledger, "C1", "2026-08-05", ttl=0.3) as lease:
        assert lease.acquire()
        raw = redis.Redis.from_url(redis_url)
        raw.set("prdigest:v1:lock:post:C1:2026-08-05", b"someone-else")  # it stalled and lost it
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
