"""Authors: a PR author's display name from the week's cache or one profile read per login, at most
a bounded number per call; and which typed names match an author (a login whole, a name's words)."""

from __future__ import annotations

import pytest
from devkit.doubles import FakeSource

from bot.errors import RateLimited, SourceUnreachable
from bot.services.authors import Authors, matches_person
from bot.store.authors import AuthorStore
from bot.store.memory import MemoryKV

# (what was typed, login, display name, whether it names that author)
CASES = [
    ("Nick Hill", "nhill", "Nick Hill", True),
    ("nick hill", "nhill", "Nick Hill", True),
    ("NICK HILL", "nhill", "Nick Hill", True),
    ("Nick", "nhill", "Nick Hill", True),
    ("hill", "nhill", "Nick Hill", True),
    ("Hill Nick", "nhill", "Nick Hill", True),  # family name first, as many write it
    ("  Nick   Hill? ", "nhill", "Nick Hill", True),
    ("@nhill", "nhill", "Nick Hill", True),
    ("nhill", "nhill", "Nick Hill", True),
    ("NHill", "nhill", None, True),  # a login needs no display name
    ("Kevin Luu", "kluu", "Kevin H. Luu", True),  # the middle initial may be left out
    ("Wayne", "wchiu", "Wei-Cheng (Wayne) Chiu", True),
    ("Beller-Morales", "wbeller-morales", "Walter Beller-Morales", True),
    ("nicolo", "nlucchesi", "Nicolò Lucchesi", True),  # accents do not count
    ("Crnčević", "ecrncevic", "Elvir Crnčević", True),
    ("dependabot", "dependabot[bot]", None, True),  # a bot without its [bot]
    ("范裕达", "fanyuda", "范裕达", True),
    ("Nic", "nhill", "Nick Hill", False),  # part of a word is not the word
    ("ill", "nhill", "Nick Hill", False),
    ("Nicholas", "nhill", "Nick Hill", False),
    ("Nick Smith", "nhill", "Nick Hill", False),  # every word typed must be in the name
    ("Nick Nick", "nhill", "Nick Hill", False),
    ("Nick", "nhill", None, False),  # no name: only the login matches
    ("nhil", "nhill", "Nick Hill", False),  # a login matches whole
    ("hill", "nhillman", None, False),
    ("@", "nhill", "Nick Hill", False),
    ("", "nhill", "Nick Hill", False),
    ("Nick", "nick-dev", "", False),  # an empty name is no name
    ("裕达", "fanyuda", "范裕达", False),
]


@pytest.mark.parametrize(("said", "login", "name", "expected"), CASES)
def test_what_a_person_typed_names_an_author(said: str, login: str, name: str | None, expected: bool) -> None:
    assert matches_person(said, login, name) is expected


def authors(source: FakeSource, kv: MemoryKV | None = None, max_lookups: int = 50) -> Authors:
    return Authors(source, AuthorStore(kv or MemoryKV()), max_lookups=max_lookups)


def test_names_are_asked_once_per_login_and_then_come_from_the_cache() -> None:
    source = FakeSource(people={"nhill": "Nick Hill", "anon": None})
    kv = MemoryKV()
    assert authors(source, kv).names(["nhill", "anon", "nhill", "gone"]) == {
        "nhill": "Nick Hill",
        "anon": None,
        "gone": None,  # no such account
    }
    assert source.named == ["nhill", "anon", "gone"]
    # Another call (another replica's, sharing the store): nameless accounts are remembered too.
    assert authors(source, kv).names(["gone", "anon", "nhill"]) == {"gone": None, "anon": None, "nhill": "Nick Hill"}
    assert source.named == ["nhill", "anon", "gone"]


def test_at_most_the_bound_of_new_lookups_is_made_per_call() -> None:
    people: dict[str, str | Exception | None] = {f"dev{i}": f"Dev {i}" for i in range(5)}
    source = FakeSource(people=people)
    kv = MemoryKV()
    first = authors(source, kv, max_lookups=3).names(people)
    assert first == {"dev0": "Dev 0", "dev1": "Dev 1", "dev2": "Dev 2", "dev3": None, "dev4": None}
    assert source.named == ["dev0", "dev1", "dev2"]
    # The next call starts where the cache ends.
    second = authors(source, kv, max_lookups=3).names(people)
    assert second == {f"dev{i}": f"Dev {i}" for i in range(5)}
    assert source.named == ["dev0", "dev1", "dev2", "dev3", "dev4"]


def test_a_failure_leaves_that_login_unnamed_and_stops_asking_the_rest() -> None:
    kv = MemoryKV()
    AuthorStore(kv).remember("cached", "Cached Person")
    source = FakeSource(
        people={"nhill": "Nick Hill", "limited": RateLimited(None, authenticated=False), "kluu": "Kevin H. Luu"}
    )
    assert authors(source, kv).names(["nhill", "limited", "kluu", "cached"]) == {
        "nhill": "Nick Hill",
        "limited": None,
        "kluu": None,
        "cached": "Cached Person",  # the cache still answers
    }
    assert source.named == ["nhill", "limited"]
    # What failed is not remembered: it is asked again once GitHub answers.
    source.people["limited"] = SourceUnreachable("user limited", "https://api.github.com", "ConnectTimeout")
    authors(source, kv).names(["limited"])
    assert source.named == ["nhill", "limited", "limited"]
