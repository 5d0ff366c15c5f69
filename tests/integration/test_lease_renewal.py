"""A digest whose post lease cannot be renewed stops before its next message, even though the
ledger still answers: meanwhile another replica may have taken the lease and be posting. The next
run finishes the thread from the ledger, each message once.

Only the renewal fails here: Redis refuses scripts (the lease's compare-and-extend is one) through
its ACL, while the ledger's plain reads and writes go on working.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.redis_server import RedisServer

from bot.digests.lease import LeaseLost
from bot.models import DigestOptions, Filters
from bot.slack.app import SlackParts
from bot.store.backends.redis_store import RedisKV
from bot.store.ledger import PostLedger
from bot.wiring.process import build_process
from bot.wiring.slack import slack_app, wire_slack
from bot.wiring.timing import Timing
from tests.integration.conftest import REPO
from tests.integration.slack_harness import CONFIG, DIGEST_CHANNEL, app_settings, wait_for
from tests.integration.test_redis_outage import POST_TIME
from tests.integration.test_reliability import DAY, WINDOW, add_prs, good_card

# Renewed every second. Shorter leases were lost before the first post on a loaded machine: 40
# cards made on many threads kept the heartbeat from its turn for longer than two thirds of one.
LEASE_SECONDS = 3.0


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def parts(
    github: FakeGitHub, model: FakeOpenAI, slack: FakeSlack, own_redis: RedisServer, tmp_path: Path
) -> Iterator[SlackParts]:
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG, encoding="utf-8")
    timing = Timing(now=lambda: POST_TIME, model_retries=0, pace=0.0, post_lease_seconds=LEASE_SECONDS)
    services = build_process(
        app_settings(github, model, slack, own_redis.url, config), timing, warn=lambda message: None
    )
    try:
        yield slack_app(wire_slack(services))
    finally:
        services.close()


def heartbeat_alive() -> bool:
    return any(thread.name == f"lease-{DIGEST_CHANNEL}" and thread.is_alive() for thread in threading.enumerate())


def run(parts: SlackParts) -> Any:
    return parts.digests.run(DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("en", Filters(), "note"))


def test_a_lease_that_cannot_be_renewed_stops_the_next_post_while_the_ledger_still_answers(
    github: FakeGitHub, model: FakeOpenAI, slack: FakeSlack, own_redis: RedisServer, parts: SlackParts
) -> None:
    add_prs(github, 40)  # a lead and several thread messages
    model.responder = good_card
    admin = redis.Redis.from_url(own_redis.url)
    post = parts.client.chat_postMessage

    def post_then_refuse_renewals(**kwargs: Any) -> Any:
        response = post(**kwargs)
        if len(slack.calls("chat.postMessage")) == 2:
            admin.execute_command("ACL", "SETUSER", "default", "-@scripting")
            # The heartbeat's next renewal is refused; it gives the lease up and ends.
            wait_for(lambda: not heartbeat_alive(), timeout=10)
        return response

    parts.client.chat_postMessage = post_then_refuse_renewals  # type: ignore[method-assign]
    try:
        with pytest.raises(LeaseLost):
            run(parts)
        assert len(slack.calls("chat.postMessage")) == 2
        kv = RedisKV.from_url(own_redis.url)
        assert {"part:0", "part:1"} <= set(PostLedger(kv).entries(DIGEST_CHANNEL, DAY))  # it answered throughout
        kv.close()
        # Its release was refused too: the lease is free once it expires, as a dead holder's.
        wait_for(lambda: not admin.exists(f"prdigest:v1:lock:post:{{{DIGEST_CHANNEL}}}:{DAY}"), timeout=10)
    finally:
        admin.execute_command("ACL", "SETUSER", "default", "+@all")
        admin.close()
    parts.client.chat_postMessage = post  # type: ignore[method-assign]
    result = run(parts)
    assert result is not None and result.already == 2
    (lead,) = slack.messages(DIGEST_CHANNEL)
    text = " ".join(message["text"] for message in slack.thread(DIGEST_CHANNEL, lead["ts"]))
    assert sorted(int(n) for n in re.findall(r"#(\d+)\b", text)) == list(range(1, 41))
