"""The webhook's signature rule (bot/http/webhook.py): X-Hub-Signature-256 is "sha256=" and the hex
HMAC-SHA256 of the body's bytes as sent, under GITHUB_WEBHOOK_SECRET. Checked here on the WSGI app
itself, without a server, against GitHub's own test values and on bodies one byte apart."""

from __future__ import annotations

import hashlib
import hmac
import io
import json
from typing import Any

import pytest

from bot.core.card_jobs import CardJob
from bot.http.webhook import GitHubWebhook
from bot.models import Language
from bot.store.backends.memory import MemoryKV

# "Validating webhook deliveries", Testing the webhook payload validation (docs.github.com): with
# this secret and payload, "the signatures that you generate should match" this one.
GITHUB_SECRET = "It's a Secret to Everybody"
GITHUB_PAYLOAD = b"Hello, World!"
GITHUB_SIGNATURE = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"

MERGE = {
    "action": "closed",
    "number": 12,
    "pull_request": {"number": 12, "merged": True, "merge_commit_sha": "f" * 40},
    "repository": {"full_name": "acme/widgets"},
}


class RecordedJobs:
    """The card queue as its port says: records each job submitted."""

    def __init__(self) -> None:
        self.jobs: list[CardJob] = []

    def submit(self, job: CardJob) -> bool:
        self.jobs.append(job)
        return True

    def workers_alive(self) -> bool:
        return True


def followed(repo: str) -> dict[Language, str | None]:
    return {"en": None} if repo == "acme/widgets" else {}


def deliver(hook: GitHubWebhook, body: bytes, signature: str | None, event: str = "pull_request") -> tuple[str, Any]:
    environ: dict[str, Any] = {
        "REQUEST_METHOD": "POST",
        "CONTENT_LENGTH": str(len(body)),
        "wsgi.input": io.BytesIO(body),
        "HTTP_X_GITHUB_EVENT": event,
        "HTTP_X_GITHUB_DELIVERY": "72d3162e-cc78-11e3-81ab-4c9367dc0958",
    }
    if signature is not None:
        environ["HTTP_X_HUB_SIGNATURE_256"] = signature
    answered: list[str] = []
    chunks = hook(environ, lambda status, headers: answered.append(status))
    return answered[0], json.loads(b"".join(chunks))


def signed(body: bytes, secret: str) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def test_githubs_own_test_signature_is_accepted_and_nothing_else_for_that_payload() -> None:
    hook = GitHubWebhook(GITHUB_SECRET, MemoryKV(), RecordedJobs(), followed)
    assert deliver(hook, GITHUB_PAYLOAD, GITHUB_SIGNATURE, event="ping") == ("200 OK", {"ok": True})
    refused = ("401 Unauthorized", {"error": "bad or missing X-Hub-Signature-256"})
    assert deliver(hook, GITHUB_PAYLOAD + b"\n", GITHUB_SIGNATURE, event="ping") == refused
    assert deliver(hook, b"Hello, world!", GITHUB_SIGNATURE, event="ping") == refused
    assert deliver(
        GitHubWebhook(GITHUB_SECRET + " ", MemoryKV(), None, followed), GITHUB_PAYLOAD, GITHUB_SIGNATURE
    ) == (refused)


@pytest.mark.parametrize(
    "tamper",
    [
        lambda body: body.replace(b'"number": 12', b'"number": 13'),  # another PR, one byte apart
        lambda body: body + b" ",  # the same JSON, one byte longer
        lambda body: json.dumps(json.loads(body), separators=(",", ":")).encode(),  # the same JSON, re-spaced
    ],
    ids=["another number", "trailing space", "re-serialized"],
)
def test_a_merge_signed_for_other_bytes_queues_nothing(tamper: Any) -> None:
    jobs = RecordedJobs()
    hook = GitHubWebhook("merge-secret", MemoryKV(), jobs, followed)
    body = json.dumps(MERGE).encode()
    forged = tamper(body)
    assert json.loads(forged)["repository"] == MERGE["repository"]  # still a followed merge
    assert deliver(hook, forged, signed(body, "merge-secret"))[0] == "401 Unauthorized"
    assert jobs.jobs == []
    assert deliver(hook, forged, signed(forged, "merge-secret")) == ("202 Accepted", {"queued": 1})
    assert [(job.repo, job.number) for job in jobs.jobs] == [("acme/widgets", json.loads(forged)["number"])]
