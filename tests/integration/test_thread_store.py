"""ThreadStore on RedisKV against a real redis-server: what a thread's memory keeps, and for how long."""

from __future__ import annotations

import json

import redis

from bot.core.prompting.conversation import HISTORY_TURN_CHARS, HISTORY_TURNS
from bot.models import Turn
from bot.store.backends.redis_store import PREFIX, RedisKV
from bot.store.threads import THREAD_TTL, TURN_CHARS, TURNS_KEPT, ThreadStore

# Slack's own cap on a message's text: the longest question a person can send.
SLACK_MESSAGE_CHARS = 40_000


def stored_entries(redis_url: str, channel: str, thread_ts: str) -> list[bytes | str]:
    raw = redis.Redis.from_url(redis_url)
    try:
        entries: list[bytes | str] = raw.lrange(f"{PREFIX}turns:{channel}:{thread_ts}", 0, -1)
        return entries
    finally:
        raw.close()


def test_a_40000_character_question_is_stored_clipped_to_the_cap(redis_url: str) -> None:
    threads = ThreadStore(RedisKV.from_url(redis_url))
    threads.add_turn("C1", "1.0", Turn("user", "x" * SLACK_MESSAGE_CHARS, "acme/widgets#7"))
    (entry,) = stored_entries(redis_url, "C1", "1.0")
    assert len(json.loads(entry)["text"]) == TURN_CHARS <= 1200
    assert len(entry) < TURN_CHARS + 100  # the JSON around it, not 38 KB
    assert threads.turns("C1", "1.0") == [Turn("user", "x" * TURN_CHARS, "acme/widgets#7")]


def test_only_the_last_turns_are_kept_for_30_days(redis_url: str) -> None:
    threads = ThreadStore(RedisKV.from_url(redis_url))
    for number in range(20):
        threads.add_turn("C1", "2.0", Turn("user" if number % 2 == 0 else "bot", f"turn {number}"))
    kept = threads.turns("C1", "2.0")
    assert len(kept) == TURNS_KEPT <= 6
    assert [turn.text for turn in kept] == [f"turn {number}" for number in range(20 - TURNS_KEPT, 20)]
    raw = redis.Redis.from_url(redis_url)
    assert 0 < raw.ttl(f"{PREFIX}turns:C1:2.0") <= THREAD_TTL == 30 * 24 * 3600
    raw.close()


def test_the_store_keeps_exactly_what_an_answer_reads() -> None:
    # Less would starve follow-ups; more would keep people's text for 30 days that nothing reads.
    assert (TURNS_KEPT, TURN_CHARS) == (HISTORY_TURNS, HISTORY_TURN_CHARS)
