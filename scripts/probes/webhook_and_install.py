"""Issue 23, items 7 and 8, on a real `prdigest serve --http` (with its card worker) and Redis.

    .venv/bin/python scripts/probes/webhook_and_install.py                # both
    .venv/bin/python scripts/probes/webhook_and_install.py --only webhook --code /tmp/old-tree

- webhook: 1,000 signed deliveries, each with its own id, merging PR numbers that do not exist,
  and one numbered 10^30; prints the answers, then the requests fake GitHub got 61 s after the
  first delivery and once the queue is empty (target: at most one per delivery), and the
  server's log lines that carry a traceback.
- install: Redis' used_memory and key count before and after 3,000 GETs of /slack/install from
  one address (OAuth mode; target: at most 1 MB more), and the answers.

`--code DIR` serves the `bot` package found in DIR (e.g. `git archive main bot | tar -x -C DIR`),
to measure the code before a change with this same probe.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import redis
import requests
from cryptography.fernet import Fernet
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.fakes.slack_oauth import CLIENT_ID, CLIENT_SECRET
from devkit.ports import free_port
from devkit.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[2]
REPO = "acme/probe"
CHANNEL = "C0PROBE001"
WEBHOOK_SECRET = "probe-webhook-secret"
SIGNING_SECRET = "probe-signing-secret"
DELIVERIES = 1000
INSTALL_GETS = 3000


class Served:
    """`prdigest serve --http` as a subprocess, its stderr kept in a file."""

    def __init__(self, env: dict[str, str], code: Path, workdir: Path) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = workdir / "serve.log"
        command = [sys.executable, "-m", "bot.cli", "serve", "--http", "--host", "127.0.0.1", "--port", str(self.port)]
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "GITHUB_", "OPENAI_", "REDIS_"))}
        with self.log.open("wb") as err:
            self.process = subprocess.Popen(command, env=clean | env, cwd=code, stdout=subprocess.DEVNULL, stderr=err)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{self.base}/healthz", timeout=1).ok:
                    return
            except requests.ConnectionError:
                time.sleep(0.2)
        raise RuntimeError(f"the server did not start:\n{self.log.read_text(errors='replace')}")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def environment(
    github: FakeGitHub, model: FakeOpenAI, slack: FakeSlack, redis_url: str, config: Path
) -> dict[str, str]:
    return {
        "PRDIGEST_CONFIG": str(config),
        "GITHUB_API_URL": github.url,
        "GITHUB_TOKEN": "probe",
        "OPENAI_API_KEY": "probe",
        "OPENAI_BASE_URL": f"{model.url}/v1",
        "REDIS_URL": redis_url,
        "SLACK_SIGNING_SECRET": SIGNING_SECRET,
        "SLACK_API_URL": slack.api_url,
        "GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET,
    }


def merge(number: int) -> dict[str, Any]:
    return {
        "action": "closed",
        "number": number,
        "pull_request": {
            "number": number,
            "state": "closed",
            "merged": True,
            "merge_commit_sha": hashlib.sha1(str(number).encode()).hexdigest(),
        },
        "repository": {"full_name": REPO, "private": False},
    }


def deliver(base: str, payload: dict[str, Any]) -> int:
    body = json.dumps(payload).encode()
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": "pull_request",
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": "sha256=" + hmac.new(WEBHOOK_SECRET.encode(), body, hashlib.sha256).hexdigest(),
    }
    return requests.post(f"{base}/github/webhook", data=body, headers=headers, timeout=30).status_code


def queue_empty(client: redis.Redis) -> bool:
    ns = "prdigest:jobs"
    waiting = client.llen(f"{ns}:cards") + client.zcard(f"{ns}:cards.DQ")
    # A job being worked on is in neither list, but in Dramatiq's acks set.
    working = sum(client.scard(key) for key in client.scan_iter(match=f"{ns}:__acks__.*"))
    return waiting + working == 0


def webhook_scenario(code: Path, workdir: Path) -> None:
    config = workdir / "prdigest.toml"
    config.write_text(f'[[channels]]\nid = "{CHANNEL}"\nrepos = ["{REPO}"]\nquiet_days = "silent"\n', encoding="utf-8")
    with FakeGitHub() as github, FakeOpenAI() as model, FakeSlack() as slack, RedisServer() as store:
        github.add_repo(REPO)
        env = environment(github, model, slack, store.url, config) | {"SLACK_BOT_TOKEN": slack.bot_token}
        served = Served(env, code, workdir)
        client = redis.Redis.from_url(store.url)
        try:
            started = time.monotonic()
            with ThreadPoolExecutor(max_workers=8) as pool:
                answers = Counter(
                    pool.map(lambda n: deliver(served.base, merge(n)), range(100_000, 100_000 + DELIVERIES))
                )
            took = time.monotonic() - started
            huge = deliver(served.base, merge(10**30))
            print(
                f"webhook: {DELIVERIES} deliveries answered {dict(answers)} in {took:.1f} s; PR 10^30 answered {huge}"
            )
            time.sleep(max(0.0, 61 - (time.monotonic() - started)))
            at_61 = len(github.requests)
            print(f"webhook: GitHub requests 61 s after the first delivery: {at_61} ({at_61 / DELIVERIES:.2f} each)")
            deadline = time.monotonic() + 600
            while not queue_empty(client) and time.monotonic() < deadline:
                time.sleep(1)
            settled = time.monotonic() - started
            print(
                f"webhook: GitHub requests once the queue was empty ({settled:.0f} s): {len(github.requests)} "
                f"({len(github.requests) / DELIVERIES:.2f} each), by kind {github.counts_by_kind()}; "
                f"failed jobs kept: {client.zcard('prdigest:jobs:cards.XQ')}"
            )
        finally:
            client.close()
            served.stop()
        text = served.log.read_text(errors="replace")
        print(
            f"webhook: server log: {text.count('Traceback (most recent call last)')} tracebacks, "
            f"{text.count('dropped')} 'dropped' lines, {len(text.splitlines())} lines in all"
        )


def install_scenario(code: Path, workdir: Path) -> None:
    config = workdir / "prdigest.toml"
    config.write_text(
        f'[slack]\nhome_team = "T0PROBE01"\n\n'
        f'[[channels]]\nid = "{CHANNEL}"\nrepos = ["{REPO}"]\nquiet_days = "silent"\n',
        encoding="utf-8",
    )
    with FakeGitHub() as github, FakeOpenAI() as model, FakeSlack() as slack, RedisServer() as store:
        env = environment(github, model, slack, store.url, config) | {
            "SLACK_CLIENT_ID": CLIENT_ID,
            "SLACK_CLIENT_SECRET": CLIENT_SECRET,
            "SLACK_SCOPES": "chat:write,commands,app_mentions:read",
            "PRDIGEST_SECRET_KEY": Fernet.generate_key().decode(),
        }
        served = Served(env, code, workdir)
        client = redis.Redis.from_url(store.url)
        try:
            time.sleep(2)  # the worker's first heartbeat and the scheduler's first look are written
            # One address; then each GET forwarded (by a loopback proxy, so believed) for another.
            for label, forwarded in (("one address", lambda n: None), ("3,000 addresses", forwarded_for)):
                memory, keys = int(client.info("memory")["used_memory"]), int(client.dbsize())
                states_before = sum(1 for _ in client.scan_iter(match="*oauth_state:*"))
                started = time.monotonic()
                with requests.Session() as session:
                    answers = Counter(
                        session.get(f"{served.base}/slack/install", headers=forwarded(n), timeout=10).status_code
                        for n in range(INSTALL_GETS)
                    )
                took = time.monotonic() - started
                grown, more = int(client.info("memory")["used_memory"]) - memory, int(client.dbsize()) - keys
                states = sum(1 for _ in client.scan_iter(match="*oauth_state:*")) - states_before
                print(f"install ({label}): {INSTALL_GETS} GETs answered {dict(answers)} in {took:.1f} s")
                print(
                    f"install ({label}): Redis used_memory +{grown / 1024:.0f} kB, "
                    f"{more:+d} keys ({states} OAuth states)"
                )
        finally:
            client.close()
            served.stop()


def forwarded_for(n: int) -> dict[str, str]:
    return {"X-Forwarded-For": f"100.{64 + n // 65536}.{n // 256 % 256}.{n % 256}"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", choices=["webhook", "install"])
    parser.add_argument("--code", type=Path, default=ROOT, help="the directory whose bot package is served")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.only in (None, "webhook"):
            webhook_scenario(args.code.resolve(), Path(tmp))
        if args.only in (None, "install"):
            install_scenario(args.code.resolve(), Path(tmp))


if __name__ == "__main__":
    main()
