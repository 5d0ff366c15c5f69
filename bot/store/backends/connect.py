"""Redis, reached only by a process that has REDIS_URL.

Importing redis-py (its asyncio half comes with it) takes about 50 ms, a sixth of a terminal
digest that reads its cards from the cache file. So the client library is imported here, when a
store at a URL is asked for, as llm/lazy.py and sources/lazy.py do for the model and GitHub.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.store.backends.redis_store import RedisKV


def redis_kv(url: str) -> RedisKV:
    """A Redis-backed store at `url` (the caller closes it; imports redis-py)."""
    from bot.store.backends.redis_store import RedisKV

    return RedisKV.from_url(url)
