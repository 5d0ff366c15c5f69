"""Signed requests replayed while Redis cannot be reached: a slash command, a Share click, a
link_shared event and a GitHub delivery. Nobody can tell a replay from a first request then, so
none is acted on: no card answered or shared, no unfurl, no card job queued; at most the asker is
told to try again. Served for real against a private redis-server stopped halfway."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack_agent import link_shared
from devkit.redis_server import RedisServer

from bot.render.slack.replies import say
from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import CONFIG, DIGEST_CHANNEL, HUMAN, SlackHarness, serve_harness, wait_for

FORM = "application/x-www-form-urlencoded"
SECRET = "replay-webhook-secret"
NUMBER = 1001
REF = f"{REPO}#{NUMBER}"
TRY_LATER = say("en", "try_later")


def card(request: dict[str, Any]) -> dict[str, Any]:
    return {
        "headline": "Speeds up the scheduler",
        "verdict": "read",
        "minutes": 9,
        "why": [],
        "caveats": [],
        "watch": [],
    }


@pytest.fixture
def served(github: FakeGitHub, model: FakeOpenAI, own_redis: RedisServer, tmp_path: Path) -> Iterator[SlackHarness]:
    github.add_pr(
        REPO,
        NUMBER,
        title="[Perf] Faster scheduler",
        merged_at=day(2),
        files=[{"path": "vllm/core/scheduler.py", "additions": 40, "deletions": 3}],
    )
    model.responder = card
    config = CONFIG + "\n[slack]\nunfurl = true\n"
    with serve_harness(github, model, own_redis.url, tmp_path, config_text=config, webhook_secret=SECRET) as harness:
        yield harness


def replay(harness: SlackHarness, body: bytes, times: int = 3) -> None:
    for _ in range(times):
        assert harness.signed(body, FORM).status_code == 200
    harness.settle()


def test_a_command_replayed_while_redis_is_down_is_not_answered(served: SlackHarness, own_redis: RedisServer) -> None:
    hook, body = served.command_form(REF)
    own_redis.stop()
    replay(served, body)
    told = served.slack.responses[hook]
    assert told and all(payload["text"] == TRY_LATER for payload in told)
    assert "share_card" not in json.dumps(told)
    assert served.model.calls == 0


def test_a_share_click_replayed_while_redis_is_down_shares_nothing(
    served: SlackHarness, own_redis: RedisServer
) -> None:
    hook, response = served.command(REF)
    assert response.status_code == 200
    (answer,) = wait_for(lambda: served.slack.responses[hook], timeout=15)
    (value,) = [
        element["value"]
        for block in answer["blocks"]
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"] == "share_card"
    ]
    click, body = served.action_form(value)
    own_redis.stop()
    replay(served, body)
    assert served.slack.messages(DIGEST_CHANNEL) == []
    told = served.slack.responses[click]
    assert told and all(payload["text"] == TRY_LATER for payload in told)
    assert not any(payload.get("delete_original") for payload in told)


def test_a_link_shared_event_retried_while_redis_is_down_is_not_unfurled(
    served: SlackHarness, own_redis: RedisServer
) -> None:
    url = f"https://github.com/{REPO}/pull/{NUMBER}"
    ts = served.slack.add_message(DIGEST_CHANNEL, f"have a look: {url}")
    event = link_shared(HUMAN, DIGEST_CHANNEL, ts, [url])
    own_redis.stop()
    assert served.event(event, event_id="EvLink1").status_code == 200
    assert served.event(event, event_id="EvLink1", retry=1).status_code == 200
    served.settle()
    assert served.slack.calls("chat.unfurl") == []
    assert served.model.calls == 0


def test_a_github_delivery_redelivered_while_redis_is_down_queues_nothing(
    served: SlackHarness, own_redis: RedisServer
) -> None:
    payload = {
        "action": "closed",
        "number": NUMBER,
        "pull_request": {"number": NUMBER, "merged": True, "merge_commit_sha": "ab" * 20, "title": "A change"},
        "repository": {"full_name": REPO, "private": False},
    }
    body = json.dumps(payload).encode()
    signature = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    url = served.events_url.replace("/slack/events", "/github/webhook")

    def deliver(delivery: str) -> requests.Response:
        headers = {
            "Content-Type": "application/json",
            "X-GitHub-Event": "pull_request",
            "X-GitHub-Delivery": delivery,
            "X-Hub-Signature-256": signature,
        }
        return requests.post(url, data=body, headers=headers, timeout=10)

    delivery = str(uuid.uuid4())
    own_redis.stop()
    # A 5xx tells GitHub the delivery failed, so it can be redelivered once Redis is back.
    assert [deliver(delivery).status_code for _ in range(3)] == [503, 503, 503]
    own_redis.start()
    client = redis.Redis.from_url(own_redis.url)
    try:
        answer = deliver(delivery)  # GitHub's redelivery after the outage: queued now, once
        assert (answer.status_code, answer.json()) == (202, {"queued": 1})
        assert client.hlen("prdigest:jobs:cards.msgs") == 1
    finally:
        client.close()
