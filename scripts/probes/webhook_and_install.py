"""Issue 23, items 7 and 8, on a real `prdigest serve --http` (with its card worker) and Redis.

    PYTHONPATH=. .venv/bin/python scripts/probes/webhook_and_install.py                # both
    PYTHONPATH=. .venv/bin/python scripts/probes/webhook_and_install.py --only webhook --code /tmp/old-tree

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
import tempfile
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import redis
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.redis_server import RedisServer

from scripts.probes import served
from scripts.probes.served import ROOT, Served

REPO = "acme/probe"
CHANNEL = "C0PROBE001"
WEBHOOK_SECRET = "probe-webhook-secret"
DELIVERIES = 1000
INSTALL_GETS = 3000


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
        env = served.environment(config, slack=slack, github=github, model=model, redis_url=store.url)
        server = Served(env | {"GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET}, workdir, code=code)
        client = redis.Redis.from_url(store.url)
        try:
            started = time.monotonic()
            with ThreadPoolExecutor(max_workers=8) as pool:
                answers = Counter(
                    pool.map(lambda n: deliver(server.base, merge(n)), range(100_000, 100_000 + DELIVERIES))
                )
            took = time.monotonic() - started
            huge = deliver(server.base, merge(10**30))
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
            text = server.stop()
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
        env = served.environment(config, slack=slack, github=github, model=model, redis_url=store.url, oauth=True)
        server = Served(env | {"GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET}, workdir, code=code)
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
                        session.get(f"{server.base}/slack/install", headers=forwarded(n), timeout=10).status_code
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
            server.stop()


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
