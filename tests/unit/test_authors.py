"""Authors: a PR author's display name from the week's cache or one profile read per login, at most
a bounded number per call, and for a typed name only the profiles that may be that person's; and
which typed names match an author (a login whole, a name's words)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from devkit.doubles import FakeSource

from bot.errors import RateLimited, SourceUnreachable
from bot.questions.across.authors import Authors, matches_person
from bot.store.backends.memory import MemoryKV
from bot.store.repos.authors import AuthorStore
from bot.words import said

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


# A span's authors, as a busy week has them: many logins, none of them a name.
CROWD: dict[str, str | Exception | None] = {f"dev{i}": f"Developer Number{i}" for i in range(60)}


def test_a_name_reads_only_the_profiles_of_logins_that_share_a_word_with_it() -> None:
    # "nhill" comes after 60 others, past the bound of look-ups one call may make.
    source = FakeSource(people={**CROWD, "nhill": "Nick Hill", "hillary": "Hillary Dev"})
    named = authors(source).named("Nick Hill", [*CROWD, "hillary", "nhill"])
    assert named.people == (("nhill", "Nick Hill"),) and named.unread == 0
    assert source.named == ["hillary", "nhill"]  # both share "hill"; no one else is asked


def test_a_one_word_name_is_found_by_the_logins_that_share_it() -> None:
    source = FakeSource(people={**CROWD, "nhill": "Nick Hill"})
    named = authors(source).named("Hill", [*CROWD, "nhill"])
    assert named.people == (("nhill", "Nick Hill"),) and source.named == ["nhill"]


def test_logins_with_the_names_initials_come_before_the_others() -> None:
    source = FakeSource(people={**CROWD, "mg42": "Michael Goin"})
    named = authors(source).named("Michael Goin", [*CROWD, "mg42"])
    assert named.people == (("mg42", "Michael Goin"),) and source.named == ["mg42"]


def test_a_login_that_shares_nothing_with_the_name_is_read_when_no_likelier_one_is_them() -> None:
    crowd = {f"dev{i}": f"Developer Number{i}" for i in range(5)}
    source = FakeSource(people={**crowd, "darklight1337": "Cyrus Leung", "cyrusfan": "Fan Of Cyrus"})
    named = authors(source).named("Cyrus Leung", [*crowd, "darklight1337", "cyrusfan"])
    assert named.people == (("darklight1337", "Cyrus Leung"),)
    # "cyrusfan" shares "cyrus" and is read first; it is not him, so the others are read too.
    assert source.named == ["cyrusfan", *crowd, "darklight1337"]


def test_a_name_two_people_share_names_both() -> None:
    source = FakeSource(people={**CROWD, "mgoin": "Michael Goin", "mishagoin": "Misha Goin"})
    named = authors(source).named("Goin", [*CROWD, "mgoin", "mishagoin"])
    assert named.people == (("mgoin", "Michael Goin"), ("mishagoin", "Misha Goin"))
    assert source.named == ["mgoin", "mishagoin"]
    assert authors(FakeSource(people=source.people)).named("Michael Goin", ["mgoin", "mishagoin"]).people == (
        ("mgoin", "Michael Goin"),
    )


def test_remembered_names_are_matched_without_asking_github() -> None:
    kv = MemoryKV()
    AuthorStore(kv).remember("darklight1337", "Cyrus Leung")
    source = FakeSource(people=CROWD)
    named = authors(source, kv).named("Cyrus Leung", [*CROWD, "darklight1337"])
    assert named.people == (("darklight1337", "Cyrus Leung"),) and source.named == []


def test_names_the_rate_limit_keeps_unread_are_counted_with_when_it_resets() -> None:
    reset = datetime(2026, 8, 14, 10, 5, tzinfo=UTC)
    crowd = {f"dev{i}": f"Developer Number{i}" for i in range(4)}
    source = FakeSource(people={**crowd, "dev1": RateLimited(reset, authenticated=False)})
    named = authors(source).named("Nick Hill", list(crowd))
    assert named.people == () and named.unread == 3  # dev1, and the two never asked
    assert source.named == ["dev0", "dev1"]
    assert named.why is not None and "used up until 10:05 UTC" in said("en", named.why)


def test_names_past_the_bound_are_counted_unread() -> None:
    source = FakeSource(people=CROWD)
    named = authors(source, max_lookups=10).named("Jane Roe", list(CROWD))
    assert named.people == () and named.unread == 50 and named.why is None
    assert len(source.named) == 10
