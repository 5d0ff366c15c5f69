"""Issue 23, item 8, through the served app: a flood of GET /slack/install from one address is
answered 429 with Retry-After once its starts are spent, writes no more OAuth states, and does not
keep someone else from installing."""

from __future__ import annotations

import time
from collections import Counter

import redis
import requests

from bot.workspaces.installs import ADDRESS_STARTS, ADDRESS_WINDOW_SECONDS
from tests.integration.oauth_harness import SECOND, OAuthHarness

FLOODER = "203.0.113.66"  # as our proxy (the harness' loopback peer) forwards it


def states(redis_url: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        return sum(1 for _ in client.scan_iter(match="*oauth_state:*"))
    finally:
        client.close()


def in_one_window() -> None:
    """Start the flood where a whole address window is ahead of it (the count is per minute)."""
    left = ADDRESS_WINDOW_SECONDS - time.time() % ADDRESS_WINDOW_SECONDS
    if left < 5:
        time.sleep(left + 0.1)


def test_a_flood_from_one_address_gets_429_and_writes_no_more_states(oauth: OAuthHarness, redis_url: str) -> None:
    url = f"{oauth.first.url}/slack/install"
    in_one_window()
    answers = [
        requests.get(url, headers={"X-Forwarded-For": f"198.18.0.1, {FLOODER}"}, timeout=10)
        for _ in range(ADDRESS_STARTS + 20)
    ]
    assert [answer.status_code for answer in answers] == [200] * ADDRESS_STARTS + [429] * 20
    assert states(redis_url) == ADDRESS_STARTS
    refused = answers[-1]
    assert 1 <= int(refused.headers["Retry-After"]) <= ADDRESS_WINDOW_SECONDS
    assert (
        refused.text
        == f"Too many installs were started just now. Try again in {refused.headers['Retry-After']} seconds.\n"
    )
    chinese = requests.get(url, headers={"X-Forwarded-For": FLOODER, "Accept-Language": "zh-CN,zh;q=0.9"}, timeout=10)
    assert chinese.status_code == 429 and "秒后重试" in chinese.text

    # Someone else, from their own address, installs as before.
    assert oauth.install(SECOND).status_code == 200
    assert oauth.first.installations.find_workspace(SECOND) is not None


def test_a_flood_from_the_addresses_of_one_ipv6_64_is_one_client_s(oauth: OAuthHarness, redis_url: str) -> None:
    url = f"{oauth.first.url}/slack/install"
    in_one_window()
    with requests.Session() as session:
        answers = Counter(
            session.get(url, headers={"X-Forwarded-For": f"2001:db8:66:1:{n:x}::1"}, timeout=10).status_code
            for n in range(200)
        )
        assert answers == {200: ADDRESS_STARTS, 429: 200 - ADDRESS_STARTS}
        assert states(redis_url) == ADDRESS_STARTS
        # Another /64 of the same /48, another /48, an IPv4 client: none of them is refused.
        for other in ("2001:db8:66:2::1", "2001:db8:77::1", "198.51.100.20"):
            assert session.get(url, headers={"X-Forwarded-For": other}, timeout=10).status_code == 200, other
