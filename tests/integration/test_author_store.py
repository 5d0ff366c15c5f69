"""AuthorStore on a real Redis: a login's display name, or that it has none, kept for a week under
one shared key per login; a cache that stays open while Redis is away."""

from __future__ import annotations

import redis
from devkit.redis_server import RedisServer

from bot.store.backends.redis_store import PREFIX, RedisKV
from bot.store.repos.authors import AUTHOR_TTL, AuthorStore


def test_names_and_their_absence_are_kept_for_a_week_under_the_lower_cased_login(redis_url: str) -> None:
    kv = RedisKV.from_url(redis_url)
    try:
        store = AuthorStore(kv)
        assert store.cached(["NHill", "anon"]) == {}
        store.remember("NHill", "Nick Hill")
        store.remember("anon", None)
        assert store.cached(["nhill", "anon", "someone"]) == {"nhill": "Nick Hill", "anon": None}
        client = redis.Redis.from_url(redis_url, decode_responses=True)
        assert set(client.keys("*")) == {f"{PREFIX}author:nhill", f"{PREFIX}author:anon"}
        assert AUTHOR_TTL == 7 * 24 * 3600
        assert AUTHOR_TTL - 5 < client.ttl(f"{PREFIX}author:nhill") <= AUTHOR_TTL
        assert client.get(f"{PREFIX}author:anon") == "null"
        client.close()
    finally:
        kv.close()


def test_a_value_another_version_wrote_is_a_miss(redis_url: str) -> None:
    kv = RedisKV.from_url(redis_url)
    try:
        redis.Redis.from_url(redis_url).set(f"{PREFIX}author:nhill", b'{"name": "Nick Hill"}')
        assert AuthorStore(kv).cached(["nhill"]) == {}
    finally:
        kv.close()


def test_without_redis_every_login_is_a_miss_and_nothing_fails(own_redis: RedisServer) -> None:
    kv = RedisKV.from_url(own_redis.url)
    try:
        store = AuthorStore(kv)
        store.remember("nhill", "Nick Hill")
        own_redis.stop()
        assert store.cached(["nhill"]) == {}
        store.remember("anon", None)  # dropped
    finally:
        kv.close()
