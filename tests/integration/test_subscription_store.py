"""SubscriptionStore on a real Redis: one hash of channels and one audit list per workspace,
under the workspace's prefix; failing closed when Redis is away."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
import redis
from devkit.redis_server import RedisServer

from bot.errors import StoreError
from bot.models import AuditEntry
from bot.store.backends.redis_store import PREFIX, RedisKV
from bot.store.subscriptions import AUDIT_KEEP, ChannelEdits, SubscriptionStore

AT = datetime(2026, 8, 6, 12, 0, tzinfo=UTC)


def edits(repo: str) -> ChannelEdits:
    return ChannelEdits(values={"repos": [repo]}, by="U1", at=AT)


def test_each_workspace_keeps_its_own_subscriptions_and_the_single_install_keeps_its_keys(redis_url: str) -> None:
    kv = RedisKV.from_url(redis_url)
    try:
        single, team = SubscriptionStore(kv), SubscriptionStore(kv, team="T0OTHER1")
        single.save("C0AAAAAAA", edits("a/b"))
        team.save("C0AAAAAAA", edits("c/d"))
        assert single.all() == {"C0AAAAAAA": edits("a/b")} and team.all() == {"C0AAAAAAA": edits("c/d")}
        keys = set(redis.Redis.from_url(redis_url, decode_responses=True).keys("*"))
        assert keys == {f"{PREFIX}subscriptions", f"{PREFIX}team:T0OTHER1:subscriptions"}
        single.remove("C0AAAAAAA")
        assert single.all() == {} and single.get("C0AAAAAAA") is None
    finally:
        kv.close()


def test_the_audit_trail_keeps_the_last_changes_oldest_first(redis_url: str) -> None:
    kv = RedisKV.from_url(redis_url)
    try:
        store = SubscriptionStore(kv)
        for n in range(AUDIT_KEEP + 2):
            store.record(AuditEntry(channel=f"C0{n % 2:07d}", user="U1", at=AT, action="follow", detail=(f"a/r{n}",)))
        trail = store.audit()
        assert (
            len(trail) == AUDIT_KEEP and trail[0].detail == ("a/r2",) and trail[-1].detail == (f"a/r{AUDIT_KEEP + 1}",)
        )
        assert {entry.channel for entry in store.audit("C00000001")} == {"C00000001"}
    finally:
        kv.close()


def test_without_redis_a_change_fails_rather_than_vanish(own_redis: RedisServer) -> None:
    kv = RedisKV.from_url(own_redis.url)
    own_redis.stop()
    try:
        store = SubscriptionStore(kv)
        with pytest.raises(StoreError):
            store.save("C0AAAAAAA", edits("a/b"))
        with pytest.raises(StoreError):
            store.all()
    finally:
        kv.close()
