"""PageStore keeps a list page with its ETag for a day, compressed; what it cannot read is a miss."""

from __future__ import annotations

import hashlib

from bot.store import codec
from bot.store.backends.memory import MemoryKV
from bot.store.repos.pages import PAGE_TTL, KeptPage, PageStore

URL = "https://api.github.com/repos/o/r/pulls?state=closed"


def test_a_kept_page_comes_back_by_its_url_for_a_day() -> None:
    store = PageStore(MemoryKV())
    page = KeptPage('W/"abc"', '<https://api.github.com/x?page=2>; rel="next"', '[{"number": 1}]')
    store.put(URL, page)
    assert store.get(URL) == page
    assert store.get("https://ghe.example/api/v3/repos/o/r/pulls?state=closed") is None  # another host
    assert PAGE_TTL == 24 * 3600


def test_a_page_another_version_wrote_is_a_miss() -> None:
    kv = MemoryKV()
    store = PageStore(kv)
    store.put(URL, KeptPage("e", "", "[]"))
    key = f"page:{hashlib.sha256(URL.encode()).hexdigest()}"  # the family's documented key
    assert kv.get(key) is not None
    kv.set(key, b'{"etag": 1}', 60)
    assert store.get(URL) is None


def test_a_large_page_is_kept_compressed_and_one_kept_before_as_json_is_still_read() -> None:
    kv = MemoryKV()
    store = PageStore(kv)
    page = KeptPage("e", "", "[" + ", ".join(f'{{"number": {n}, "state": "closed"}}' for n in range(100)) + "]")
    store.put(URL, page)
    key = f"page:{hashlib.sha256(URL.encode()).hexdigest()}"
    stored = kv.get(key)
    assert stored is not None and stored.startswith(codec.ZLIB_MARKER) and len(stored) < len(page.body) // 4
    assert store.get(URL) == page
    plain = codec.unpacked(stored)
    assert isinstance(plain, bytes)
    kv.set(key, plain, 60)  # as a version before compression wrote it
    assert store.get(URL) == page
