"""MemoryKV: the KV port in this process only, for the CLI without REDIS_URL and for tests.

Nothing survives the process and nothing is shared with another one. It is never away, so its
strict view is itself.
"""

from __future__ import annotations

import threading
import time
from typing import Any

FOREVER = float("inf")


class MemoryKV:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._data: dict[str, tuple[Any, float]] = {}

    def _live(self, key: str) -> Any:
        held = self._data.get(key)
        if held is None:
            return None
        if held[1] <= time.monotonic():
            del self._data[key]
            return None
        return held[0]

    def _put(self, key: str, value: Any, ttl: float | None) -> None:
        self._data[key] = (value, FOREVER if ttl is None else time.monotonic() + ttl)

    def strict(self) -> MemoryKV:
        return self

    @property
    def degraded(self) -> bool:
        return False

    def get(self, key: str) -> bytes | None:
        with self._lock:
            value = self._live(key)
            return value if isinstance(value, bytes) else None

    def set(self, key: str, value: bytes, ttl: int | None) -> None:
        with self._lock:
            self._put(key, value, ttl)

    def set_nx(self, key: str, value: bytes, ttl_ms: int) -> bool:
        with self._lock:
            if self._live(key) is not None:
                return False
            self._put(key, value, ttl_ms / 1000)
            return True

    def delete(self, key: str) -> None:
        with self._lock:
            self._data.pop(key, None)

    def delete_if(self, key: str, value: bytes) -> bool:
        with self._lock:
            if self._live(key) == value:
                del self._data[key]
                return True
            return False

    def renew(self, key: str, value: bytes, ttl_ms: int) -> bool:
        with self._lock:
            if self._live(key) != value:
                return False
            self._put(key, value, ttl_ms / 1000)
            return True

    def exists(self, key: str) -> bool:
        with self._lock:
            return self._live(key) is not None

    def hset(self, key: str, field: str, value: bytes, ttl: int | None) -> None:
        with self._lock:
            current = self._live(key)
            mapping = dict(current) if isinstance(current, dict) else {}
            mapping[field] = value
            self._put(key, mapping, ttl)

    def hset_held(self, key: str, field: str, value: bytes, ttl: int | None, *, lease: str, token: bytes) -> bool:
        with self._lock:
            if self._live(lease) != token:
                return False
            current = self._live(key)
            mapping = dict(current) if isinstance(current, dict) else {}
            mapping[field] = value
            self._put(key, mapping, ttl)
            return True

    def hgetall(self, key: str) -> dict[str, bytes]:
        with self._lock:
            current = self._live(key)
            return dict(current) if isinstance(current, dict) else {}

    def hincrby(self, key: str, amounts: dict[str, int], ttl: int) -> None:
        with self._lock:
            current = self._live(key)
            mapping = dict(current) if isinstance(current, dict) else {}
            for name, amount in amounts.items():
                mapping[name] = str(int(mapping.get(name, b"0")) + amount).encode()
            self._put(key, mapping, ttl)

    def hincrby_below(
        self, key: str, field: str, amount: int, *, counted: tuple[str, ...], limit: int, ttl: int
    ) -> bool | None:
        with self._lock:
            current = self._live(key)
            mapping = dict(current) if isinstance(current, dict) else {}
            if sum(int(mapping.get(name, b"0")) for name in counted) >= limit:
                return False
            mapping[field] = str(int(mapping.get(field, b"0")) + amount).encode()
            self._put(key, mapping, ttl)
            return True

    def incr(self, key: str, ttl_ms: int) -> int:
        with self._lock:
            held = self._live(key)
            if not isinstance(held, bytes):
                self._put(key, b"1", ttl_ms / 1000)
                return 1
            count = int(held) + 1
            self._data[key] = (str(count).encode(), self._data[key][1])  # the window's end stays
            return count

    def push(self, key: str, value: bytes, keep: int, ttl: int) -> None:
        with self._lock:
            current = self._live(key)
            values = list(current) if isinstance(current, list) else []
            values.append(value)
            self._put(key, values[-keep:], ttl)

    def items(self, key: str) -> list[bytes]:
        with self._lock:
            current = self._live(key)
            return list(current) if isinstance(current, list) else []

    def hdel(self, key: str, field: str) -> None:
        with self._lock:
            current = self._live(key)
            if isinstance(current, dict):
                current.pop(field, None)
                if not current:
                    del self._data[key]

    def delete_prefix(self, prefix: str) -> int:
        with self._lock:
            doomed = [key for key in self._data if key.startswith(prefix)]
            for key in doomed:
                del self._data[key]
            return len(doomed)
