"""Ctrl-C sent to a real `prdigest` process mid-run, against a slow fake model: a terminal command
stops at once, says how far it got, keeps what was done and starts no model call after; a worker
drains on the first, and ends at once on a second."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest
import redis
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import CHAT_PATH, FakeOpenAI
from devkit.fakes.server import RecordedRequest

from bot.core.card_jobs import CardJob
from bot.queue.backends import RedisBackend
from bot.queue.broker import CardQueue
from tests.integration.conftest import REPO
from tests.integration.slack_harness import wait_for

PRS = 52  # the busy day of the issue: 52 merged PRs
CONCURRENCY = 16  # [defaults] concurrency: cards asked of the model at once
QUICK = 5  # cards the model answers at once before it turns slow
SLOW_SECONDS = 60.0  # a local model's minute a card: no slow answer comes within a test
# A stop must end the process within a second (measured: well under); this bound only keeps a
# loaded machine from failing the test, while a run that goes on (42 s before) still fails it.
EXIT_BOUND_SECONDS = 5.0
DAY = datetime(2026, 8, 5, tzinfo=UTC)


class SlowModel(FakeOpenAI):
    """Answers its first `quick` chat requests at once and every later one after `latency`."""

    def __init__(self, quick: int, latency: float) -> None:
        super().__init__(latency=latency)
        self.quick = quick
        self._chats = 0
        self._chats_lock = threading.Lock()

    def latency_of(self, request: RecordedRequest) -> float:
        if request.path != CHAT_PATH:
            return 0.0
        with self._chats_lock:
            self._chats += 1
            quick = self._chats <= self.quick
        return 0.0 if quick else self.latency

    def chats_after(self, moment: float) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == CHAT_PATH and r.at > moment]


@pytest.fixture
def day_of_prs() -> Iterator[FakeGitHub]:
    with FakeGitHub() as github:
        github.add_repo(REPO)
        for number in range(1, PRS + 1):
            github.add_pr(
                REPO,
                number,
                title=f"Change {number}",
                merged_at=DAY + timedelta(minutes=20 * number),
                files=[{"path": f"vllm/m{number}.py", "additions": 40, "deletions": 2}],
            )
        yield github


def environment(github: FakeGitHub, model: FakeOpenAI, redis_url: str | None = None) -> dict[str, str]:
    env = {
        **os.environ,
        "GITHUB_API_URL": github.url,
        "GITHUB_TOKEN": "test",
        "OPENAI_API_KEY": "test",
        "OPENAI_BASE_URL": f"{model.url}/v1",
        "PRDIGEST_CONFIG": "",
    }
    env.pop("REDIS_URL", None)
    if redis_url is not None:
        env["REDIS_URL"] = redis_url
    return env


# `python -m bot.cli.main`, with Ctrl-C as a terminal delivers it. A test run started in the background
# by a script ignores SIGINT, its children inherit that, and prdigest, as Python itself, leaves an
# ignored SIGINT ignored; so the child first takes back Python's own handler.
CLI = (
    "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('bot.cli.main', run_name='__main__', alter_sys=True)"
)


def prdigest(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", CLI, *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def interrupted(process: subprocess.Popen[str], *signals: signal.Signals) -> tuple[float, float, str, str]:
    """Send `signals` (SIGINT unless told), a moment apart; when the first was sent, how long the
    process took to end after it, and its stdout and stderr."""
    sent = time.monotonic()
    for index, signum in enumerate(signals or (signal.SIGINT,)):
        if index:
            time.sleep(0.2)  # the second Ctrl-C of a person who will not wait
        process.send_signal(signum)
    try:
        out, err = process.communicate(timeout=60)
    finally:
        process.kill()
    return sent, time.monotonic() - sent, out, err


def stop_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("prdigest: stopped")]


def test_ctrl_c_stops_a_digest_at_once_and_keeps_the_cards_done(day_of_prs: FakeGitHub, redis_url: str) -> None:
    with SlowModel(quick=QUICK, latency=SLOW_SECONDS) as model:
        process = prdigest(environment(day_of_prs, model, redis_url), "digest", REPO, "--date", "2026-08-05")
        # The quick cards are done and every card thread waits on the slow model.
        wait_for(lambda: model.calls >= QUICK + CONCURRENCY or process.poll() is not None, timeout=60)
        sent, took, out, err = interrupted(process)
        assert process.returncode == 130, err
        assert took < EXIT_BOUND_SECONDS, err
        assert stop_lines(err) == [f"prdigest: stopped: {QUICK} of {PRS} cards were done and are kept"], err
        assert "Traceback" not in err
        assert out == ""
        # No model call started after Ctrl-C: the cards not started are not made at all.
        assert model.chats_after(sent) == []
    # The cards done are in the store for the next run, and none of those cut short is there,
    # not even as a fallback from metadata.
    client = redis.Redis.from_url(redis_url)
    try:
        assert len(client.keys("prdigest:v1:card:*")) == QUICK
        # Nor is a lease of theirs held: a run started at once makes them without waiting.
        assert client.keys("prdigest:v1:lock:*") == []
    finally:
        client.close()


def test_ctrl_c_stops_a_card_at_once(day_of_prs: FakeGitHub) -> None:
    with SlowModel(quick=0, latency=SLOW_SECONDS) as model:
        process = prdigest(environment(day_of_prs, model), "card", f"{REPO}#7")
        wait_for(lambda: model.calls >= 1 or process.poll() is not None, timeout=60)
        sent, took, out, err = interrupted(process)
        assert process.returncode == 130, err
        assert took < EXIT_BOUND_SECONDS, err
        assert stop_lines(err) == ["prdigest: stopped"], err
        assert out == ""
        assert model.calls == 1  # not asked again: a request the stop cut is no failure to retry
        assert model.chats_after(sent) == []


def test_sigterm_stops_an_answer_as_ctrl_c_does(day_of_prs: FakeGitHub) -> None:
    with SlowModel(quick=1, latency=SLOW_SECONDS) as model:  # the card at once, then the answer
        process = prdigest(environment(day_of_prs, model), "ask", f"{REPO}#7", "what changed?")
        wait_for(lambda: model.calls >= 2 or process.poll() is not None, timeout=60)
        sent, took, out, err = interrupted(process, signal.SIGTERM)
        assert process.returncode == 143, err  # 128 + SIGTERM, as a shell reports it
        assert took < EXIT_BOUND_SECONDS, err
        assert stop_lines(err) == ["prdigest: stopped"], err
        assert out == ""
        assert model.chats_after(sent) == []


def test_a_stop_ends_the_process_even_while_github_does_not_answer(day_of_prs: FakeGitHub) -> None:
    day_of_prs.latency = SLOW_SECONDS  # the PR listing itself hangs: no stop can cut that request
    with SlowModel(quick=0, latency=SLOW_SECONDS) as model:
        process = prdigest(environment(day_of_prs, model), "digest", REPO, "--date", "2026-08-05")
        wait_for(lambda: day_of_prs.count() >= 1 or process.poll() is not None, timeout=60)
        _sent, took, _out, err = interrupted(process)
        assert process.returncode == 130, err
        assert took < EXIT_BOUND_SECONDS, err  # the stop's grace, one second
        assert stop_lines(err) == ["prdigest: stopped"], err
        assert model.calls == 0


def test_a_worker_drains_on_ctrl_c_and_ends_at_once_on_a_second(day_of_prs: FakeGitHub, redis_url: str) -> None:
    with SlowModel(quick=0, latency=SLOW_SECONDS) as model:
        process = prdigest(environment(day_of_prs, model, redis_url), "worker", "--threads", "1")
        queue = CardQueue(RedisBackend(redis_url, "prdigest:jobs"), "prdigest:jobs")
        try:
            wait_for(lambda: queue.workers_alive() or process.poll() is not None, timeout=60)
            queue.submit(CardJob(REPO, 7, "en"))
            wait_for(lambda: model.calls >= 1 or process.poll() is not None, timeout=60)
            process.send_signal(signal.SIGINT)
            assert process.stderr is not None
            while "stopping on signal" not in (line := process.stderr.readline()):
                assert line, "the worker ended without saying it was stopping"
            # The first drains: the job in hand is being finished (its model takes a minute).
            assert process.poll() is None
            _sent, took, _out, err = interrupted(process)
        finally:
            queue.close()
        assert process.returncode == 130, err
        assert took < EXIT_BOUND_SECONDS, err
