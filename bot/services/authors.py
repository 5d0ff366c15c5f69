"""Authors: PR authors by the names people call them, for questions that name a person.

A pulls listing carries only the author's login; the display name is on their GitHub profile
(`Source.user_name`, one request per login, outside any PR's budget) and is remembered for a week
(store/authors.py). `Authors.names` says each login's name; `matches_person` says whether what
someone typed names an author. Which PRs a question is about is decided elsewhere, not here.
"""

from __future__ import annotations

import logging
import unicodedata
from collections import Counter
from collections.abc import Iterable

from bot.core.patterns import lazy
from bot.errors import SourceError
from bot.ports import Source
from bot.store.authors import AuthorStore

log = logging.getLogger(__name__)

# New profile look-ups one call may make. GitHub allows 60 requests an hour without a token
# (docs: "Rate limits for the REST API"); 50 leaves the question's own PR reads some of that hour.
# The names not looked up stay unnamed this time (their logins still match) and come in later calls.
MAX_LOOKUPS = 50


class Authors:
    def __init__(self, source: Source, store: AuthorStore, *, max_lookups: int = MAX_LOOKUPS) -> None:
        self._source = source
        self._store = store
        self._max_lookups = max_lookups

    def names(self, logins: Iterable[str]) -> dict[str, str | None]:
        """Each login's display name (None: it has none, or it could not be asked now).

        The cache first; then GitHub, in the logins' order, for at most `max_lookups` of those
        it lacks. Once GitHub fails (a rate limit, an outage) the rest are not asked: each would
        fail the same way and spend a request doing it.
        """
        wanted = list(dict.fromkeys(logins))
        found = self._store.cached(wanted)
        budget = self._max_lookups
        for login in wanted:
            if login in found:
                continue
            found[login] = None
            if budget <= 0:
                continue
            budget -= 1
            try:
                name = self._source.user_name(login)
            except SourceError as exc:
                log.warning("cannot read the display name of %s (%s); not asking for the others", login, exc)
                budget = 0
                continue
            self._store.remember(login, name)
            found[login] = name
        return {login: found[login] for login in wanted}


# Where what someone typed may begin or end without being part of the name ("Nick Hill?", "'nhill'").
_EDGES = " \t\r\n\"'`“”‘’.,;:!?()"
_WORD = lazy(r"\w+")
_BOT_SUFFIX = "[bot]"


def matches_person(said: str, login: str, name: str | None) -> bool:
    """Whether `said` (what a person typed) names the author with this login and display name.

    The login matches whole, with or without an "@" ("nhill", "@nhill"; a bot's also without its
    "[bot]"). Otherwise every word typed must be a whole word of the display name, in any order
    ("Nick Hill", "nick", "Hill", "Hill Nick"): a first name alone names whoever has it as a
    word, and never part of a longer word ("Nic" is not "Nick", "ill" is not "Hill"). Case and
    accents do not count ("nicolo" is "Nicolò").
    """
    typed = _fold(said).strip(_EDGES).removeprefix("@").strip(_EDGES)
    if not typed:
        return False
    handle = _fold(login)
    if typed in (handle, handle.removesuffix(_BOT_SUFFIX)):
        return True
    words = Counter(_WORD.findall(typed))
    if not words or not name:
        return False
    return not words - Counter(_WORD.findall(_fold(name)))


def _fold(text: str) -> str:
    """`text` without case or accents: NFKD splits "ò" into "o" and a combining mark, dropped here."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if not unicodedata.combining(char)).casefold()
