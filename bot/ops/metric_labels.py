"""The repository a metric may name: a bounded label set, free of private and tenant names.

A repository keeps its name in a label (`prdigest_model_tokens_by_repo_total{repo}`) only when
the operator lists it in the config file's `[[channels]]` and GitHub says it is public; every
other one is counted under `other`. Why those two conditions:
- bounded: the file is the operator's, so nobody in Slack (a channel's `/pr follow`, another
  workspace in OAuth mode, whose repository names that workspace chooses) can add a series;
- not private: scrapes are stored and shown by a monitoring system whose readers are not the
  channel's members, and a private repository's name is its organisation's to tell.
The file is read first, so a name outside it costs nothing; one in it is looked up through
access/visibility.py (remembered an hour). When GitHub or the store cannot say, the repository
counts as private, so a lookup that fails only folds it into `other`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from bot.errors import StoreError

OTHER = "other"


class RepoLabels:
    """`label(repo)`: the repository's name for a metric's label, or OTHER."""

    def __init__(self, named: Iterable[str], is_private: Callable[[str], bool]) -> None:
        self._named = frozenset(repo.lower() for repo in named)
        self._is_private = is_private

    def label(self, repo: str) -> str:
        key = repo.lower()
        if key not in self._named:
            return OTHER
        try:
            private = self._is_private(key)
        except StoreError:  # Redis away: the visibility is unknown, so it is kept back
            return OTHER
        return OTHER if private else key
