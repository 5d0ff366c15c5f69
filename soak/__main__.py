"""`make soak` (`python -m soak`): prdigest under faults, replicas and load, as an outcome table.

Every scenario counts what reached Slack: PRs expected, posted, posted twice; questions sent,
answered, answered twice. Nothing lost and nothing twice is the pass mark. The quick versions
of these faults are in tests/integration/test_reliability.py; this is the long run.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import hmac
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import redis
import requests
from devkit.fakes.server import RecordedRequest, Response
from devkit.ports import free_port
from devkit.proc import rss_mb
from devkit.slack_signing import signed_headers
from devkit.tables import table

from bench.env import REPO, SECRET, Latencies, World, world
from bench.queue import NAMESPACE, queue_idle
from bench.scenarios import PRODUCT_ENV_PREFIXES, REPO_ROOT, Served
from bot.core.card_jobs import CardJob
from bot.errors import PrdigestError
from bot.models import DigestOptions, Filters, Window
from bot.settings import load_settings
from bot.wiring.process import build_process

CHANNELS = ("C0SOAK0001", "C0SOAK0002", "C0SOAK0003", "C0SOAK0004")
NUMBER = re.compile(r"#(\d+)\b")


@dataclass
class Outcome:
    fault: str
    runs: int = 0
    prs_expected: int = 0
    prs_posted: int = 0
    prs_twice: int = 0
    questions_sent: int = 0
    questions_answered: int = 0
    questions_twice: int = 0
    note: str = ""

    @property
    def ok(self) -> bool:
        lost = self.prs_posted < self.prs_expected or self.questions_answered < self.questions_sent
        return not lost and self.prs_twice == 0 and self.questions_twice == 0


def config_text(post_at: str) -> str:
    tables = "\n".join(
        f'[[channels]]\nid = "{channel}"\nrepos = ["{REPO}"]\npost_at = "{post_at}"\n' for channel in CHANNELS
    )
    return f'[defaults]\ntimezone = "UTC"\npost_at = "{post_at}"\n\n{tables}'


# -- counting what Slack received ---------------------------------------------------------------


def thread_numbers(world: World, channel: str, expected: set[int]) -> Counter[int]:
    """How many times each expected PR number appears in the channel's digest threads."""
    counts: Counter[int] = Counter()
    for lead in world.slack.messages(channel):
        for message in world.slack.thread(channel, lead["ts"]):
            counts.update(
                number for number in map(int, NUMBER.findall(message.get("text") or "")) if number in expected
            )
    return counts


def tally(outcome: Outcome, world: World, channel: str, expected: set[int]) -> None:
    counts = thread_numbers(world, channel, expected)
    outcome.prs_expected += len(expected)
    outcome.prs_posted += len(counts)
    outcome.prs_twice += sum(1 for count in counts.values() if count > 1)
    leads = len(world.slack.messages(channel))
    if leads > 1:
        outcome.prs_twice += len(expected)  # a second lead is a second digest
        outcome.note = f"{leads} lead messages in {channel}"


def window_and_day() -> tuple[Window, str]:
    now = datetime.now(UTC)
    return Window(now - timedelta(hours=24), now), now.date().isoformat()


def expected_numbers(world: World) -> set[int]:
    return {row["number"] for row in world.rows}


# -- faults injected at the fakes ----------------------------------------------------------------


@contextlib.contextmanager
def faulty(server: Any, fault: Callable[[RecordedRequest], Response | None]) -> Iterator[None]:
    """Let `fault` answer a request instead of the fake (None: the fake answers as usual)."""
    original = server.handle

    def handle(request: RecordedRequest) -> Response:
        return fault(request) or original(request)

    server.handle = handle
    try:
        yield
    finally:
        server.handle = original


def sometimes(rate: float, seed: int) -> Callable[[], bool]:
    rng, lock = random.Random(seed), threading.Lock()

    def roll() -> bool:
        with lock:
            return rng.random() < rate

    return roll


