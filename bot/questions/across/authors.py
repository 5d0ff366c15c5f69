"""Authors: PR authors by the names people call them, for questions that name a person.

A pulls listing carries only the author's login; the display name is on their GitHub profile
(`Source.user_name`, one request per login, outside any PR's budget) and is remembered for a week
(store/repos/authors.py). `Authors.named` says which of a span's logins a typed name is, reading only
the profiles that may be it; `matches_person` says whether what someone typed names an author.
Which PRs a question is about is decided elsewhere, not here.
"""

from __future__ import annotations

import logging
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from bot.core.strings.patterns import lazy
from bot.errors import SourceError
from bot.models import Note
from bot.ports import Source
from bot.store.repos.authors import AuthorStore

log = logging.getLogger(__name__)

# New profile look-ups one call may make. GitHub allows 60 requests an hour without a token
# (docs: "Rate limits for the REST API"); 50 leaves the question's own PR reads some of that hour.
# The names not looked up stay unnamed this time (their logins still match) and come in later calls.
MAX_LOOKUPS = 50


@dataclass(frozen=True)
class Named:
    """Who a typed name is among some logins: each login it names with its display name, best
    first as given; and how many of the profiles that may be it could not be read now (`unread`),
    with GitHub's reason when it gave one (`why`: its rate limit, and when that resets)."""

    people: tuple[tuple[str, str | None], ...] = ()
    unread: int = 0
    why: Note | None = None

    @property
    def logins(self) -> frozenset[str]:
        return frozenset(login for login, _ in self.people)


@dataclass
class _Reading:
    """The profiles one call has read so far, what it may still read, and why it stopped."""

    found: dict[str, str | None]
    budget: int
    unread: int = 0
    why: Note | None = None
    failed: bool = False


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
        reading = _Reading(self._store.cached(wanted), self._max_lookups)
        self._read(wanted, reading)
        return {login: reading.found.get(login) for login in wanted}

    def named(self, said: str, logins: Iterable[str]) -> Named:
        """The logins among `logins` whose display name is what someone typed ("Nick Hill").

        Every remembered name is matched (that costs no request). Profiles are read only for the
        logins that may be the person: first those that share a word of the name ("nhill",
        "yewentao256" for "Wentao Ye"), then those that begin with its initials ("nh2"); the
        others ("DarkLight1337") only when none of those is the person. So one person asked about
        costs a request or two, not one per author of the span.
        """
        wanted = list(dict.fromkeys(logins))
        reading = _Reading(self._store.cached(wanted), self._max_lookups)
        sharing, initialled, others = _likely(said, [login for login in wanted if login not in reading.found])
        self._read(sharing, reading)  # all of them: two people may share the name ("Goin")
        for tier in (initialled, others):
            if _matching(said, wanted, reading.found):
                break  # the person is found: the less likely logins are not asked about
            self._read(tier, reading)
        people = tuple((login, reading.found[login]) for login in _matching(said, wanted, reading.found))
        return Named(people, reading.unread, reading.why)

    def _read(self, logins: Iterable[str], reading: _Reading) -> None:
        """Read the profiles of `logins` not yet known, while the budget lasts and GitHub answers;
        what is left unread is counted."""
        for login in logins:
            if login in reading.found:
                continue
            if reading.failed or reading.budget <= 0:
                reading.unread += 1
                continue
            reading.budget -= 1
            try:
                name = self._source.user_name(login)
            except SourceError as exc:
                log.warning("cannot read the display name of %s (%s); not asking for the others", login, exc)
                reading.failed, reading.why = True, exc.note
                reading.unread += 1
                continue
            self._store.remember(login, name)
            reading.found[login] = name


def _matching(said: str, logins: list[str], found: Mapping[str, str | None]) -> list[str]:
    return [login for login in logins if login in found and matches_person(said, login, found[login])]


# What of a login is compared with a typed name's words: letters and digits ("n-hill" is "nhill").
_LOGIN_PART = lazy(r"[^0-9a-z]+")
# A typed word shares itself with a login by its first letters: "Lucchesi" with "NickLucche",
# "Michael" with "michaelg". Four are enough to be a word's own, not any word's.
SHARED_PREFIX = 4


def _likely(said: str, logins: list[str]) -> tuple[list[str], list[str], list[str]]:
    """`logins` in three tiers of how likely each is the person typed: sharing a word of the
    name; beginning with its initials (in the order typed or reversed); neither."""
    typed = [word for word in _WORD.findall(_fold(said)) if word.isascii()]
    prefixes = {word[:SHARED_PREFIX] for word in typed if len(word) >= 2}
    initials = {"".join(word[0] for word in order) for order in (typed, typed[::-1])} if len(typed) > 1 else set()
    sharing, initialled, others = [], [], []
    for login in logins:
        plain = _LOGIN_PART.sub("", _fold(login))
        if any(prefix in plain for prefix in prefixes):
            sharing.append(login)
        elif any(plain.startswith(start) for start in initials):
            initialled.append(login)
        else:
            others.append(login)
    return sharing, initialled, others


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
