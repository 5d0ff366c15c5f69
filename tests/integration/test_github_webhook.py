"""POST /github/webhook through the served app (issue 14): a signed merge event queues its card
at once, once, whatever GitHub redelivers; anything unsigned is refused before it is read."""

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

from bot.wiring.process import start_worker
from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import SlackHarness, serve_harness, wait_for
from tests.integration.test_reliability import good_card

SECRET = "webhook-test-secret"
NAMESPACE = "prdigest:jobs"


@pytest.fixture
def served(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    with serve_harness(github, model, redis_url, tmp_path, webhook_secret=SECRET) as harness:
        yield harness


def merge_event(repo: str = REPO, number: int = 7, merged: bool = True) -> dict[str, Any]:
    # The fields GitHub sends that we read, inside the shape it sends them in.
    return {
        "action": "closed",
        "number": number,
        "pull_request": {
            "number": number,
            "state": "closed",
            "merged": merged,
            "merge_commit_sha": "0123456789abcdef0123456789abcdef01234567" if merged else None,
            "title": "A change",
        },
        "repository": {"full_name": repo, "private": False},
        "sender": {"login": "someone"},
    }


def deliver(
    harness: SlackHarness,
    payload: dict[str, Any],
    *,
    event: str = "pull_request",
    delivery: str | None = None,
    secret: str | None = SECRET,
) -> requests.Response:
    body = json.dumps(payload).encode()
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": str(uuid.uuid4()) if delivery is None else delivery,
        "User-Agent": "GitHub-Hookshot/abc123",
    }
    if secret is not None:
        headers["X-Hub-Signature-256"] = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    url = harness.events_url.replace("/slack/events", "/github/webhook")
    return requests.post(url, data=body, headers=headers, timeout=10)


def queued(redis_url: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        return int(client.hlen(f"{NAMESPACE}:cards.msgs"))
    finally:
        client.close()


def test_a_signed_merge_queues_its_card_once_whatever_is_redelivered(served: SlackHarness, redis_url: str) -> None:
    served.github.add_pr(
        REPO, 7, title="A change", merged_at=day(1), files=[{"path": "vllm/a.py", "additions": 3, "deletions": 1}]
    )
    served.model.responder = good_card
    assert deliver(served, {"zen": "Design for failure.", "hook_id": 1}, event="ping").status_code == 200

    first = deliver(served, merge_event(), delivery="d-1")
    assert first.status_code == 202 and first.json() == {"queued": 1}
    again = deliver(served, merge_event(), delivery="d-1")  # GitHub's redelivery keeps the id
    assert again.status_code == 200 and again.json() == {"duplicate": "d-1"}
    other = deliver(served, merge_event(), delivery="d-2")  # another delivery of the same merge
    assert other.status_code == 202 and other.json() == {"queued": 0}
    assert queued(redis_url) == 1

    worker = start_worker(served.services, 1)
    try:
        wait_for(lambda: served.model.calls == 1, timeout=20)
    finally:
        worker.stop()


@pytest.mark.parametrize("secret", [None, "not-the-secret"], ids=["unsigned", "wrong secret"])
def test_an_unsigned_or_wrongly_signed_delivery_is_refused_and_queues_nothing(
    served: SlackHarness, redis_url: str, secret: str | None
) -> None:
    response = deliver(served, merge_event(), secret=secret)
    assert response.status_code == 401
    assert queued(redis_url) == 0


def test_what_is_not_a_followed_merge_queues_nothing(served: SlackHarness, redis_url: str) -> None:
    assert deliver(served, merge_event(merged=False)).json() == {"ignored": "not a merge"}
    assert deliver(served, merge_event(repo="someone/else")).json() == {"ignored": "no channel follows this repository"}
    assert deliver(served, {"action": "opened"}, event="issues").json() == {"ignored": "issues"}
    assert deliver(served, merge_event(), delivery="").status_code == 400
    assert queued(redis_url) == 0


def test_a_github_app_delivery_without_an_app_is_answered_and_ignored(served: SlackHarness) -> None:
    installed = {"action": "created", "installation": {"id": 1, "account": {"login": "acme"}}, "repositories": []}
    answer = deliver(served, installed, event="installation")
    assert answer.status_code == 200 and answer.json() == {"ignored": "no GitHub App here (GITHUB_APP_ID is not set)"}


def test_without_a_secret_the_webhook_is_off(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    with serve_harness(github, model, redis_url, tmp_path) as harness:
        response = deliver(harness, merge_event())
        assert response.status_code == 404 and "GITHUB_WEBHOOK_SECRET" in response.text
