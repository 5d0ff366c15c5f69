"""The benchmark's card-queue scenarios (issue 14): cards made by `prdigest worker` processes
before they are due, workers added for throughput, a merge's webhook to its card, and acks while
the card work is in workers."""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import IO, Any

import redis
import requests
from devkit.fakes import dataset

from bench.env import CHANNEL, REPO, REPO_ROOT, World
from bench.scenarios import PRODUCT_ENV_PREFIXES, Options, Row, Served, spread
from bot.core.card_jobs import CardJob
from bot.models import DigestOptions, Filters, Window
from bot.settings import load_settings
from bot.wiring.process import build_process
from bot.wiring.slack import wire_slack
from bot.wiring.timing import Timing

NAMESPACE = "prdigest:jobs"  # the config default
BACKLOG_REPO = "vllm-project/backlog"
WEBHOOK_SECRET = "bench-webhook-secret"


@contextlib.contextmanager
def workers(world: World, count: int, threads: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """`count` `prdigest worker` processes, alive (heartbeat seen) before this yields them; SIGTERM after."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(PRODUCT_ENV_PREFIXES)}
    env |= world.env | {"PYTHONPATH": str(REPO_ROOT)}
    processes = []
    for index in range(count):
        with log_file(world, f"worker-{index}") as log:
            command = [sys.executable, "-m", "bench.child", "worker", "--threads", str(threads)]
            processes.append(subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=log))
    client = redis.Redis.from_url(world.redis_url)
    try:
        until(lambda: client.zcard(f"{NAMESPACE}:workers") >= count, 60, "workers did not start")
        yield processes
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
        for process in processes:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
        client.delete(f"{NAMESPACE}:workers")
        client.close()


def log_file(world: World, name: str) -> IO[bytes]:
    """Where a process of the benchmark writes its log, appended to run after run: read by nobody
    while it runs (a pipe nobody reads would fill and stop every thread that logs)."""
    return world.config_path.with_name(f"{name}.log").open("ab")


def until(condition: Any, timeout: float, problem: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench: {problem}")
        time.sleep(0.01)


def queue_idle(client: redis.Redis) -> bool:
    """No card job waiting or held: the queue is empty and every queued mark is gone."""
    return client.llen(f"{NAMESPACE}:cards") == 0 and not any(client.scan_iter(f"{NAMESPACE}:queued:*", count=1000))


# -- cards made before they are due ---------------------------------------------------------------


def premade_digest_row(world: World, options: Options) -> Row:
    """The poller queues the day's cards; workers make them; then the digest is timed from its
    start to its last message, Slack's pacing included."""
    world.flush_redis()
    world.reset_counts()
    client = redis.Redis.from_url(world.redis_url)
    services = build_process(load_settings(world.env), Timing(pace=1.0), warn=lambda message: None)
    wired = wire_slack(services)
    prs = len(world.rows)
    walls: list[float] = []
    calls: list[int] = []
    messages = 0
    try:
        with workers(world, 2, 8):
            queued = wired.poll_merged()
            until(lambda: world.model.calls >= prs and queue_idle(client), 600, "the poller's cards were not made")
            if queued < prs:
                raise SystemExit(f"bench: the poller queued {queued} cards, not {prs}")
        now = datetime.now(UTC)
        window = Window(now - timedelta(hours=24), now)
        world.slack.enforce_pacing = True
        for run in range(options.runs):
            world.reset_counts()
            started = time.monotonic()
            result = wired.tenants.home.digests.run(
                f"{CHANNEL}{run}",
                now.date().isoformat(),
                window,
                (REPO,),
                options=DigestOptions("en", Filters(), "note"),
            )
            walls.append(time.monotonic() - started)
            calls.append(world.model.calls)
            messages = result.posted if result is not None else 0
    finally:
        world.slack.enforce_pacing = False
        services.close()
        client.close()
    bound = messages * 1.0
    return Row(
        f"digest of {prs} PRs the poller already carded: start → last message",
        f"{spread(walls)} for {messages} messages · {max(calls)} model calls",
        f"{messages} messages × 1 s = {bound:.0f} s",
        "≤ 1.1 × bound, 0 model calls",
        statistics.median(walls) <= 1.1 * bound and max(calls) == 0,
        "" if max(calls) == 0 else "the digest asked the model for cards the poller had queued",
    )


# -- workers added for throughput -------------------------------------------------------------------

WORKER_THREADS = 4


def workers_row(world: World, options: Options, backlog: int, model_latency: float) -> Row:
    """A cold backlog of `backlog` cards, made by 1 then 3 worker processes of WORKER_THREADS each."""
    rows = dataset.generate_rows(
        backlog, seed=11, start=datetime.now(UTC) - timedelta(hours=30), span=timedelta(hours=4)
    )
    dataset.populate(world.github, rows, repo=BACKLOG_REPO)
    numbers = [row["number"] for row in rows]
    latency = world.model.latency
    world.model.latency = model_latency
    services = build_process(load_settings(world.env), Timing(), warn=lambda message: None)
    rates: dict[int, float] = {}
    calls: dict[int, int] = {}
    client = redis.Redis.from_url(world.redis_url)
    try:
        for count in (1, 3):
            world.flush_redis()
            world.reset_counts()
            with workers(world, count, WORKER_THREADS):
                queue = services.queue
                assert queue is not None
                started = time.monotonic()
                for number in numbers:
                    queue.submit(CardJob(BACKLOG_REPO, number, "en"))
                until(
                    lambda: world.model.calls >= backlog and queue_idle(client), 900, "the backlog was not worked off"
                )
                rates[count] = backlog / (time.monotonic() - started)
                calls[count] = world.model.calls
    finally:
        world.model.latency = latency
        services.close()
        client.close()
    speedup = rates[3] / rates[1]
    once = calls[1] == calls[3] == backlog
    return Row(
        f"cold backlog of {backlog} cards: 3 workers vs 1, {WORKER_THREADS} threads each",
        f"{rates[1]:.2f} → {rates[3]:.2f} cards/s: ×{speedup:.2f} · model calls {calls[1]}, {calls[3]}",
        f"model {model_latency:g} s per card",
        "≥ ×2.5, each card made once",
        speedup >= 2.5 and once,
        "" if once else "a card was made more than once (or not at all)",
    )


# -- a merge's webhook to its card --------------------------------------------------------------------


def webhook_row(world: World, options: Options, deliveries: int) -> Row:
    """Signed `pull_request` merge deliveries, one every 0.5 s (fewer than one worker of 8 threads
    makes at 2 s a card, so none waits for another's): POST → the card in the store."""
    world.flush_redis()
    world.reset_counts()
    client = redis.Redis.from_url(world.redis_url)
    served = Served(world, pace=0.0, extra_env={"GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET})
    url = served.url.replace("/slack/events", "/github/webhook")
    seconds: list[float] = []
    try:
        with workers(world, 1, 8):
            pending: dict[str, float] = {}
            for row in world.rows[:deliveries]:
                body = json.dumps(
                    {
                        "action": "closed",
                        "number": row["number"],
                        "pull_request": {"number": row["number"], "merged": True, "merge_commit_sha": None},
                        "repository": {"full_name": REPO},
                    }
                ).encode()
                signature = "sha256=" + hmac.new(WEBHOOK_SECRET.encode(), body, hashlib.sha256).hexdigest()
                started = time.monotonic()
                response = requests.post(
                    url,
                    data=body,
                    headers={
                        "Content-Type": "application/json",
                        "X-GitHub-Event": "pull_request",
                        "X-GitHub-Delivery": str(uuid.uuid4()),
                        "X-Hub-Signature-256": signature,
                    },
                    timeout=10,
                )
                if response.status_code != 202:
                    raise SystemExit(f"bench: the webhook answered {response.status_code}: {response.text}")
                pending[f"{NAMESPACE}:queued:{REPO.lower()}#{row['number']}:en"] = started
                time.sleep(0.5)
                for key in [key for key in pending if not client.exists(key)]:
                    seconds.append(time.monotonic() - pending.pop(key))
            deadline = time.monotonic() + 120
            while pending and time.monotonic() < deadline:
                for key in [key for key in pending if not client.exists(key)]:
                    seconds.append(time.monotonic() - pending.pop(key))
                time.sleep(0.005)
    finally:
        served.close()
        client.close()
    if not seconds:
        return Row("webhook → card ready", "no card made", "—", "—", False, "no card was made")
    ordered = sorted(seconds)
    p99 = ordered[min(len(ordered) - 1, math.ceil(len(ordered) * 0.99) - 1)]
    model_latency = options.latencies.model
    return Row(
        f"webhook → card ready, {len(seconds)} merges",
        f"median {statistics.median(seconds):.2f} s · p99 {p99:.2f} s",
        f"model {model_latency:g} s per card",
        "median ≤ model + 1 s",
        statistics.median(seconds) <= model_latency + 1.0,
        "" if len(seconds) == deliveries else f"{deliveries - len(seconds)} cards not made in time",
    )
