"""Where the store's file is without Redis, as the settings read it from the environment."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.settings import load_settings

FILE = Path("prdigest") / "cache.sqlite3"


@pytest.mark.parametrize(
    ("env", "cache", "named"),
    [
        ({"XDG_CACHE_HOME": "/xdg", "HOME": "/home/ada"}, Path("/xdg") / FILE, False),
        ({"HOME": "/home/ada"}, Path("/home/ada/.cache") / FILE, False),
        # The XDG Base Directory spec: a relative path in XDG_CACHE_HOME is invalid and ignored.
        ({"XDG_CACHE_HOME": "relative", "HOME": "/home/ada"}, Path("/home/ada/.cache") / FILE, False),
        ({"XDG_CACHE_HOME": "", "HOME": "/home/ada"}, Path("/home/ada/.cache") / FILE, False),
        ({"PRDIGEST_CACHE": "/data/prdigest.db", "HOME": "/home/ada"}, Path("/data/prdigest.db"), True),
        ({"PRDIGEST_CACHE": "off", "HOME": "/home/ada"}, None, True),
        ({"PRDIGEST_CACHE": " Off ", "HOME": "/home/ada"}, None, True),
        ({"PRDIGEST_CACHE": "", "HOME": "/home/ada"}, Path("/home/ada/.cache") / FILE, False),
        ({}, None, False),  # an environment handed in whole, with no home: memory
    ],
)
def test_the_cache_file_is_found_as_documented(env: dict[str, str], cache: Path | None, named: bool) -> None:
    settings = load_settings({"PRDIGEST_CONFIG": "", **env})
    assert (settings.cache, settings.cache_named) == (cache, named)


def test_a_redis_url_leaves_the_file_unused_but_known() -> None:
    settings = load_settings({"PRDIGEST_CONFIG": "", "HOME": "/home/ada", "REDIS_URL": "redis://localhost:6379/0"})
    assert settings.redis_url and settings.cache == Path("/home/ada/.cache") / FILE
