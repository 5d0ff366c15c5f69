"""ThreadStore's Stop marks on a real redis-server: one per presser in a thread and one per
stream Slack ended, each for 10 minutes; none on the thread itself."""

from __future__ import annotations

import redis

from bot.core.stops import StopPress
from bot.store.backends.redis_store import PREFIX, RedisKV
from bot.store.threads import STOP_TTL, ThreadStore


def name(key: bytes | str) -> str:
    return key if isinstance(key, str) else key.decode()


def test_a_stop_marks_its_presser_and_its_streams_not_the_thread(redis_url: str) -> None:
    threads = ThreadStore(RedisKV.from_url(redis_url))
    threads.stop(StopPress("C1", "1.0", "U2", 1_700_000_200.5, ("1.5",)))
    assert threads.stopped_at("C1", "1.0", "U2") == 1_700_000_200.5
    assert threads.stopped_at("C1", "1.0", "U1") is None  # the other asker in the thread
    assert threads.stream_stopped("C1", "1.5") and not threads.stream_stopped("C1", "1.4")
    raw = redis.Redis.from_url(redis_url)
    try:
        keys = sorted(name(key) for key in raw.keys(f"{PREFIX}stop:*"))
        assert keys == [f"{PREFIX}stop:C1:1.0:U2", f"{PREFIX}stop:stream:C1:1.5"]
        assert all(0 < raw.ttl(key) <= STOP_TTL == 600 for key in keys)
    finally:
        raw.close()


def test_a_stop_without_a_presser_marks_only_the_streams_slack_listed(redis_url: str) -> None:
    threads = ThreadStore(RedisKV.from_url(redis_url))
    threads.stop(StopPress("C1", "1.0", None, 1_700_000_200.5, ()))
    threads.stop(StopPress("C1", "1.0", None, 1_700_000_200.5, ("1.5",)))
    assert threads.stream_stopped("C1", "1.5")
    raw = redis.Redis.from_url(redis_url)
    try:
        assert [name(key) for key in raw.keys(f"{PREFIX}stop:*")] == [f"{PREFIX}stop:stream:C1:1.5"]
    finally:
        raw.close()
