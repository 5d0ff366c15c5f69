"""Authors through the real PyGithub client against the fake GitHub and a real Redis: a day of the
shared data set, whose listings carry logins only, matched by the names people call their authors."""

from __future__ import annotations

from devkit.fakes import dataset
from devkit.fakes.github import FakeGitHub

from bot.models import Window
from bot.services.authors import Authors, matches_person
from bot.store.authors import AuthorStore
from bot.store.redis_store import RedisKV
from tests.integration.conftest import REPO, ServicesFactory, day, settings_for
from tests.shared_data import shared_rows


def test_a_days_authors_are_named_with_one_request_each_then_from_the_cache(
    github: FakeGitHub, make_services: ServicesFactory, redis_url: str
) -> None:
    rows = dataset.merged_on(shared_rows(), "2026-08-05")
    dataset.populate(github, rows, REPO)
    source = make_services(settings_for(github), now=day(30)).source
    listings = source.list_merged(REPO, Window(day(0), day(24)))
    logins = [listing.author for listing in listings]
    assert "Nick-Hill" not in logins and "Nick Hill" not in logins
    kv = RedisKV.from_url(redis_url)
    try:
        github.reset_requests()
        names = Authors(source, AuthorStore(kv)).names(logins)
        assert names == {dataset.login_of(row["author"]): row["author"] for row in rows}
        assert sorted(request.path for request in github.requests) == sorted(f"/users/{login}" for login in names)

        github.reset_requests()
        assert Authors(source, AuthorStore(kv)).names(logins) == names
        assert github.requests == []
    finally:
        kv.close()

    hill = {
        listing.number for listing in listings if matches_person("Nick Hill", listing.author, names[listing.author])
    }
    assert hill == {row["number"] for row in rows if row["author"] == "Nick Hill"} != set()
    by_login = {listing.number for listing in listings if matches_person("@nhill", listing.author, None)}
    assert by_login == hill
