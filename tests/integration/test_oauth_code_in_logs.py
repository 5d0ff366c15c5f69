"""An OAuth `code` (Slack's redirect after "Allow", exchanged once for a workspace's token) never
reaches a log line at --debug, in either format: neither slack_sdk's record of the exchange nor
Bolt's warning when the exchange is refused (issue 23, item 9)."""

from __future__ import annotations

import io
import logging
import urllib.parse
from collections.abc import Iterator

import pytest
import requests

from bot.ops.logs import JsonFormatter, PlainFormatter
from bot.ops.redact import MASK
from tests.integration.oauth_harness import SECOND, OAuthHarness, _state_in


@pytest.fixture
def debug_lines() -> Iterator[io.StringIO]:
    """Every logger's lines at debug, as `--debug` writes them, plain and as JSON."""
    stream = io.StringIO()
    handlers = [logging.StreamHandler(stream), logging.StreamHandler(stream)]
    handlers[0].setFormatter(PlainFormatter())
    handlers[1].setFormatter(JsonFormatter())
    root = logging.getLogger()
    level = root.level
    for handler in handlers:
        root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    try:
        yield stream
    finally:
        for handler in handlers:
            root.removeHandler(handler)
        root.setLevel(level)


def test_the_code_of_an_install_is_not_logged(oauth: OAuthHarness, debug_lines: io.StringIO) -> None:
    assert oauth.install(SECOND).status_code == 200
    oauth.settle()
    code = urllib.parse.parse_qs(urllib.parse.urlsplit(oauth.last_redirect[0]).query)["code"][0]

    logged = debug_lines.getvalue()
    assert "oauth.v2.access" in logged  # slack_sdk wrote down the exchange, its body included
    assert code not in logged and MASK in logged


def test_a_refused_code_is_not_logged(oauth: OAuthHarness, debug_lines: io.StringIO) -> None:
    page = requests.get(f"{oauth.first.url}/slack/install", timeout=10)
    cookie = page.headers["Set-Cookie"].split(";")[0]
    code = "8414526601.6202918811.3b2d0c5e7a"  # shaped as Slack's, but never handed out
    query = urllib.parse.urlencode({"code": code, "state": _state_in(page.text)})
    redirect = requests.get(f"{oauth.first.url}/slack/oauth_redirect?{query}", headers={"Cookie": cookie}, timeout=10)

    assert redirect.status_code == 401  # Bolt's answer to invalid_code
    logged = debug_lines.getvalue()
    assert "Failed to fetch oauth.v2.access result" in logged  # Bolt's warning, which names the code
    assert code not in logged
