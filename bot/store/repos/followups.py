"""FollowUpStore: the follow-ups of a repository's merged PRs, kept for later PRs to answer.

- watchpoints:{repo}:{day}   watch_days + 1 days: a hash of "{number}:{language}" → the PR's
  follow-ups in its card of that language, title, merge time and files (core/followups.py
  `FollowUp`), by the UTC day the PR was merged; written whenever a digest with the PR's card
  is posted (again: the same value). One field per language: an English channel and a Chinese
  one following the same repository each keep, and are shown, the points of their own card.
The repository's name is lower case in the key. Every key is the workspace's
(store/workspace.py `scoped`): a card's follow-ups are the repository's, whichever channel
showed it, but a workspace never reads what another one's digests kept. It is a cache: a miss
(expired, Redis away) only means no "answers a follow-up" line.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime, timedelta

from pydantic import TypeAdapter, ValidationError

from bot.core.followups import FollowUp
from bot.models import Language
from bot.store.codec import deferred
from bot.store.kv import DAY, KV
from bot.store.workspace import scoped

_ITEM: TypeAdapter[FollowUp] = deferred(FollowUp)


class FollowUpStore:
    def __init__(self, kv: KV, team: str | None = None) -> None:
        self.kv = kv
        self.team = team

    def _key(self, repo: str, day: date) -> str:
        return scoped(self.team, f"watchpoints:{repo.lower()}:{day.isoformat()}")

    def record(self, items: Iterable[FollowUp], days: int) -> None:
        """Keep `items` for `days` days (a day more, so the last day's reads still find them)."""
        for item in items:
            day = item.merged_at.astimezone(UTC).date()
            field = f"{item.number}:{item.language}"
            self.kv.hset(self._key(item.repo, day), field, _ITEM.dump_json(item), (days + 1) * DAY)

    def between(self, repo: str, start: datetime, end: datetime, language: Language) -> list[FollowUp]:
        """The items of `repo` in `language` merged from `start` to `end` (by UTC day, both days included)."""
        first, last = start.astimezone(UTC).date(), end.astimezone(UTC).date()
        items: list[FollowUp] = []
        for offset in range((last - first).days + 1):
            for field, raw in self.kv.hgetall(self._key(repo, first + timedelta(days=offset))).items():
                if not field.endswith(f":{language}"):
                    continue
                try:
                    items.append(_ITEM.validate_json(raw))
                except ValidationError:
                    continue
        return items
