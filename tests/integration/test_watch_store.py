"""WatchStore on a real Redis: one hash of every person's watches per workspace, under the
workspace's prefix, kept until removed; the commands' reads and writes fail closed."""

from __future__ import annotations

import pytest
import redis
from devkit.redis_server import RedisServer

from bot.core.watches import Watch
from bot.errors import StoreError
from bot.store.backends.redis_store import PREFIX, RedisKV
from bot.store.watches import WATCH_TTL, WatchStore

PATH = Watch("acme/widgets", "path", pattern="src/**")
PR = Watch("acme/widgets", "pr", number=7)


def test_each_person_keeps_their_own_watches_in_one_key_per_workspace(redis_url: str) -> None:
    kv = RedisKV.from_url(redis_url)
    try:
        single, team = WatchStore(kv), WatchStore(kv, team="T0OTHER1")
        single.add("U1", PATH)
        single.add("U1", PR)
        single.add("U2", PATH)
        team.add("U1", PR)
        assert single.of("U1") == [PR, PATH] and single.of("U2") == [PATH] and single.of("U3") == []
        assert team.everyone() == {"U1": [PR]}
        client = redis.Redis.from_url(redis_url, decode_responses=True)
        assert set(client.keys("*")) == {f"{PREFIX}watches", f"{PREFIX}team:T0OTHER1:watches"}
        assert 0 < client.ttl(f"{PREFIX}watches") <= WATCH_TTL
        # The same watch typed with another spelling of the repository is the same field.
        single.add("U1", Watch("ACME/Widgets", "path", pattern="src/**"))
        assert len(single.of("U1")) == 2
        single.remove("U1", PATH)
        assert single.of("U1") == [PR] and single.everyone() == {"U1": [PR], "U2": [PATH]}
    finally:
        kv.close()


def test_a_field_another_version_wrote_is_skipped(redis_url: str) -> None:
    kv = RedisKV.from_url(redis_url)
    try:
        store = WatchStore(kv)
        store.add("U1", PATH)
        redis.Redis.from_url(redis_url).hset(f"{PREFIX}watches", "U1 acme/widgets ???", b'{"kind": "label"}')
        assert store.of("U1") == [PATH]
    finally:
        kv.close()


def test_the_commands_fail_closed_and_the_scheduler_reads_nothing_while_redis_is_away(own_redis: RedisServer) -> None:
    kv = RedisKV.from_url(own_redis.url)
    try:
        store = WatchStore(kv)
        store.add("U1", PATH)
        own_redis.stop()
        with pytest.raises(StoreError):
            store.add("U1", PR)
        with pytest.raises(StoreError):
            store.of("U1")
        assert store.everyone() == {}
    finally:
        kv.close()
