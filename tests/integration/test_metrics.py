"""GET /metrics of the served app (on its metrics port) and of a worker, and log lines as JSON
with a request id."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.redis_server import RedisServer
from prometheus_client.parser import text_string_to_metric_families

from bot.core.card_jobs import CardJob
from bot.http.httpd import metrics_served
from bot.ops.logs import JsonFormatter
from bot.ops.telemetry import SERIES
from bot.wiring.metrics import metrics_installed
from bot.wiring.process import start_worker
from tests.integration.conftest import REPO, ServicesFactory, day, settings_for
from tests.integration.slack_harness import DIGEST_CHANNEL, SlackHarness, serve_harness, wait_for
from tests.integration.test_reliability import good_card
from tests.integration.test_slack_app import add_prs, answers, post_digest, qa_responder

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(url: str) -> tuple[set[str], Samples]:
    """The families named in an exposition, and every sample's value by (name, labels)."""
    response = requests.get(url, timeout=10)
    assert response.status_code == 200
    assert response.headers["Content-Type"].startswith("text/plain")
    families: set[str] = set()
    samples: Samples = {}
    for family in text_string_to_metric_families(response.text):
        families.add(family.name)
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return families, samples


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((f"prdigest_{name}", frozenset(labels.items())), 0.0)


@contextlib.contextmanager
def exported(harness: SlackHarness) -> Iterator[str]:
    """The URL of GET /metrics on a port of its own, as `serve --metrics-port 0` serves it."""
    with metrics_installed(harness.services) as sink, metrics_served(sink.exposition, "127.0.0.1", 0) as port:
        yield f"http://127.0.0.1:{port}/metrics"


@pytest.fixture
def metrics_url(harness: SlackHarness) -> Iterator[str]:
    with exported(harness) as url:
        yield url


def test_metrics_show_a_posted_digest_and_an_answered_question(harness: SlackHarness, metrics_url: str) -> None:
    add_prs(harness, 3)
    harness.model.responder = qa_responder("It moves the MoE routing into `vllm/moe/impl_2.py`.")
    # One 429 on the lead: slack_sdk waits it out (Retry-After 0) and the digest goes on.
    harness.slack.rate_limit_next("chat.postMessage", retry_after=0)
    thread_ts = post_digest(harness)
    posted = len(harness.slack.messages(DIGEST_CHANNEL)) + len(harness.slack.thread(DIGEST_CHANNEL, thread_ts))
    harness.thread_reply(DIGEST_CHANNEL, thread_ts, "what does the moe change do?")
    wait_for(lambda: answers(harness, DIGEST_CHANNEL, thread_ts))
    harness.settle()

    families, samples = scrape(metrics_url)
    # Every series is declared, used or not (model_tokens_total is counted elsewhere, later).
    assert {f"prdigest_{name.removesuffix('_total')}" for name in SERIES} - families <= {
        "prdigest_queue_depth",
        "prdigest_queue_oldest_job_seconds",
    }
    assert value(samples, "digests_posted_total") == 1
    assert value(samples, "messages_posted_total") == posted
    assert value(samples, "cards_total", source="llm", mode="json_schema") == 3
    assert value(samples, "model_calls_total", kind="card") >= 3
    assert value(samples, "model_calls_total", kind="answer") == 1
    assert value(samples, "model_latency_seconds_count", kind="card") >= 3
    assert value(samples, "model_latency_seconds_sum", kind="answer") > 0
    assert value(samples, "github_requests_total") >= 4  # the list, then files and reviews per PR
    assert value(samples, "github_rate_limit_remaining") > 0
    assert value(samples, "slack_calls_total", method="chat.postMessage") >= 3
    assert value(samples, "slack_ratelimited_total", method="chat.postMessage") == 1
    assert value(samples, "ack_latency_seconds_count", kind="event") == 1
    assert value(samples, "questions_answered_total", surface="thread") == 1
    assert value(samples, "queue_depth") == 0  # read from Redis at the scrape


def test_a_command_is_timed_and_counted_as_answered(harness: SlackHarness, metrics_url: str) -> None:
    add_prs(harness, 1)
    harness.model.responder = qa_responder("unused")
    hook, response = harness.command(f"{REPO}#1001")
    assert response.status_code == 200
    wait_for(lambda: harness.slack.responses[hook])
    harness.settle()
    _, samples = scrape(metrics_url)
    assert value(samples, "ack_latency_seconds_count", kind="command") == 1
    assert value(samples, "questions_answered_total", surface="command") == 1
    assert value(samples, "cards_total", source="llm", mode="json_schema") == 1


