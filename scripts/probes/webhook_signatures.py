"""Forged X-Hub-Signature-256 values against a real `prdigest serve --http`.

    .venv/bin/python scripts/probes/webhook_signatures.py

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
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from tempfile import TemporaryDirectory

import redis
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.slack import FakeSlack
from devkit.ports import free_port
from devkit.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[2]
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
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "GITHUB_", "OPENAI_", "REDIS_"))},
            "PRDIGEST_CONFIG": str(config),
            "GITHUB_API_URL": github.url,
            "GITHUB_WEBHOOK_SECRET": SECRET,
            "REDIS_URL": store.url,
            "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": "probe-signing-secret",
            "SLACK_API_URL": slack.api_url,
        }
        command = [sys.executable, "-m", "bot.cli", "serve", "--http", "--no-worker", "--port", str(port)]
        process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        raw = redis.Redis.from_url(store.url)
        try:
            deadline = time.monotonic() + 30
            while True:
                try:
                    if requests.get(f"{base}/healthz", timeout=1).ok:
                        break
                except requests.ConnectionError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)
            cases = [*FORGED.items(), ("right signature", "sha256=" + digest())]
            for name, signature in cases:
                headers = {"X-GitHub-Event": "pull_request", "X-GitHub-Delivery": str(uuid.uuid4())}
                if signature is not None:
                    headers["X-Hub-Signature-256"] = signature
                answer = requests.post(f"{base}/github/webhook", data=BODY, headers=headers, timeout=10)
                print(f"{name:32} {answer.status_code}  card jobs queued: {raw.hlen(JOBS)}")
        finally:
            raw.close()
            process.send_signal(signal.SIGTERM)
            _out, err = process.communicate(timeout=20)
        print(f"tracebacks in the server's log: {err.decode(errors='replace').count('Traceback')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
