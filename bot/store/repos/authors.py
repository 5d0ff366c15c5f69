"""AuthorStore: the display name GitHub shows for each PR author's login, remembered for a week.

- author:{login}   7 days: the profile's name, or that it has none (JSON null), for the login in
  lower case (GitHub ignores case in logins).

A name is GitHub's, the same in every workspace, so the key is not scoped. A cache: it stays
open without Redis (a miss, and GitHub is asked again); a value another version wrote is a miss.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import TypeAdapter, ValidationError

from bot.store.codec import deferred
from bot.store.kv import DAY, KV

# People rarely rename their profile; a week keeps a question from spending one GET /users per
# author (60 an hour without a token) and bounds how long a new name goes unmatched.
AUTHOR_TTL = 7 * DAY

_NAME: TypeAdapter[str | None] = deferred(str | None)


class AuthorStore:
    def __init__(self, kv: KV) -> None:
        self._kv = kv

    def cached(self, logins: Iterable[str]) -> dict[str, str | None]:
        """The names remembered for these logins (None: known to have none); a login not
        remembered is absent."""
        found: dict[str, str | None] = {}
        for login in logins:
            raw = self._kv.get(_key(login))
            if raw is None:
                continue
            try:
                found[login] = _NAME.validate_json(raw)
            except ValidationError:
                continue  # written by another version: ask GitHub again
        return found

    def remember(self, login: str, name: str | None) -> None:
        """Keep `login`'s name for a week; None too, so a nameless account is not asked again."""
        self._kv.set(_key(login), _NAME.dump_json(name), AUTHOR_TTL)


def _key(login: str) -> str:
    return f"author:{login.lower()}"
