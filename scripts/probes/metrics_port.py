"""What a real `prdigest serve --http` shows on GET /metrics after questions about a public and a
private repository: on the Slack port, and on `--metrics-port` when given (issue 23, item 4).

    .venv/bin/python scripts/probes/metrics_port.py [--metrics-port] [--code DIR]

Starts a redis-server and fakes of GitHub, the model and Slack on loopback, then serve (from
DIR's code, by default this tree's: give an export of an older commit to measure it), asks one
question in each of two channels over signed HTTP, and prints, for each port, the status of
GET /metrics, how many samples it holds and every value of a `repo` label.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.ports import free_port
from devkit.redis_server import RedisServer
from devkit.slack_signing import signed_headers
from prometheus_client.parser import text_string_to_metric_families

REPO_ROOT = Path(__file__).resolve().parents[2]
SECRET = "probe-signing-secret"
PUBLIC, PRIVATE = "vllm-project/vllm", "acme/secret"
PUBLIC_CHANNEL, PRIVATE_CHANNEL = "C0PUBLIC01", "C0SECRET01"
CONFIG = f"""
[[channels]]
id = "{PUBLIC_CHANNEL}"
repos = ["{PUBLIC}"]

[[channels]]
id = "{PRIVATE_CHANNEL}"
repos = ["{PRIVATE}"]
"""


def responder(request: dict[str, Any]) -> dict[str, Any] | str:
    if "response_format" in request:
        return {"headline": "A change", "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}
    return "It changes `src/a.py`."


def until(condition: Callable[[], Any], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if condition():
                return
        except requests.ConnectionError:
            pass
        time.sleep(0.05)
    raise SystemExit(f"probe: {what}")


def answered(slack: FakeSlack, channel: str, ts: str) -> bool:
    return any("src/a.py" in json.dumps(message) for message in slack.thread(channel, ts))


def counted(url: str) -> bool:
    """The answers' tokens are in the series, or there is no /metrics at `url` to wait on."""
    response = requests.get(url, timeout=5)
    return response.status_code == 404 or "prdigest_model_tokens_by_repo_total{" in response.text


def scrape(url: str) -> str:
    response = requests.get(url, timeout=10)
    if response.status_code != 200:
        return f"{url}: {response.status_code}, no series"
    samples = [sample for family in text_string_to_metric_families(response.text) for sample in family.samples]
    repos = sorted({sample.labels["repo"] for sample in samples if "repo" in sample.labels})
    return f"{url}: 200, {len(samples)} samples, repo label values {repos}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--metrics-port", action="store_true", help="start serve with --metrics-port")
    parser.add_argument("--code", type=Path, default=REPO_ROOT, help="the tree whose bot/ is run")
    args = parser.parse_args()
    merged = datetime.now(UTC) - timedelta(hours=2)
    with (
        tempfile.TemporaryDirectory() as workdir,
        RedisServer() as redis_server,
        FakeGitHub() as github,
        FakeOpenAI(responder=responder) as model,
        FakeSlack() as slack,
    ):
        github.add_repo(PUBLIC)
        github.add_repo(PRIVATE, private=True)
        for repo in (PUBLIC, PRIVATE):
            github.add_pr(repo, 7, title="A change", merged_at=merged, files=[{"path": "src/a.py", "additions": 5}])
        config = Path(workdir) / "prdigest.toml"
        config.write_text(CONFIG, encoding="utf-8")
        port, metrics_port = free_port(), free_port()
        env = {name: value for name, value in os.environ.items() if not name.startswith(("PRDIGEST_", "SLACK_"))}
        env |= {
            "PYTHONPATH": str(args.code),
            "PRDIGEST_CONFIG": str(config),
            "PRDIGEST_CACHE": "off",
            "GITHUB_API_URL": github.url,
            "GITHUB_TOKEN": "probe",
            "OPENAI_API_KEY": "probe",
            "OPENAI_BASE_URL": f"{model.url}/v1",
            "REDIS_URL": redis_server.url,
            "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": SECRET,
            "SLACK_API_URL": slack.api_url,
        }
        command = [sys.executable, "-m", "bot.cli", "serve", "--http", "--host", "127.0.0.1", "--port", str(port)]
        if args.metrics_port:
            command += ["--metrics-port", str(metrics_port)]
        serve = subprocess.Popen(command, env=env, cwd=args.code, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        base = f"http://127.0.0.1:{port}"
        try:
            until(lambda: requests.get(f"{base}/healthz", timeout=1).ok, 60, "serve did not come up")
            for number, (channel, repo) in enumerate(((PUBLIC_CHANNEL, PUBLIC), (PRIVATE_CHANNEL, PRIVATE)), 1):
                text = f"<@UBOT> what does {repo}#7 change?"
                ts = slack.add_message(channel, text)
                event = {"type": "app_mention", "channel": channel, "user": "U0HUMAN001", "text": text, "ts": ts}
                body = json.dumps({"type": "event_callback", "team_id": "T0TEST", "event_id": f"EvProbe{number}",
                                   "event": event}).encode()  # fmt: skip
                headers = signed_headers(SECRET, body, "application/json")
                assert requests.post(f"{base}/slack/events", data=body, headers=headers, timeout=10).ok
                until(lambda c=channel, t=ts: answered(slack, c, t), 60, f"no answer in {channel}")  # type: ignore[misc]
            exported = f"http://127.0.0.1:{metrics_port}/metrics" if args.metrics_port else f"{base}/metrics"
            until(lambda: counted(exported), 30, "no tokens counted by repository")
            print(scrape(f"{base}/metrics"))
            if args.metrics_port:
                print(scrape(f"http://127.0.0.1:{metrics_port}/metrics"))
        finally:
            serve.send_signal(signal.SIGTERM)
            _out, err = serve.communicate(timeout=60)
            if serve.returncode:
                print(err.decode(), file=sys.stderr)


if __name__ == "__main__":
    main()