def test_metrics_answer_while_redis_is_stopped(
    github: FakeGitHub, model: FakeOpenAI, own_redis: RedisServer, tmp_path: Path
) -> None:
    with serve_harness(github, model, own_redis.url, tmp_path) as harness, exported(harness) as url:
        families, _ = scrape(url)
        assert "prdigest_queue_depth" in families
        own_redis.stop()
        families, _ = scrape(url)
        # The gauges read from Redis are left out; everything else is there.
        assert "prdigest_queue_depth" not in families and "prdigest_queue_oldest_job_seconds" not in families
        assert "prdigest_slack_calls" in families and "prdigest_ack_latency_seconds" in families


def test_worker_metrics_server_answers_metrics_and_healthz(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, make_services: ServicesFactory
) -> None:
    services = make_services(settings_for(github, model, redis_url))
    with metrics_installed(services) as sink, metrics_served(sink.exposition, "127.0.0.1", 0) as port:
        base = f"http://127.0.0.1:{port}"
        _, samples = scrape(f"{base}/metrics")
        assert value(samples, "queue_depth") == 0
        health = requests.get(f"{base}/healthz", timeout=10)
        assert (health.status_code, health.text) == (200, "ok\n")
        assert requests.get(f"{base}/other", timeout=10).status_code == 404


# -- JSON log lines ------------------------------------------------------------------------------


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """Everything bot/ logs, at debug, as --log-format json writes it."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("bot")
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        yield stream
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def test_an_events_log_lines_share_one_request_id_across_ack_and_work(
    harness: SlackHarness, json_lines: io.StringIO
) -> None:
    add_prs(harness, 1)
    harness.model.responder = qa_responder("It is faster.")
    post_digest(harness)
    ts, response = harness.mention(DIGEST_CHANNEL, f"what does {REPO}#1001 change?")
    assert response.status_code == 200
    wait_for(lambda: answers(harness, DIGEST_CHANNEL, ts))
    harness.settle()
    lines = [json.loads(line) for line in json_lines.getvalue().splitlines()]
    assert all(line.keys() >= {"time", "level", "logger", "message", "request_id"} for line in lines)
    assert all(line["time"].endswith("+00:00") for line in lines)
    (ack,) = [line for line in lines if line["message"].startswith("event acknowledged")]
    (answered,) = [line for line in lines if line["message"] == "answered a question (mention)"]
    assert ack["logger"] == "bot.http.server" and answered["logger"] == "bot.slack.listeners.questions"
    # Slack's event_id: the ack on the server's thread, the answer on the work pool's.
    assert ack["request_id"] == answered["request_id"] and ack["request_id"].startswith("Ev")
    (posted,) = [line for line in lines if line["message"].startswith("digest of")]
    assert posted["request_id"] == f"{DIGEST_CHANNEL}:2026-08-05"


def test_json_logs_leave_an_error_told_to_the_user_as_one_plain_line(tmp_path: Path) -> None:
    (tmp_path / "bad.toml").write_text("[defaults]\nconcurrancy = 4\n", encoding="utf-8")
    environ = {key: val for key, val in os.environ.items() if not key.startswith(("PRDIGEST_", "GITHUB_", "REDIS_"))}
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "--log-format", "json", "digest", REPO],
        env={**environ, "PRDIGEST_CONFIG": str(tmp_path / "bad.toml")},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr == f"prdigest: {tmp_path / 'bad.toml'}: unknown key 'defaults.concurrancy'\n"


def test_a_workers_jobs_are_counted_and_log_under_the_job_key(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, make_services: ServicesFactory, json_lines: io.StringIO
) -> None:
    github.add_pr(REPO, 7, title="Faster", merged_at=day(1), files=[{"path": "vllm/a.py", "additions": 4}])
    model.responder = good_card
    services = make_services(settings_for(github, model, redis_url))
    queue = services.queue
    assert queue is not None
    job = CardJob(REPO, 7, "en")
    with metrics_installed(services) as sink, metrics_served(sink.exposition, "127.0.0.1", 0) as port:
        worker = start_worker(services, 1)
        try:
            assert queue.submit(job)
            url = f"http://127.0.0.1:{port}/metrics"
            wait_for(lambda: value(scrape(url)[1], "jobs_total", outcome="done") == 1, timeout=20)
            _, samples = scrape(url)
            assert value(samples, "cards_total", source="llm", mode="json_schema") == 1
            assert value(samples, "github_rate_limit_remaining") > 0  # the worker has asked GitHub
        finally:
            worker.stop()
    lines = [json.loads(line) for line in json_lines.getvalue().splitlines()]
    (done,) = [line for line in lines if line["message"] == "card job done"]
    assert done["request_id"] == f"job:{job.key}" == "job:vllm-project/vllm#7:en"
