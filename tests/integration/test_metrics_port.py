"""GET /metrics only on `serve --metrics-port`, never on the Slack port (which a proxy opens to
the internet), and no private or tenant repository named in its labels (issue 23, item 4)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.ports import free_port
from devkit.slack_signing import signed_headers

from bot.http.httpd import metrics_served
from bot.ops.metric_labels import OTHER
from bot.wiring.metrics import metrics_installed
from tests.integration.conftest import REPO, day, told
from tests.integration.oauth_harness import HUMAN, SECOND, SECOND_CHANNEL, OAuthHarness
from tests.integration.slack_harness import (
    CONFIG,
    DIGEST_CHANNEL,
    OTHER_CHANNEL,
    OTHER_REPO,
    SECRET,
    SlackHarness,
    secret_pr,
    wait_for,
)
from tests.integration.test_metrics import exported, scrape

TENANT_REPO = "tenant-org/tenant-repo"  # public, followed from Slack by another workspace


def repo_labels(url: str) -> dict[str, float]:
    """prdigest_model_tokens_by_repo_total's samples by their repo label."""
    _, samples = scrape(url)
    return {
        dict(labels)["repo"]: count
        for (name, labels), count in samples.items()
        if name == "prdigest_model_tokens_by_repo_total"
    }


def answered(harness: SlackHarness, channel: str, question: str) -> None:
    ts, response = harness.mention(channel, question)
    assert response.status_code == 200
    wait_for(lambda: any("rotates keys" in json.dumps(m) for m in harness.slack.thread(channel, ts)))
    harness.settle()


def test_the_slack_port_has_no_metrics(harness: SlackHarness) -> None:
    secret_pr(harness)
    with metrics_installed(harness.services):
        answered(harness, OTHER_CHANNEL, f"what does {OTHER_REPO}#7 change?")
        response = requests.get(harness.events_url.replace("/slack/events", "/metrics"), timeout=10)

    assert response.status_code == 404
    assert "prdigest_" not in response.text and OTHER_REPO not in response.text


def test_a_private_repository_of_the_file_is_counted_as_other(harness: SlackHarness) -> None:
    secret_pr(harness)  # OTHER_REPO is private, and the file lists it for OTHER_CHANNEL
    harness.github.add_pr(REPO, 7, title="Faster", merged_at=day(2), files=[{"path": "vllm/a.py", "additions": 4}])
    with exported(harness) as url:
        answered(harness, OTHER_CHANNEL, f"what does {OTHER_REPO}#7 change?")
        answered(harness, DIGEST_CHANNEL, f"what does {REPO}#7 change?")

        labels = repo_labels(url)
        text = requests.get(url, timeout=10).text

    assert labels.keys() == {REPO, OTHER} and all(labels.values())
    assert OTHER_REPO not in text


def test_another_workspaces_repository_is_counted_as_other(
    oauth: OAuthHarness, github: FakeGitHub, model: FakeOpenAI
) -> None:
    github.add_repo(TENANT_REPO)
    github.add_pr(TENANT_REPO, 7, title="Faster", merged_at=day(2), files=[{"path": "src/a.py", "additions": 4}])
    model.responder = lambda request: (
        {"headline": "Faster", "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}
        if "response_format" in request
        else "It rotates keys in `src/a.py`."
    )
    oauth.install(SECOND)
    oauth.slack.members[SECOND_CHANNEL] = [HUMAN]
    url = oauth.slack.new_response_url()
    assert oauth.command(SECOND, SECOND_CHANNEL, f"follow {TENANT_REPO}", response_url=url).status_code == 200
    wait_for(lambda: oauth.slack.responses[url.rsplit("/", 1)[-1]])
    services = oauth.first.services
    with metrics_installed(services) as sink, metrics_served(sink.exposition, "127.0.0.1", 0) as port:
        ts = oauth.slack.add_message(SECOND_CHANNEL, f"<@UBOT> what does {TENANT_REPO}#7 change?")
        event = {"type": "app_mention", "channel": SECOND_CHANNEL, "user": HUMAN, "ts": ts}
        assert oauth.event(SECOND, {**event, "text": f"<@UBOT> what does {TENANT_REPO}#7 change?"}).status_code == 200
        wait_for(lambda: any("rotates keys" in json.dumps(m) for m in oauth.slack.thread(SECOND_CHANNEL, ts)))
        oauth.settle()

        labels = repo_labels(f"http://127.0.0.1:{port}/metrics")

    assert list(labels) == [OTHER] and labels[OTHER] > 0


# -- prdigest serve --metrics-port, as an operator runs it -----------------------------------------


@pytest.fixture
def operator_env(github: FakeGitHub, redis_url: str, tmp_path: Path) -> Iterator[dict[str, str]]:
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG, encoding="utf-8")
    with FakeSlack() as slack:
        yield {
            **{name: value for name, value in os.environ.items() if not name.startswith(("PRDIGEST_", "SLACK_"))},
            "PRDIGEST_CONFIG": str(config),
            "GITHUB_API_URL": github.url,
            "REDIS_URL": redis_url,
            "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": SECRET,
            "SLACK_API_URL": slack.api_url,
        }


def serve(env: dict[str, str], *args: str) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "bot.cli", "serve", "--http", "--no-worker", "--host", "127.0.0.1", *args]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_serve_answers_metrics_on_its_metrics_port_only(operator_env: dict[str, str]) -> None:
    port, metrics_port = free_port(), free_port()
    process = serve(operator_env, "--port", str(port), "--metrics-port", str(metrics_port))
    slack, metrics = f"http://127.0.0.1:{port}", f"http://127.0.0.1:{metrics_port}"
    try:

        def up() -> bool:
            try:
                return all(requests.get(f"{base}/healthz", timeout=1).ok for base in (slack, metrics))
            except requests.ConnectionError:
                return False

        wait_for(up, timeout=30)
        body = b'{"type": "url_verification", "challenge": "c"}'
        headers = signed_headers(SECRET, body, "application/json")
        assert requests.post(f"{slack}/slack/events", data=body, headers=headers, timeout=10).status_code == 200

        families, _ = scrape(f"{metrics}/metrics")
        assert "prdigest_ack_latency_seconds" in families
        assert requests.get(f"{slack}/metrics", timeout=10).status_code == 404
        assert requests.get(f"{metrics}/slack/events", timeout=10).status_code == 404
    finally:
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err.decode()
    assert f"serving metrics at http://127.0.0.1:{metrics_port}/metrics".encode() in err
    assert b"Traceback" not in err


def test_a_busy_metrics_port_is_one_line_and_a_non_zero_exit(operator_env: dict[str, str]) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        taken = busy.getsockname()[1]
        process = serve(operator_env, "--port", "0", "--metrics-port", str(taken))
        _out, err = process.communicate(timeout=60)
    lines = told(err.decode())
    assert (process.returncode, len(lines)) == (1, 1), lines
    assert lines[0].startswith(f"prdigest: cannot serve on 127.0.0.1:{taken}: port {taken} is in use")


def test_the_metrics_port_may_not_be_the_slack_port(operator_env: dict[str, str]) -> None:
    port = str(free_port())
    process = serve(operator_env, "--port", port, "--metrics-port", port)
    _out, err = process.communicate(timeout=60)
    lines = told(err.decode())
    assert (process.returncode, len(lines)) == (1, 1), lines
    assert lines[0] == f"prdigest: --metrics-port {port} is --port too; give the metrics a port of their own"