def json_response(status: int, body: str, headers: dict[str, str] | None = None) -> Response:
    return Response(status=status, headers={"Content-Type": "application/json", **(headers or {})}, body=body.encode())


# -- in-process scenarios -------------------------------------------------------------------------


def digest_once(world: World, served: Served, channel: str, *, retries: int = 1) -> None:
    window, day = window_and_day()
    for _ in range(retries + 1):
        try:
            served.parts.digests.run(channel, day, window, (REPO,), options=DigestOptions("en", Filters(), "note"))
            return
        except PrdigestError:
            continue  # the next scheduled run finishes what is missing


def fresh(world: World) -> None:
    world.flush_redis()
    world.reset_counts()


def model_faults(world: World, runs: int) -> list[Outcome]:
    flaky = Outcome("model: 30% of calls 429/500")
    roll = sometimes(0.3, 1)
    for run in range(runs):
        fresh(world)
        with faulty(world.model, lambda r: json_response(429 if roll() else 500, "{}") if roll() else None):
            served = Served(world, pace=0.0)
            digest_once(world, served, CHANNELS[0])
            served.close()
        tally(flaky, world, CHANNELS[0], expected_numbers(world))
        flaky.runs = run + 1
    down = Outcome("model: every call fails", runs=1)
    fresh(world)
    with faulty(world.model, lambda r: json_response(500, "{}") if "chat" in r.path else None):
        served = Served(world, pace=0.0)
        digest_once(world, served, CHANNELS[0])
        served.close()
    tally(down, world, CHANNELS[0], expected_numbers(world))
    lead = world.slack.messages(CHANNELS[0])
    down.note = "lead says degraded" if lead and "model could not be reached" in str(lead[0]["blocks"]) else "NO NOTE"
    hang = Outcome("model: 10% of calls hang", runs=1)
    fresh(world)
    roll_hang = sometimes(0.1, 2)

    def hung(request: RecordedRequest) -> Response | None:
        if roll_hang():
            world.model.sleep(30)
        return None

    with faulty(world.model, hung):
        served = Served(world, pace=0.0, model_timeout=3.0)
        started = time.monotonic()
        digest_once(world, served, CHANNELS[0])
        hang.note = f"digest in {time.monotonic() - started:.0f} s, no stuck worker"
        served.close()
    tally(hang, world, CHANNELS[0], expected_numbers(world))
    return [flaky, down, hang]


