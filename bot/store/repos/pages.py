"""PageStore: GitHub list pages kept with their ETag, so the next read of a page is conditional.

- page:{sha256 of the request URL}   1 day: {"etag", "link", "body"} of the page's last 200 answer.

GitHub's REST best practices: a GET that sends a page's ETag in If-None-Match is answered 304
when the page has not changed, and "does not count against your primary rate limit" when the
request was authorized. The source (sources/github.py) sends what is kept here and reads the kept
body on 304. A cache: it stays open without Redis (a miss: the page is asked for in full), and a
value another version wrote is a miss. Pages are kept compressed (store/codec.py): a page of 100
PRs' JSON is the largest value a day's digest leaves.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.store import codec
from bot.store.kv import DAY, KV

# A window's list pages are read again by the next digest of the day (another channel, a rerun,
# `/pr digest`); after a day the pulls list has moved on and a past day's listing is kept whole
# by the digest's own cache.
PAGE_TTL = DAY


@dataclass(frozen=True)
class KeptPage:
    etag: str
    link: str  # the page's Link header ("" on the last page): where the next page is
    body: str  # the JSON text GitHub sent


class _Stored(BaseModel):
    model_config = ConfigDict(defer_build=True)

    etag: str
    link: str
    body: str


class PageStore:
    def __init__(self, kv: KV) -> None:
        self._kv = kv

    def get(self, url: str) -> KeptPage | None:
        raw = self._kv.get(_key(url))
        text = codec.unpacked(raw) if raw is not None else None
        if text is None:
            return None
        try:
            stored = _Stored.model_validate_json(text)
        except ValidationError:
            return None  # written by another version: ask for the page in full
        return KeptPage(stored.etag, stored.link, stored.body)

    def put(self, url: str, page: KeptPage) -> None:
        stored = _Stored(etag=page.etag, link=page.link, body=page.body)
        self._kv.set(_key(url), codec.packed(stored.model_dump_json().encode()), PAGE_TTL)


def _key(url: str) -> str:
    # A URL may be long (a search query) and holds no secret, but keys stay short and uniform.
    return f"page:{hashlib.sha256(url.encode()).hexdigest()}"
