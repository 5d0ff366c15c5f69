"""The 1,000-repository day, measured (issue 36): `python -m bench --only scale --repos 1000`.

Synthetic repositories of 20 merged PRs each (the data set's rows drawn at random), a channel for
every 10 of them, against the fakes. First the cards: `serve --http --no-worker` takes every merge's
signed webhook, sent from a process of its own, and 10 `prdigest worker` processes make the cards
from the queue, with a model of 0.5 s a card and 64 slots. Then the digests: serve again, with every
channel due at the same minute, while a light load of signed `/pr` commands measures its acks.
Both on one Redis and on a three-master cluster (the card queue then on a Redis of its own).

Not in `make bench` nor in `make check`: it takes minutes per thousand PRs on two cores.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import urllib.parse
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import redis
from devkit.fakes import dataset
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import CHAT_PATH, FakeOpenAI
from devkit.fakes.slack import FakeSlack

from bench.deployed import prdigest_process, serving
from bench.env import REPO_ROOT, SECRET, Latencies, World, card_responder
from bench.queue import WEBHOOK_SECRET, queue_idle, workers
from bench.scale_rows import Day, rows_of
from bench.scale_world import (
    Merge,
    RedisMode,
    Stores,
    channels,
    config_text,
    cpu_seconds,
    families,
    peak_rss_mb,
    populate,
    stores,
    used_memory,
)
from bench.scenarios import Row, list_pages
from bot.settings import load_settings
from bot.wiring.process import build_process
from bot.wiring.slack import wire_slack
from bot.wiring.timing import Timing

WORKERS, WORKER_THREADS = 10, 8  # 80 threads: more than the model's slots, so that they stay full
MODEL_LATENCY, MODEL_SLOTS = 0.5, 64
WEBHOOK_CONCURRENCY = 8  # deliveries in flight at once, from the sender's process
SERVING = re.compile(r"(http://127\.0\.0\.1:\d+)/slack/events")  # serve's line on stderr, once it listens
PROMPT_PR = re.compile(r"Repository: (\S+)\nPR: #(\d+)")  # how a card's prompt names its PR
# What a worker logs when a lease it holds could not be renewed (bot/cards/flight.py), and when a
# job raised (Dramatiq, which retries it): counted from the workers' logs.
LEASE_LOST, JOB_FAILED = "was lost while held", "Failed to process message"
SLASH_PAUSE = 0.5  # the light load while the digests post: one /pr at a time, half a second apart
MESSAGES_GUESS = 20  # a channel's messages, to size the /pr load and the wait (200 PRs: about 18)


def scale_rows(
    repos: int, modes: list[RedisMode], latencies: Latencies, dataset_path: Path | None, workdir: Path
) -> tuple[list[Row], list[str]]:
    """The day on each Redis mode: its rows, and the 10,000-repository day on paper."""
    source = dataset.load_rows(dataset_path)
    days: list[Day] = []
    with (
        FakeGitHub(latency=latencies.github) as github,
        FakeOpenAI(latency=MODEL_LATENCY, max_concurrent=MODEL_SLOTS, responder=card_responder) as model,
        FakeSlack(latency=latencies.slack) as slack,
    ):
        merges = populate(github, repos, source, datetime.now(UTC))
        for mode in modes:
            github.reset_requests()
            model.reset_requests()
            slack.reset()
            with stores(mode) as store:
                world = World(github, model, slack, store.queue, [], workdir / f"scale-{mode}.toml", {})
                world.env = _env(world, store)
                days.append(_day(world, store, merges, channels(repos)))
    return rows_of(days, MODEL_SLOTS, MODEL_LATENCY)


def _env(world: World, store: Stores) -> dict[str, str]:
    return {
        "PRDIGEST_CONFIG": str(world.config_path),
        "GITHUB_API_URL": world.github.url,
        "GITHUB_TOKEN": "bench",
        "GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET,
        "OPENAI_API_KEY": "bench",
        "OPENAI_BASE_URL": f"{world.model.url}/v1",
        "SLACK_BOT_TOKEN": world.slack.bot_token,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": world.slack.api_url,
        **store.env,
    }


def _day(world: World, store: Stores, merges: list[Merge], followed: dict[str, list[str]]) -> Day:
    day = Day(store.mode, len(merges), len(followed), len(store.store_ports), WORKERS, WORKER_THREADS)
    base = used_memory(store.store_ports)
    world.config_path.write_text(config_text(followed, None), encoding="utf-8")
    logs = [world.config_path.with_name(f"worker-{index}.log") for index in range(WORKERS)]
    offsets = [log.stat().st_size if log.exists() else 0 for log in logs]
    with workers(world, WORKERS, WORKER_THREADS) as processes:
        pids = [process.pid for process in processes]
        _cards(world, store, merges, day, pids)
        day.bytes_cards = used_memory(store.store_ports) - base
        day.families_cards = families(store.store_ports)
        _digests(world, merges, followed, day)
        day.bytes_day = used_memory(store.store_ports) - base
        day.families_day = families(store.store_ports)
        day.worker_rss = [peak_rss_mb(pid) for pid in pids]
    said = "".join(
        log.read_bytes()[offset:].decode(errors="replace") for log, offset in zip(logs, offsets, strict=True)
    )
    day.leases_lost = said.count(LEASE_LOST)
    day.jobs_failed = said.count(JOB_FAILED)
    return day


# -- the cards, from the webhook --------------------------------------------------------------------


def _cards(world: World, store: Stores, merges: list[Merge], day: Day, pids: list[int]) -> None:
    serve, url = _serve(world)
    queue = redis.Redis.from_url(store.queue.url)
    plan = {
        "url": f"{url}/github/webhook",
        "concurrency": WEBHOOK_CONCURRENCY,
        "requests": [_delivery(merge) for merge in merges],
    }
    try:
        world.github.reset_requests()
        calls, waited, asked = world.model.calls, world.model.waited, len(world.model.requests)
        cpu = _cpus(pids, serve.pid, store)
        started = time.monotonic()
        results = _answers(_send(plan, world.config_path.with_name("deliveries.json")), timeout=None)
        day.delivering = time.monotonic() - started
        _wait_for(lambda: queue_idle(queue), max(600.0, len(merges) * MODEL_LATENCY), "the cards were not all made")
        day.carding = time.monotonic() - started
        day.cpu_cards = tuple(after - before for after, before in zip(_cpus(pids, serve.pid, store), cpu, strict=True))
        day.cards, day.waited = world.model.calls - calls, world.model.waited - waited
        day.second_asks = _second_asks(world.model, asked)
        day.webhook_acks = [milliseconds for milliseconds, _ in results]
        day.webhook_failures = sum(1 for _, status in results if status != 202)
        day.github_cards = len(world.github.requests)
        day.github_kinds_cards = world.github.counts_by_kind()
        day.serve_rss_cards = peak_rss_mb(serve.pid)
    finally:
        _stop(serve)
        queue.close()


def _second_asks(model: FakeOpenAI, since: int) -> int:
    """Chat requests that answer a card of the model's: asked again, as the card writer does when
    a card names a figure or identifier the PR does not (bot/cards)."""
    return sum(
        1
        for request in model.requests[since:]
        if request.path == CHAT_PATH and any(message["role"] == "assistant" for message in request.json()["messages"])
    )


def _carded(model: FakeOpenAI, since: int) -> list[str]:
    """The PRs whose cards the model was asked for since `since`, as `owner/repo#N`."""
    found = []
    for request in model.requests[since:]:
        if request.path == CHAT_PATH:
            named = PROMPT_PR.search(request.json()["messages"][-1]["content"])
            found.append(f"{named[1]}#{named[2]}" if named else "a request naming no PR")
    return found


def _delivery(merge: Merge) -> dict[str, Any]:
    """GitHub's `pull_request` delivery of a merge, signed (GitHub's signature holds no time)."""
    body = json.dumps(
        {
            "action": "closed",
            "number": merge.number,
            "pull_request": {"number": merge.number, "merged": True, "merge_commit_sha": merge.sha},
            "repository": {"full_name": merge.repo},
        }
    )
    signature = "sha256=" + hmac.new(WEBHOOK_SECRET.encode(), body.encode(), hashlib.sha256).hexdigest()
    headers = {
        "X-GitHub-Event": "pull_request",
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": signature,
    }
    return {"body": body, "content_type": "application/json", "headers": headers}


def _cpus(pids: list[int], serve: int, store: Stores) -> tuple[float, float, float, float]:
    """CPU seconds so far of the workers, serve, Redis (every node and the queue's) and this
    process (the fakes), to say how much of the two cores the run took."""
    ports = set(store.store_ports) | {store.queue.port}
    spent = 0.0
    for port in ports:
        with redis.Redis(port=port) as client:
            info = client.info("cpu")
            spent += float(info["used_cpu_user"]) + float(info["used_cpu_sys"])
    return sum(cpu_seconds(pid) for pid in pids), cpu_seconds(serve), spent, time.process_time()


# -- every channel's digest at one post_at ----------------------------------------------------------


def _digests(world: World, merges: list[Merge], followed: dict[str, list[str]], day: Day) -> None:
    post_at = _next_minute()
    world.config_path.write_text(config_text(followed, post_at), encoding="utf-8")
    posted_at = time.monotonic() - (time.time() - post_at.timestamp())  # post_at on the fakes' clock
    world.github.reset_requests()
    calls, asked = world.model.calls, len(world.model.requests)
    world.slack.enforce_pacing = True
    serve, url = _serve(world)
    # The scheduler's own record of each channel's run (the ledger in the store), read as /pr following reads it.
    services = build_process(load_settings(world.env), Timing(), warn=lambda message: None)
    posting = wire_slack(services).tenants.home.digests
    stop = world.config_path.with_name("stop-commands")
    stop.unlink(missing_ok=True)
    guess = len(followed) * MESSAGES_GUESS / 4  # 4 channels at a time (bot/jobs/scheduler.py)
    plan = {
        "url": f"{url}/slack/events",
        "secret": SECRET,
        "concurrency": 1,
        "pause": SLASH_PAUSE,
        "stop_file": str(stop),
        "requests": _commands(world, merges, followed, int(4 * guess / SLASH_PAUSE) + 100),
    }
    key = post_at.date().isoformat()
    try:
        sender = _send(plan, world.config_path.with_name("commands.json"))
        try:
            _wait_for(
                lambda: all(posting.done(channel, key) for channel in followed),
                600 + 3 * guess,
                "the digests were not all posted",
            )
        finally:
            stop.touch()
            results = _answers(sender, timeout=120)
        day.serve_rss_digests = peak_rss_mb(serve.pid)
        runs = [posting.last_run(channel) for channel in followed]
        day.shown = sum(run.prs for run in runs if run is not None)
        times = [message["posted_at"] for message in world.slack.all_messages() if message["channel"] in followed]
        day.messages = len(times)
        day.to_first, day.to_last = min(times) - posted_at, max(times) - posted_at
        day.digest_calls = world.model.calls - calls
        day.carded_late = _carded(world.model, asked)
        day.slash_acks = [milliseconds for milliseconds, _ in results]
        day.slash_failures = sum(1 for _, status in results if status != 200)
        day.github_digests = len(world.github.requests)
        day.github_kinds_digests = world.github.counts_by_kind()
        day.pages_digests = list_pages(world)
    finally:
        world.slack.enforce_pacing = False
        services.close()
        _stop(serve)


def _next_minute() -> datetime:
    """Waits for the next minute to begin, and returns it: the post_at every channel shares. Not
    23:59, which a serve coming up a moment later would read on the next day, due that evening."""
    while True:
        now = datetime.now(UTC)
        minute = (now + timedelta(minutes=1)).replace(second=0, microsecond=0)
        time.sleep((minute - now).total_seconds())
        if (minute.hour, minute.minute) != (23, 59):
            return minute


def _commands(world: World, merges: list[Merge], followed: dict[str, list[str]], count: int) -> list[dict[str, str]]:
    """`/pr owner/repo#N` for merged PRs drawn at random, each from the channel that follows it."""
    channel_of = {repo: channel for channel, repos in followed.items() for repo in repos}
    rng = random.Random(7)
    planned = []
    for _ in range(count):
        merge = rng.choice(merges)
        form = {
            "command": "/pr",
            "text": f"{merge.repo}#{merge.number}",
            "channel_id": channel_of[merge.repo],
            "user_id": "U0BENCH",
            "response_url": world.slack.new_response_url(),
            "trigger_id": f"T{uuid.uuid4().hex}.bench",
        }
        planned.append({"body": urllib.parse.urlencode(form), "content_type": "application/x-www-form-urlencoded"})
    return planned


# -- processes ----------------------------------------------------------------------------------------


def _serve(world: World) -> tuple[subprocess.Popen[bytes], str]:
    """`prdigest serve --http --no-worker` on a port of its choosing (one named by this process
    could be taken by another before serve binds it), and its URL, once it answers /healthz."""
    log = world.config_path.with_name("serve.log")
    start = log.stat().st_size if log.exists() else 0
    serve = prdigest_process(world, world.config_path, "serve", "--http", "--no-worker", "--port", "0")
    found: list[str] = []

    def listening() -> bool:
        said = log.read_bytes()[start:].decode(errors="replace")
        if serve.poll() is not None:
            raise SystemExit(f"bench: serve ended at its start: {said[-500:]}")
        found.extend(SERVING.findall(said))
        return bool(found)

    _wait_for(listening, 60, "serve did not say where it listens")
    serving(found[0])
    return serve, found[0]


def _send(plan: dict[str, Any], path: Path) -> subprocess.Popen[bytes]:
    """bench/load.py in a process of its own, sending `plan` (written to `path`, read as its stdin)."""
    path.write_text(json.dumps(plan), encoding="utf-8")
    with path.open("rb") as stdin:
        return subprocess.Popen(
            [sys.executable, "-m", "bench.load"],
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=os.environ | {"PYTHONPATH": str(REPO_ROOT)},
        )


def _answers(sender: subprocess.Popen[bytes], timeout: float | None) -> list[tuple[float, int]]:
    out, err = sender.communicate(timeout=timeout)
    if sender.returncode != 0:
        raise SystemExit(f"bench: the sending process failed: {err.decode()[-500:]}")
    return [(float(milliseconds), int(status)) for milliseconds, status in json.loads(out)]


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=180)
    except subprocess.TimeoutExpired:
        process.kill()


def _wait_for(condition: Callable[[], bool], timeout: float, problem: str) -> None:
    """Polled every 0.2 s: this process serves the fakes, and a tighter loop takes their core."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"bench: {problem}")
        time.sleep(0.2)
