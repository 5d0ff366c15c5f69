"""Visibility: whether a repository is private, as GitHub says, remembered for an hour.

When GitHub cannot be asked, a repository counts as private: refusing an answer is better
than posting a private PR where it does not belong.
"""

from __future__ import annotations

import logging

from bot.errors import SourceError
from bot.ports import Source
from bot.store.repos.facts import FactStore

log = logging.getLogger(__name__)


class Visibility:
    def __init__(self, source: Source, facts: FactStore) -> None:
        self._source = source
        self._facts = facts

    def is_private(self, repo: str) -> bool:
        cached = self._facts.private(repo)
        if cached is not None:
            return cached
        try:
            private = self._source.is_private(repo)
        except SourceError as exc:
            log.warning("cannot tell whether %s is private (%s); treating it as private", repo, exc)
            return True
        self._facts.remember_private(repo, private)
        return private
