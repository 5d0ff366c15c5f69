"""What a real `prdigest serve --http` shows on GET /metrics after questions about a public and a
private repository: on the Slack port, and on `--metrics-port` when given (issue 23, item 4).

    PYTHONPATH=. .venv/bin/python scripts/probes/metrics_port.py [--metrics-port] [--code DIR]

Starts a redis-server and fakes of GitHub, the model and Slack on loopback, then serve (from
DIR's code, by default this tree's: give an export of an older commit to measure it), asks one
question in each of two channels over signed HTTP, and prints, for each port, the status of
GET /metrics, how many samples it holds and every value of a `repo` label.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.ports import free_port
from devkit.redis_server import RedisServer
from prometheus_client.parser import text_string_to_metric_families

from scripts.probes import served
from scripts.probes.served import ROOT

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


def answered(slack: FakeSlack, channel: str, ts: str) -> bool:
    return any("src/a.py" in json.dumps(message) for message in slack.thread(channel, ts))


def counted(url: str) -> bool:
    """The answers' tokens are in the series, or there is no /metrics at `url` to wait on."""
    try:
        response = requests.get(url, timeout=5)
    except requests.ConnectionError:
        return False
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
    parser.add_argument("--code", type=Path, default=ROOT, help="the tree whose bot/ is run")
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
        env = served.environment(config, slack=slack, github=github, model=model, redis_url=redis_server.url)
        metrics_port = free_port()
        options = ["--metrics-port", str(metrics_port)] if args.metrics_port else []
        server = served.Served(env | {"PRDIGEST_CACHE": "off"}, Path(workdir), *options, code=args.code)
        base = server.base
        try:
            for number, (channel, repo) in enumerate(((PUBLIC_CHANNEL, PUBLIC), (PRIVATE_CHANNEL, PRIVATE)), 1):
                text = f"<@UBOT> what does {repo}#7 change?"
                ts = slack.add_message(channel, text)
                event = {"type": "app_mention", "channel": channel, "user": "U0HUMAN001", "text": text, "ts": ts}
                assert served.event(base, event, event_id=f"EvProbe{number}").ok
                served.until(lambda c=channel, t=ts: answered(slack, c, t), 60, f"answer in {channel}")  # type: ignore[misc]
            exported = f"http://127.0.0.1:{metrics_port}/metrics" if args.metrics_port else f"{base}/metrics"
            served.until(lambda: counted(exported), 30, "tokens counted by repository")
            print(scrape(f"{base}/metrics"))
            if args.metrics_port:
                print(scrape(f"http://127.0.0.1:{metrics_port}/metrics"))
        finally:
            err = server.stop(grace=60)
            if server.process.returncode:
                print(err, file=sys.stderr)


if __name__ == "__main__":
    main()
