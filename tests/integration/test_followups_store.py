"""FollowUpStore on a real Redis: a repository's follow-ups by merge day, per workspace, with their TTL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
import redis

from bot.core.followups import FollowUp
from bot.store.backends.redis_store import RedisKV
from bot.store.kv import DAY
from bot.store.repos.followups import FollowUpStore

REPO = "vllm-project/vllm"
AUG3 = datetime(2026, 8, 3, 23, 30, tzinfo=UTC)


@pytest.fixture
def kv(redis_url: str) -> Iterator[RedisKV]:
    backend = RedisKV.from_url(redis_url)
    yield backend
    backend.close()


def item(number: int, merged_at: datetime, repo: str = REPO) -> FollowUp:
    return FollowUp(
        repo,
        number,
        f"PR {number}",
        f"https://github.com/{repo}/pull/{number}",
        merged_at,
        ("Whether FP8 gets a test on Blackwell",),
        ("vllm/a.py",),
        f"{number:040x}",
    )


def test_items_are_read_back_by_merge_day_and_repository(kv: RedisKV) -> None:
    store = FollowUpStore(kv)
    store.record([item(1, AUG3), item(2, AUG3 + timedelta(days=2)), item(3, AUG3, "acme/widgets")], days=30)
    store.record([item(1, AUG3)], days=30)  # the same digest posted again: the same value
    assert store.between(REPO, AUG3, AUG3, "en") == [item(1, AUG3)]
    assert sorted(
        found.number for found in store.between("VLLM-Project/vllm", AUG3, AUG3 + timedelta(days=5), "en")
    ) == [
        1,
        2,
    ]
    assert store.between(REPO, AUG3 + timedelta(days=1), AUG3 + timedelta(days=1), "en") == []
    assert [found.number for found in store.between("acme/widgets", AUG3, AUG3, "en")] == [3]


def test_items_are_kept_per_workspace_for_watch_days(kv: RedisKV, redis_url: str) -> None:
    FollowUpStore(kv, "T0AAA").record([item(1, AUG3)], days=7)
    assert FollowUpStore(kv).between(REPO, AUG3, AUG3, "en") == []
    assert FollowUpStore(kv, "T0BBB").between(REPO, AUG3, AUG3, "en") == []
    assert FollowUpStore(kv, "T0AAA").between(REPO, AUG3, AUG3, "en") == [item(1, AUG3)]
    raw = redis.Redis.from_url(redis_url)
    keys = raw.keys("*watchpoints:vllm-project/vllm:2026-08-03")
    assert [key if isinstance(key, str) else key.decode() for key in keys] == [
        "prdigest:v1:team:T0AAA:watchpoints:vllm-project/vllm:2026-08-03"
    ]
    assert 8 * DAY - 5 < raw.ttl(keys[0]) <= 8 * DAY
    raw.close()


def test_an_unreadable_entry_is_skipped(kv: RedisKV) -> None:
    store = FollowUpStore(kv, "T0CCC")
    store.record([item(1, AUG3)], days=30)
    kv.hset("team:T0CCC:watchpoints:vllm-project/vllm:2026-08-03", "2:en", b"{not json", DAY)
    assert store.between(REPO, AUG3, AUG3, "en") == [item(1, AUG3)]


def test_each_language_keeps_and_reads_its_own_cards_points(kv: RedisKV) -> None:
    store = FollowUpStore(kv)
    chinese = replace(item(1, AUG3), points=("是否会在 Blackwell 上补充 FP8 测试",), language="zh-CN")
    store.record([item(1, AUG3), chinese], days=30)
    assert store.between(REPO, AUG3, AUG3, "en") == [item(1, AUG3)]
    assert store.between(REPO, AUG3, AUG3, "zh-CN") == [chinese]
