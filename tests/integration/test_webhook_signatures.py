"""POST /github/webhook refuses every delivery whose X-Hub-Signature-256 is not exactly the
HMAC-SHA256 of its body (GitHub's "Validating webhook deliveries"): empty, cut short, too long,
not hex, another algorithm's prefix, absent, or right for another body. A refused delivery is 401,
queues no card job and leaves its delivery id unclaimed, so GitHub's own signed one still counts."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import redis
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from tests.integration.conftest import REPO
from tests.integration.slack_harness import SlackHarness, serve_harness

SECRET = "webhook-signature-secret"
JOBS = "prdigest:jobs:cards.msgs"  # dramatiq's Redis broker: one hash field per queued message

MERGE = json.dumps(
    {
        "action": "closed",
        "number": 7,
        "pull_request": {
            "number": 7,
            "merged": True,
            "merge_commit_sha": "0123456789abcdef0123456789abcdef01234567",
            "title": "A change",
        },
        "repository": {"full_name": REPO, "private": False},
        "sender": {"login": "someone"},
    }
).encode()


def sha256(body: bytes, secret: str = SECRET) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


# Each one a header value a forger, a proxy or a misconfigured hook could send for MERGE.
FORGED: dict[str, Callable[[], str | None]] = {
    "missing header": lambda: None,
    "empty digest": lambda: "sha256=",
    "empty header": lambda: "",
    "prefix alone, no '='": lambda: "sha256",
    "truncated digest": lambda: "sha256=" + sha256(MERGE)[:-1],
    "first half of the digest": lambda: "sha256=" + sha256(MERGE)[:32],
    "one character too long": lambda: "sha256=" + sha256(MERGE) + "0",
    "digest twice": lambda: "sha256=" + sha256(MERGE) * 2,
    "not hex": lambda: "sha256=" + "g" * 64,
    "upper-case hex": lambda: "sha256=" + sha256(MERGE).upper(),
    "not ASCII": lambda: "sha256=" + "é" * 64,
    "sha1= prefix on the right digest": lambda: "sha1=" + sha256(MERGE),
    "sha1= with a right SHA-1": lambda: "sha1=" + hmac.new(SECRET.encode(), MERGE, hashlib.sha1).hexdigest(),
    "digest without its prefix": lambda: sha256(MERGE),
    "right digest of another body": lambda: "sha256=" + sha256(MERGE + b" "),
    "right digest under another secret": lambda: "sha256=" + sha256(MERGE, "another-secret"),
}


@pytest.fixture
def served(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    with serve_harness(github, model, redis_url, tmp_path, webhook_secret=SECRET) as harness:
        yield harness


def deliver(harness: SlackHarness, signature: str | None, delivery: str, body: bytes = MERGE) -> requests.Response:
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": "pull_request",
        "X-GitHub-Delivery": delivery,
        "User-Agent": "GitHub-Hookshot/abc123",
    }
    if signature is not None:
        headers["X-Hub-Signature-256"] = signature
    url = harness.events_url.replace("/slack/events", "/github/webhook")
    # requests sends header values as Latin-1, as http.client does: "é" goes out as one byte.
    return requests.post(url, data=body, headers=headers, timeout=10)


def queued(redis_url: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        return int(client.hlen(JOBS))
    finally:
        client.close()


@pytest.mark.parametrize("case", sorted(FORGED))
def test_a_delivery_not_signed_exactly_for_its_body_is_refused_and_queues_nothing(
    served: SlackHarness, redis_url: str, case: str
) -> None:
    response = deliver(served, FORGED[case](), delivery="d-forged")
    assert (response.status_code, response.json()) == (401, {"error": "bad or missing X-Hub-Signature-256"})
    assert queued(redis_url) == 0
    # Refused before its delivery id was read: GitHub's own delivery of that id still queues.
    signed = deliver(served, "sha256=" + sha256(MERGE), delivery="d-forged")
    assert (signed.status_code, signed.json()) == (202, {"queued": 1})
    assert queued(redis_url) == 1
