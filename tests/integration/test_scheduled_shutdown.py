"""SIGTERM while a scheduled digest is being built: a clean stop, one line, nothing half-posted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.ports import free_port

from tests.integration.conftest import REPO
from tests.integration.slack_harness import DIGEST_CHANNEL, SECRET, wait_for

# post_at at midnight UTC: the digest of today is due as soon as the server starts.
CONFIG = f"""
[defaults]
timezone = "UTC"
post_at = "00:00"

[[channels]]
id = "{DIGEST_CHANNEL}"
repos = ["{REPO}"]
"""


def test_sigterm_during_a_scheduled_digest_stops_cleanly_and_posts_nothing(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    midnight = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    for number in range(1, 9):
        github.add_pr(
            REPO,
            number,
            title=f"Change {number}",
            merged_at=midnight - timedelta(hours=number),
            files=[{"path": f"vllm/m{number}.py", "additions": 60, "deletions": 2}],
        )
    model.latency = 5.0  # the digest is still being built when SIGTERM arrives
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG, encoding="utf-8")
    port = free_port()
    with FakeSlack() as slack:
        env = {
            **os.environ,
            "PRDIGEST_CONFIG": str(config),
            "GITHUB_API_URL": github.url,
            "OPENAI_API_KEY": "test",
            "OPENAI_BASE_URL": f"{model.url}/v1",
            "REDIS_URL": redis_url,
            "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": SECRET,
            "SLACK_API_URL": slack.api_url,
        }
        process = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "serve", "--http", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            wait_for(lambda: model.count() > 0, timeout=30)  # a card is being written
            assert requests.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200
        finally:
            process.send_signal(signal.SIGTERM)
            _out, err = process.communicate(timeout=30)
        text = err.decode()
        assert process.returncode == 0, text
        assert "Traceback" not in text
        assert "client has been closed" not in text
        # Nothing was posted from a digest cut short: the next run (or replica) posts it whole.
        assert slack.calls("chat.postMessage") == []