def github_faults(world: World) -> list[Outcome]:
    outcomes = []
    reset = Outcome("GitHub: 403 rate limit, reset 2 s ahead", runs=1)
    fresh(world)
    # The limit runs out partway (the list page and a few PRs), and resets 2 s later.
    world.github.rate_limit, world.github.rate_limit_reset_in = len(world.rows) // 2, 2
    timer = threading.Timer(2.5, lambda: setattr(world.github, "rate_limit", None))
    timer.start()
    served = Served(world, pace=0.0)
    started = time.monotonic()
    digest_once(world, served, CHANNELS[0])
    reset.note = f"waited, done in {time.monotonic() - started:.0f} s"
    served.close()
    timer.join()
    tally(reset, world, CHANNELS[0], expected_numbers(world))
    outcomes.append(reset)

    bad_gateway = Outcome("GitHub: 10% of requests 502", runs=1)
    fresh(world)
    roll = sometimes(0.1, 3)
    with faulty(world.github, lambda r: json_response(502, '{"message": "Bad Gateway"}') if roll() else None):
        served = Served(world, pace=0.0)
        digest_once(world, served, CHANNELS[0])
        served.close()
    tally(bad_gateway, world, CHANNELS[0], expected_numbers(world))
    outcomes.append(bad_gateway)

    gone = Outcome("GitHub: a PR gone (404) mid-digest", runs=1)
    fresh(world)
    victim = world.rows[len(world.rows) // 2]["number"]
    world.github.fail_next(rf"/pulls/{victim}/files$", 404, times=10, body={"message": "Not Found"})
    served = Served(world, pace=0.0)
    digest_once(world, served, CHANNELS[0])
    served.close()
    tally(gone, world, CHANNELS[0], expected_numbers(world))
    lead = world.slack.messages(CHANNELS[0])
    gone.note = f"#{victim} named in the lead" if lead and f"#{victim}" in str(lead[0]["blocks"]) else "NOT NAMED"
    outcomes.append(gone)
    return outcomes


def slack_faults(world: World) -> list[Outcome]:
    limited = Outcome("Slack: 10% of posts 429 Retry-After 1", runs=1)
    fresh(world)
    roll = sometimes(0.1, 4)

    def rate_limited(request: RecordedRequest) -> Response | None:
        if request.path.endswith("chat.postMessage") and roll():
            return json_response(429, '{"ok": false, "error": "ratelimited"}', {"Retry-After": "1"})
        return None

    with faulty(world.slack, rate_limited):
        served = Served(world, pace=1.0)
        digest_once(world, served, CHANNELS[0])
        served.close()
    tally(limited, world, CHANNELS[0], expected_numbers(world))

    halfway = Outcome("Slack: chat.postMessage fails halfway", runs=1)
    fresh(world)
    world.slack.fail_next("chat.postMessage", error="internal_error", after=3, times=1)
    served = Served(world, pace=0.0)
    digest_once(world, served, CHANNELS[0], retries=1)
    served.close()
    tally(halfway, world, CHANNELS[0], expected_numbers(world))
    halfway.note = "the next run finished the thread"
    return [limited, halfway]


def redis_fault(world: World) -> Outcome:
    """Redis stopped while the thread is posted, back 5 s later and empty: posting pauses, then
    resumes from what Slack shows, every card once."""
    outcome = Outcome("Redis: stopped mid-post for 5 s, restarted empty", runs=0)
    fresh(world)
    posts = {"n": 0}
    stopped = threading.Event()

    def stop_redis(request: RecordedRequest) -> Response | None:
        if request.path.endswith("/chat.postMessage"):
            posts["n"] += 1
            if posts["n"] == 2 and not stopped.is_set():  # the lead and one thread message are in
                stopped.set()
                world.redis.stop()
                threading.Timer(5.0, world.redis.start).start()
        return None

    window, day = window_and_day()
    with faulty(world.slack, stop_redis):
        served = Served(world, pace=0.0)
        for _ in range(10):
            outcome.runs += 1
            try:
                served.parts.digests.run(
                    CHANNELS[0], day, window, (REPO,), options=DigestOptions("en", Filters(), "note")
                )
                break
            except PrdigestError:
                wait_until(lambda: _redis_up(world.redis_url), 15)  # what the scheduler's tick does
        served.close()
    tally(outcome, world, CHANNELS[0], expected_numbers(world))
    outcome.note = f"{outcome.runs} runs: paused while Redis was away, finished once it answered"
    return outcome


def redis_down_at_post_time(world: World, workdir: Path, outage: float) -> Outcome:
    """Redis away when every channel is due, in three `serve` processes: nothing is posted while
    it is away, every digest exactly once after it comes back."""
    outcome = Outcome(f"Redis down at post_at for {outage:.0f} s, 3 replicas, {len(CHANNELS)} channels", runs=1)
    fresh(world)
    world.redis.stop()
    replicas = [Replica(world, workdir) for _ in range(3)]
    expected = expected_numbers(world)
    try:
        for replica in replicas:
            wait_until(lambda r=replica: _healthy(r), 30)
        time.sleep(outage)
        posted_while_down = len(world.slack.calls("chat.postMessage"))
        health = {_health_text(replica) for replica in replicas}
        world.redis.start()
        back = time.monotonic()
        done = wait_until(
            lambda: all(len(thread_numbers(world, channel, expected)) == len(expected) for channel in CHANNELS), 240
        )
        after = time.monotonic() - back
        time.sleep(5)  # time for a duplicate to show up, if one were coming
    finally:
        for replica in replicas:
            replica.stop()
    for channel in CHANNELS:
        tally(outcome, world, channel, expected)
    leads = sum(len(world.slack.messages(channel)) for channel in CHANNELS)
    outcome.prs_twice += posted_while_down  # anything posted while Redis was away is a failure
    outcome.note = f"{posted_while_down} posts while down; /healthz: {' / '.join(sorted(health))}; " + (
        f"{leads} digests, all posted {after:.0f} s after Redis came back" if done else "TIMED OUT"
    )
    return outcome


def _health_text(replica: Replica) -> str:
    import requests

    try:
        return requests.get(replica.url.replace("/slack/events", "/healthz"), timeout=2).text.strip()
    except requests.RequestException as exc:
        return type(exc).__name__


def _redis_up(url: str) -> bool:
    try:
        return bool(redis.Redis.from_url(url).ping())
    except redis.RedisError:
        return False


# -- process scenarios ------------------------------------------------------------------------------


def prdigest(world: World, workdir: Path, *args: str) -> subprocess.Popen[bytes]:
    """`prdigest ARGS…` as its own process, with the world's environment and nothing of ours."""
    env = {name: value for name, value in os.environ.items() if not name.startswith(PRODUCT_ENV_PREFIXES)}
    env |= world.env | {"PYTHONPATH": str(REPO_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "bot.cli", *args],
        env=env,
        cwd=workdir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


class Replica:
    """A `prdigest serve --http` process, as an operator runs it."""

    def __init__(self, world: World, workdir: Path) -> None:
        self.port = free_port()
        self.process = prdigest(world, workdir, "serve", "--http", "--host", "127.0.0.1", "--port", str(self.port))
        self.url = f"http://127.0.0.1:{self.port}/slack/events"

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=15)

    def rss_mb(self) -> float:
        return rss_mb(self.process.pid)


# `...`: callers in loops bind the loop's values as lambda defaults, which Callable[[], bool] refuses.
def wait_until(condition: Callable[..., bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return False


def replicas_at_post_time(world: World, workdir: Path) -> Outcome:
    outcome = Outcome(f"3 replicas, schedulers due at once, {len(CHANNELS)} channels", runs=1)
    fresh(world)
    replicas = [Replica(world, workdir) for _ in range(3)]
    expected = expected_numbers(world)
    try:
        done = wait_until(
            lambda: all(len(thread_numbers(world, channel, expected)) == len(expected) for channel in CHANNELS), 240
        )
        time.sleep(5)  # time for a duplicate to show up, if one were coming
    finally:
        for replica in replicas:
            replica.stop()
    for channel in CHANNELS:
        tally(outcome, world, channel, expected)
    outcome.note = outcome.note or ("all posted" if done else "TIMED OUT")
    return outcome


def poster_killed(world: World, workdir: Path) -> Outcome:
    outcome = Outcome("the posting replica killed mid-thread", runs=1)
    fresh(world)
    world.slack.method_latency["chat.postMessage"] = 1.5  # a thread long enough to be cut
    expected = expected_numbers(world)
    first = Replica(world, workdir)
    others: list[Replica] = []
    try:
        # Killed as soon as its first lead message is in: every thread is still to be posted.
        wait_until(lambda: any(world.slack.messages(channel) for channel in CHANNELS), 180)
        first.kill()
        killed_at = time.monotonic()
        others = [Replica(world, workdir) for _ in range(2)]
        done = wait_until(
            lambda: all(len(thread_numbers(world, channel, expected)) == len(expected) for channel in CHANNELS), 300
        )
        outcome.note = f"finished {time.monotonic() - killed_at:.0f} s after the kill" if done else "TIMED OUT"
        time.sleep(3)
    finally:
        world.slack.method_latency.pop("chat.postMessage", None)
        for replica in others:
            replica.stop()
    for channel in CHANNELS:
        tally(outcome, world, channel, expected)
    return outcome


def load(world: World, workdir: Path, events: int, seconds: float) -> Outcome:
    """`events` questions over two replicas; 10% are delivered again to the other replica."""
    outcome = Outcome(f"load: {events} events in {seconds:.0f} s over 2 replicas, 10% retried", runs=1)
    fresh(world)
    model_latency = world.model.latency
    world.model.latency = 0.2
    replicas = [Replica(world, workdir) for _ in range(2)]
    try:
        for replica in replicas:
            wait_until(lambda r=replica: _healthy(r), 30)
        roll = sometimes(0.1, 5)
        rss_before = [replica.rss_mb() for replica in replicas]
        sent: list[str] = []
        interval = seconds / events
        started = time.monotonic()
        with contextlib.ExitStack():
            import requests

            session = requests.Session()
            for index in range(events):
                channel = f"C0LOAD{index % 50:04d}"
                number = world.rows[index % len(world.rows)]["number"]
                ts = world.slack.add_message(channel, f"<@UBOT> {REPO}#{number}?")
                event = {
                    "type": "app_mention",
                    "channel": channel,
                    "user": "U0SOAK",
                    "ts": ts,
                    "text": f"<@UBOT> {REPO}#{number}?",
                }
                target = replicas[index % 2]
                _signed_event(session, target.url, event, f"EvLoad{index}")
                if roll():
                    _signed_event(session, replicas[(index + 1) % 2].url, event, f"EvLoad{index}", retry=1)
                sent.append(ts)
                pause = started + (index + 1) * interval - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
            session.close()

        def answered() -> Counter[str]:
            counts: Counter[str] = Counter()
            for message in world.slack.all_messages():
                if message.get("bot_id") and message.get("thread_ts") in sent:
                    counts[message["thread_ts"]] += 1
            return counts

        wait_until(lambda: len(answered()) >= len(sent), 120)
        time.sleep(3)
        counts = answered()
        rss_after = [replica.rss_mb() for replica in replicas]
    finally:
        world.model.latency = model_latency
        for replica in replicas:
            replica.stop()
    outcome.questions_sent = len(sent)
    outcome.questions_answered = len(counts)
    outcome.questions_twice = sum(1 for count in counts.values() if count > 1)
    growth = ", ".join(f"{before:.0f}→{after:.0f} MB" for before, after in zip(rss_before, rss_after, strict=True))
    outcome.note = f"RSS {growth}; sent in {time.monotonic() - started:.0f} s"
    return outcome


def _healthy(replica: Replica) -> bool:
    import requests

    try:
        return requests.get(replica.url.replace("/slack/events", "/healthz"), timeout=1).status_code == 200
    except requests.ConnectionError:
        return False


def _signed_event(session: Any, url: str, event: dict[str, Any], event_id: str, retry: int = 0) -> None:
    import json

    body = json.dumps({"type": "event_callback", "team_id": "T0TEST", "event_id": event_id, "event": event}).encode()
    headers = signed_headers(SECRET, body, "application/json")
    if retry:
        headers |= {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"}
    session.post(url, data=body, headers=headers, timeout=30)


# -- the table ---------------------------------------------------------------------------------------


# -- the card queue ---------------------------------------------------------------------------------

WEBHOOK_SECRET = "soak-webhook-secret"
HOOK_FIRST = 700_000  # the webhook row's PRs: merged days ago, outside every digest's window


class Worker:
    """A `prdigest worker` process."""

    def __init__(self, world: World, workdir: Path, threads: int) -> None:
        self.process = prdigest(world, workdir, "worker", "--threads", str(threads))

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=90)


def _cards_stored(client: redis.Redis) -> int:
    return sum(1 for _ in client.scan_iter("prdigest:v1:card:*", count=1000))


def worker_killed(world: World, workdir: Path) -> Outcome:
    """A worker SIGKILLed with jobs in hand; another takes them over once its heartbeat stops."""
    outcome = Outcome("a worker SIGKILLed mid-job, another started", runs=1)
    fresh(world)
    client = redis.Redis.from_url(world.redis_url)
    world.model.latency = 1.5  # jobs long enough to be cut
    numbers = sorted(expected_numbers(world))
    first = Worker(world, workdir, threads=4)
    second: Worker | None = None
    try:
        wait_until(lambda: client.zcard(f"{NAMESPACE}:workers") >= 1, 60)
        services = build_process(load_settings(world.env), warn=lambda message: None)
        queue = services.queue
        assert queue is not None
        for number in numbers:
            queue.submit(CardJob(REPO, number, "en"))
        wait_until(lambda: world.model.calls >= 6, 60)  # a few cards made, four in the model's hands
        first.kill()
        killed_at = time.monotonic()
        in_flight = world.model.calls - _cards_stored(client)
        second = Worker(world, workdir, threads=4)
        done = wait_until(lambda: _cards_stored(client) >= len(numbers) and queue_idle(client), 300)
        time.sleep(2)
        services.close()
    finally:
        world.model.latency = 0.3
        if second is not None:
            second.stop()
    stored = _cards_stored(client)
    repeated = max(0, world.model.calls - len(numbers) - in_flight)
    outcome.prs_expected, outcome.prs_posted, outcome.prs_twice = len(numbers), stored, repeated
    outcome.note = (
        f"all {stored} cards stored {time.monotonic() - killed_at:.0f} s after the kill; "
        f"{world.model.calls} model calls ({in_flight} cut by the kill, made again)"
        if done
        else f"TIMED OUT with {stored} cards"
    )
    client.close()
    return outcome


def webhook_flood(world: World, workdir: Path, deliveries: int) -> Outcome:
    """`deliveries` signed merges to /github/webhook, 10% delivered again; each card made once."""
    outcome = Outcome(f"webhook: {deliveries} merges, 10% delivered again", runs=1)
    fresh(world)
    merged = datetime.now(UTC) - timedelta(days=3)
    numbers = list(range(HOOK_FIRST, HOOK_FIRST + deliveries))
    for number in numbers:
        world.github.add_pr(
            REPO,
            number,
            title=f"Merged change {number}",
            merged_at=merged,
            files=[{"path": f"vllm/hooks/m_{number}.py", "additions": 5, "deletions": 1}],
        )
    client = redis.Redis.from_url(world.redis_url)
    served = Served(world, pace=0.0, extra_env={"GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET})
    url = served.url.replace("/slack/events", "/github/webhook")
    worker = Worker(world, workdir, threads=16)
    rng = random.Random(14)
    sends = [(number, f"soak-{number}") for number in numbers]
    sends += [rng.choice(sends) for _ in range(deliveries // 10)]  # GitHub delivering one again
    rng.shuffle(sends)
    answers: Counter[str] = Counter()
    session_local = threading.local()

    def send(item: tuple[int, str]) -> None:
        number, delivery = item
        session = getattr(session_local, "session", None) or requests.Session()
        session_local.session = session
        body = json.dumps(
            {
                "action": "closed",
                "pull_request": {"number": number, "merged": True, "merge_commit_sha": None},
                "repository": {"full_name": REPO},
            }
        ).encode()
        signature = "sha256=" + hmac.new(WEBHOOK_SECRET.encode(), body, hashlib.sha256).hexdigest()
        headers = {
            "Content-Type": "application/json",
            "X-GitHub-Event": "pull_request",
            "X-GitHub-Delivery": delivery,
            "X-Hub-Signature-256": signature,
        }
        answer = session.post(url, data=body, headers=headers, timeout=30)
        answers[f"{answer.status_code} {','.join(sorted(answer.json()))}"] += 1

    try:
        wait_until(lambda: client.zcard(f"{NAMESPACE}:workers") >= 1, 60)
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=10) as pool:
            list(pool.map(send, sends))
        sent_in = time.monotonic() - started
        done = wait_until(lambda: world.model.calls >= deliveries and queue_idle(client), 600)
        time.sleep(2)
    finally:
        worker.stop()
        served.close()
    stored = _cards_stored(client)
    client.close()
    outcome.prs_expected, outcome.prs_posted = deliveries, stored
    outcome.prs_twice = max(0, world.model.calls - deliveries)
    outcome.note = (
        f"sent in {sent_in:.0f} s; answers: "
        + ", ".join(f"{count} × {answer}" for answer, count in sorted(answers.items()))
        + ("" if done else "; TIMED OUT")
    )
    return outcome


def outcome_table(outcomes: list[Outcome]) -> str:
    headers = ("fault", "runs", "PRs expected", "posted", "twice", "questions sent", "answered", "twice", "", "note")
    rows = [
        (
            o.fault,
            str(o.runs),
            str(o.prs_expected or "—"),
            str(o.prs_posted if o.prs_expected else "—"),
            str(o.prs_twice if o.prs_expected else "—"),
            str(o.questions_sent or "—"),
            str(o.questions_answered if o.questions_sent else "—"),
            str(o.questions_twice if o.questions_sent else "—"),
            "pass" if o.ok else "MISS",
            o.note,
        )
        for o in outcomes
    ]
    return table(headers, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m soak", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--prs", type=int, default=40, help="PRs in each digest (default %(default)s)")
    parser.add_argument("--events", type=int, default=1000, help="questions in the load scenario (default %(default)s)")
    parser.add_argument("--seconds", type=float, default=60.0, help="over how long they are sent (default %(default)s)")
    parser.add_argument(
        "--redis-outage", type=float, default=60.0, help="seconds Redis is away at post time (default %(default)s)"
    )
    parser.add_argument("--runs", type=int, default=3, help="runs of the flaky-model scenario (default %(default)s)")
    parser.add_argument("--deliveries", type=int, default=1000, help="merges sent to the webhook (default %(default)s)")
    args = parser.parse_args(argv)
    started = time.monotonic()
    now = datetime.now(UTC)
    # The replica rows post "today's" digest at the start time: past midnight UTC it would be due
    # only tomorrow, and they would time out with nothing posted.
    if now.date() != (now + timedelta(minutes=25)).date():
        print("soak: start it at least 25 minutes before midnight UTC (its post_at is the start time)")
        return 2
    post_at = now.strftime("%H:%M")  # due at once for every replica's scheduler
    latencies = Latencies(model=0.3, github=0.01, slack=0.01)
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="prdigest-soak-") as tmp:
        workdir = Path(tmp)
        with world(args.prs, latencies, workdir, config_text=config_text(post_at)) as soak_world:
            scenarios: list[Callable[[], Outcome | list[Outcome]]] = [
                lambda: model_faults(soak_world, args.runs),
                lambda: github_faults(soak_world),
                lambda: slack_faults(soak_world),
                lambda: redis_fault(soak_world),
                lambda: redis_down_at_post_time(soak_world, workdir, args.redis_outage),
                lambda: replicas_at_post_time(soak_world, workdir),
                lambda: poster_killed(soak_world, workdir),
                lambda: load(soak_world, workdir, args.events, args.seconds),
                lambda: worker_killed(soak_world, workdir),
                lambda: webhook_flood(soak_world, workdir, args.deliveries),
            ]
            for scenario in scenarios:
                began = time.monotonic()
                done = scenario()
                ran = done if isinstance(done, list) else [done]
                outcomes.extend(ran)
                # How long each took, so the soak's length can be kept in hand.
                print(f"soak: {ran[0].fault}: {time.monotonic() - began:.0f} s", flush=True)
    print(f"prdigest soak · {datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {args.prs} PRs per digest")
    print(outcome_table(outcomes))
    print(f"({time.monotonic() - started:.0f} s)")
    return 0 if all(outcome.ok for outcome in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
