"""Visibility: whether a repository is private, as GitHub says, remembered for an hour.

When GitHub cannot be asked, a repository counts as private: refusing an answer is better
than posting a private PR where it does not belong.
"""

from __future__ import annotations

import logging

from bot.errors import SourceError
from bot.services.ports import Source
from bot.store.kv import KV

log = logging.getLogger(__name__)

# A repository rarely changes visibility; an hour bounds how long a change goes unnoticed.
VISIBILITY_TTL = 3600


class Visibility:
    def __init__(self, source: Source, kv: KV) -> None:
        self._source = source
        self._kv = kv

    def is_private(self, repo: str) -> bool:
        key = f"visibility:{repo.lower()}"
        cached = self._kv.get(key)
        if cached is not None:
            return cached == b"private"
        try:
            private = self._source.is_private(repo)
        except SourceError as exc:
            log.warning("cannot tell whether %s is private (%s); treating it as private", repo, exc)
            return True
        self._kv.set(key, b"private" if private else b"public", VISIBILITY_TTL)
        return private
