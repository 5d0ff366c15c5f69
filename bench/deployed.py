"""The acks row as the product is deployed to scale (issue 14): `prdigest serve --no-worker` in a
process of its own, whose scheduler starts a cold digest, two `prdigest worker` processes making
its cards, and Slack's requests sent from a third process (bench/load.py).

In the other acks row the server, the fakes of GitHub, the model and Slack, and the threads
sending the requests share one Python process and so one interpreter lock: every request a
worker makes to a fake waits on the server's lock, and the server on theirs. No deployment has
that. Here serve's process holds what it holds in production — Bolt, the digest's fetching and
posting, the waiting on the queue — and the figure is the time Slack's side sees.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import requests
from devkit.ports import free_port

from bench.env import CHANNEL, REPO, REPO_ROOT, SECRET, World
from bench.queue import log_file, until, workers
from bench.scenarios import PRODUCT_ENV_PREFIXES, Options, Row, ack_row

WORKERS, WORKER_THREADS = 2, 8
POSTING_SECONDS = 300  # a cold digest of 150 PRs by 16 worker threads takes about 25 s
LABEL = f"serve --no-worker, cards made by {WORKERS} worker processes, Slack's requests from a process of their own"


def worker_ack_rows(world: World, options: Options) -> list[Row]:
    """Signed commands and mentions, `ack_concurrency` at a time, from 0.5 s after the digest
    scheduled in `serve --no-worker` starts asking GitHub for its PRs."""
    world.flush_redis()
    world.reset_counts()
    _not_at_midnight()
    config = _due_now_config(world.config_path)
    port = free_port()
    url = f"http://127.0.0.1:{port}/slack/events"
    plan = {"url": url, "secret": SECRET, "concurrency": options.ack_concurrency, "requests": _requests(world, options)}
    world.slack.enforce_pacing = True
    try:
        with workers(world, WORKERS, WORKER_THREADS):
            serve = prdigest_process(
                world, config, "serve", "--http", "--no-worker", "--host", "127.0.0.1", "--port", str(port)
            )
            try:
                until(lambda: world.github.requests, 60, "the scheduled digest did not start")
                time.sleep(0.5)  # the digest under way: its fetching, queuing and waiting run beside the acks
                results = _load(plan)
                # Its lead is posted once every card is in; the row is void without it.
                posted = _within(lambda: bool(world.slack.messages(CHANNEL)), POSTING_SECONDS)
            finally:
                serve.send_signal(signal.SIGTERM)
                try:
                    serve.wait(timeout=180)
                except subprocess.TimeoutExpired:
                    serve.kill()
    finally:
        world.slack.enforce_pacing = False
    latencies = [milliseconds for milliseconds, _ in results]
    failures = sum(1 for _, status in results if status != 200)
    row = ack_row(latencies, failures, options, LABEL)
    if not posted:
        row = replace(row, ok=False, error=f"the scheduled digest posted nothing within {POSTING_SECONDS} s")
    return [row]


def _within(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _not_at_midnight() -> None:
    """A post_at of 23:59 read a second later, on the next day, is not due until that evening."""
    now = datetime.now(UTC)
    if now.hour == 23 and now.minute == 59:
        time.sleep(61 - now.second)


def _due_now_config(base: Path) -> Path:
    """The world's channel, posting at this minute (due at the scheduler's first tick), poller off:
    the digest's cards are queued by the digest itself, cold."""
    post_at = datetime.now(UTC).strftime("%H:%M")
    path = base.with_name("due-now.toml")
    path.write_text(
        f'[defaults]\ntimezone = "UTC"\npost_at = "{post_at}"\n\n[queue]\npoll_minutes = 0\n\n'
        f'[[channels]]\nid = "{CHANNEL}"\nrepos = ["{REPO}"]\n',
        encoding="utf-8",
    )
    return path


def _requests(world: World, options: Options) -> list[dict[str, str]]:
    """Half `/pr owner/repo#N`, half @mentions (each in a channel of its own, so that Slack's
    pacing of one message a second per channel is not what is measured)."""
    numbers = [row["number"] for row in world.rows]
    planned: list[dict[str, str]] = []
    for index in range(options.ack_requests):
        number = numbers[index % len(numbers)]
        if index % 2 == 0:
            form = {
                "command": "/pr",
                "text": f"{REPO}#{number}",
                "channel_id": CHANNEL,
                "user_id": "U0BENCH",
                "response_url": world.slack.new_response_url(),
                "trigger_id": f"T{uuid.uuid4().hex}.bench",
            }
            planned.append({"body": urllib.parse.urlencode(form), "content_type": "application/x-www-form-urlencoded"})
            continue
        channel = f"C0BD{index:06d}"
        ts = world.slack.add_message(channel, f"<@UBOT> what does {REPO}#{number} change?")
        event = {"type": "app_mention", "channel": channel, "user": "U0BENCH", "text": f"<@UBOT> #{number}", "ts": ts}
        envelope = {"type": "event_callback", "team_id": "T0TEST", "event_id": f"EvDeployed{index}", "event": event}
        planned.append({"body": json.dumps(envelope), "content_type": "application/json"})
    return planned


def prdigest_process(world: World, config: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {name: value for name, value in os.environ.items() if not name.startswith(PRODUCT_ENV_PREFIXES)}
    env |= world.env | {"PRDIGEST_CONFIG": str(config), "PYTHONPATH": str(REPO_ROOT)}
    with log_file(world, args[0]) as log:
        return subprocess.Popen(
            [sys.executable, "-m", "bot.cli", *args], env=env, stdout=subprocess.DEVNULL, stderr=log
        )


def serving(url: str) -> None:
    """Returns once the server at `url` answers GET /healthz (a minute at most)."""
    health = urllib.parse.urljoin(url, "/healthz")
    until(lambda: _answers(health), 60, "serve did not come up")


def _load(plan: dict[str, Any]) -> list[tuple[float, int]]:
    serving(plan["url"])
    done = subprocess.run(
        [sys.executable, "-m", "bench.load"],
        input=json.dumps(plan).encode(),
        capture_output=True,
        env=os.environ | {"PYTHONPATH": str(REPO_ROOT)},
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"bench: the load process failed: {done.stderr.decode()[-500:]}")
    return [(float(milliseconds), int(status)) for milliseconds, status in json.loads(done.stdout)]


def _answers(url: str) -> bool:
    try:
        return requests.get(url, timeout=1).status_code == 200
    except requests.RequestException:
        return False
