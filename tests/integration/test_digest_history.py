"""DigestHistory on a real Redis: what each channel's digests showed, per day and per workspace."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from bot.core.links import Shown
from bot.store.backends.redis_store import RedisKV
from bot.store.history import HISTORY_TTL, DigestHistory


@pytest.fixture
def kv(redis_url: str) -> Iterator[RedisKV]:
    backend = RedisKV.from_url(redis_url)
    yield backend
    backend.close()


def shown(number: int, day: str, thread: str = "1.0") -> Shown:
    return Shown("vllm-project/vllm", number, f"PR {number}", f"{number:040x}", day, thread, None)


def test_history_gives_the_earlier_days_of_this_channel_only(kv: RedisKV) -> None:
    history = DigestHistory(kv)
    history.record("C1", [shown(1, "2026-08-03"), shown(2, "2026-08-03")])
    history.record("C1", [shown(3, "2026-08-04", "2.0")])
    history.record("C2", [shown(4, "2026-08-03")])
    assert sorted(entry.number for entry in history.before("C1", "2026-08-04")) == [1, 2]
    assert sorted(entry.number for entry in history.before("C1", "2026-08-05")) == [1, 2, 3]
    assert [entry.number for entry in history.before("C2", "2026-08-05")] == [4]
    assert history.before("C1", "2026-08-05", days=1)[0] == shown(3, "2026-08-04", "2.0")


def test_history_is_kept_per_workspace_and_expires(kv: RedisKV, redis_url: str) -> None:
    DigestHistory(kv, "T0AAA").record("C1", [shown(1, "2026-08-03")])
    assert DigestHistory(kv).before("C1", "2026-08-04") == []
    assert DigestHistory(kv, "T0BBB").before("C1", "2026-08-04") == []
    assert [entry.number for entry in DigestHistory(kv, "T0AAA").before("C1", "2026-08-04")] == [1]
    raw = redis.Redis.from_url(redis_url)
    keys = raw.keys("*shown:C1:2026-08-03")
    assert [key if isinstance(key, str) else key.decode() for key in keys] == [
        "prdigest:v1:team:T0AAA:shown:C1:2026-08-03"
    ]
    assert HISTORY_TTL - 5 < raw.ttl(keys[0]) <= HISTORY_TTL
    raw.close()
