"""Forged X-Hub-Signature-256 values against a real `prdigest serve --http`.

    PYTHONPATH=. .venv/bin/python scripts/probes/webhook_signatures.py

Starts a private redis-server, fake Slack and GitHub on loopback and the server as a subprocess
with GITHUB_WEBHOOK_SECRET set, sends one merge delivery per forged signature (empty, cut short,
too long, not hex, not ASCII, sha1=, absent, another body's) and then the right one, and prints
what each got back, the card jobs queued (target: 0 before the right one, then 1) and the
tracebacks the server logged (target: 0).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import sys
import uuid
from pathlib import Path
from tempfile import TemporaryDirectory

import redis
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.slack import FakeSlack
from devkit.redis_server import RedisServer

from scripts.probes import served

SECRET = "probe-webhook-secret"
CHANNEL = "C0PROBE001"
REPO = "acme/probe"
JOBS = "prdigest:jobs:cards.msgs"
BODY = json.dumps(
    {
        "action": "closed",
        "number": 7,
        "pull_request": {"number": 7, "merged": True, "merge_commit_sha": "ab" * 20, "title": "A change"},
        "repository": {"full_name": REPO, "private": False},
    }
).encode()


def digest(body: bytes = BODY, secret: str = SECRET) -> str:
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


FORGED: dict[str, str | None] = {
    "missing header": None,
    "empty digest (sha256=)": "sha256=",
    "truncated digest": "sha256=" + digest()[:-1],
    "one character too long": "sha256=" + digest() + "0",
    "not hex": "sha256=" + "g" * 64,
    "not ASCII": "sha256=" + "é" * 64,
    "sha1= prefix": "sha1=" + digest(),
    "right digest of another body": "sha256=" + digest(BODY + b" "),
}


def main() -> int:
    with TemporaryDirectory() as workdir, RedisServer() as store, FakeSlack() as slack, FakeGitHub() as github:
        github.add_repo(REPO)
        config = Path(workdir) / "prdigest.toml"
        config.write_text(f'[[channels]]\nid = "{CHANNEL}"\nrepos = ["{REPO}"]\n', encoding="utf-8")
        env = served.environment(config, slack=slack, github=github, redis_url=store.url)
        server = served.Served(env | {"GITHUB_WEBHOOK_SECRET": SECRET}, Path(workdir), "--no-worker")
        raw = redis.Redis.from_url(store.url)
        try:
            cases = [*FORGED.items(), ("right signature", "sha256=" + digest())]
            for name, signature in cases:
                headers = {"X-GitHub-Event": "pull_request", "X-GitHub-Delivery": str(uuid.uuid4())}
                if signature is not None:
                    headers["X-Hub-Signature-256"] = signature
                answer = requests.post(f"{server.base}/github/webhook", data=BODY, headers=headers, timeout=10)
                print(f"{name:32} {answer.status_code}  card jobs queued: {raw.hlen(JOBS)}")
        finally:
            raw.close()
            err = server.stop()
        print(f"tracebacks in the server's log: {err.count('Traceback')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
