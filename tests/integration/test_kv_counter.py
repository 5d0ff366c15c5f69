"""The KV port's counter, held by every backend: it counts from one within a fixed window, which
its first call opens and nothing later extends (the install rate limit rests on that)."""

from __future__ import annotations

import time

from bot.store.kv import KV
from tests.integration import test_kv_contract

kv = test_kv_contract.kv  # the contract's fixture: each test runs on each backend


def test_a_counter_counts_within_the_window_its_first_call_opened(kv: KV) -> None:
    kv.delete("starts")
    assert [kv.incr("starts", ttl_ms=1000) for _ in range(3)] == [1, 2, 3]
    assert kv.get("starts") == b"3"
    time.sleep(0.5)
    assert kv.incr("starts", ttl_ms=1000) == 4  # later calls do not push the window's end
    time.sleep(0.6)
    assert kv.incr("starts", ttl_ms=1000) == 1
