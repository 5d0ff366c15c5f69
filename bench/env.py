"""The benchmark's world: loopback fakes with set latencies, a private redis-server, a data
set shaped like vLLM's, and the environment a `prdigest` process needs to use them."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import redis
from devkit.fakes import dataset
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.redis_server import RedisServer, RedisServerError

REPO_ROOT = Path(__file__).resolve().parents[1]

REPO = "vllm-project/vllm"
CHANNEL = "C0BENCH001"
SECRET = "bench-signing-secret"
# The largest PR GitHub will list, for the token-budget row.
HUGE_PR_NUMBER = 999_999
HUGE_PR_FILES = 3000


@dataclass(frozen=True)
class Latencies:
    model: float = 2.0
    github: float = 0.05
    slack: float = 0.03


def card_responder(request: dict[str, Any]) -> dict[str, Any] | str:
    """A fake model: a plausible card from the title, or a short answer for a question."""
    if "response_format" not in request:
        return "It changes the scheduler in `vllm/v1/core/sched/scheduler.py`; the PR does not say why."
    text = request["messages"][-1]["content"]
    title = next((line[7:] for line in text.splitlines() if line.startswith("Title: ")), "the change")
    verdict = "read" if "[Perf]" in title or "[Kernel]" in title else "skip" if "[CI]" in title else "skim"
    return {
        "headline": title[:110],
        "verdict": verdict,
        "minutes": {"read": 15, "skim": 4, "skip": 1}[verdict],
        "why": ["A reusable pattern"] if verdict != "skip" else [],
        "caveats": [],
        "watch": [],
    }


@dataclass
class World:
    github: FakeGitHub
    model: FakeOpenAI
    slack: FakeSlack
    redis: RedisServer  # the soak stops and restarts it
    rows: list[dict[str, Any]]
    config_path: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def redis_url(self) -> str:
        return self.redis.url

    def flush_redis(self) -> None:
        client = redis.Redis.from_url(self.redis_url)
        client.flushall()
        client.close()

    def reset_counts(self) -> None:
        self.github.reset_requests()
        self.model.reset_requests()
        self.slack.reset()


def bench_rows(count: int, dataset_path: Path | None, now: datetime) -> list[dict[str, Any]]:
    """`count` PRs merged in the last 24 hours: real rows re-timed, or generated ones."""
    if dataset_path is not None:
        source = dataset.load_rows(dataset_path)[:count]
    else:
        source = dataset.generate_rows(count, seed=7, start=now - timedelta(hours=23), span=timedelta(hours=22))
    step = timedelta(hours=22) / max(len(source), 1)
    start = now - timedelta(hours=23)
    return [
        {**row, "merged_at": (start + step * index).strftime("%Y-%m-%dT%H:%M:%SZ")} for index, row in enumerate(source)
    ]


@contextlib.contextmanager
def world(
    count: int,
    latencies: Latencies,
    workdir: Path,
    dataset_path: Path | None = None,
    config_text: str | None = None,
) -> Iterator[World]:
    now = datetime.now(UTC)
    rows = bench_rows(count, dataset_path, now)
    config = workdir / "prdigest.toml"
    config.write_text(config_text or f'[[channels]]\nid = "{CHANNEL}"\nrepos = ["{REPO}"]\n', encoding="utf-8")
    redis_server = RedisServer()
    try:
        redis_server.start()
    except RedisServerError as exc:
        raise SystemExit(f"bench: {exc}") from exc
    with (
        redis_server,
        FakeGitHub(latency=latencies.github) as github,
        FakeOpenAI(latency=latencies.model, responder=card_responder) as model,
        FakeSlack(latency=latencies.slack) as slack,
    ):
        dataset.populate(github, rows, repo=REPO)
        huge = [
            {"path": f"vllm/generated_{i // 100}/module_{i}.py", "additions": 30, "deletions": 4}
            for i in range(HUGE_PR_FILES)
        ]
        github.add_pr(
            REPO, HUGE_PR_NUMBER, title="[Refactor] Move every module", merged_at=now - timedelta(days=40), files=huge
        )
        env = {
            "PRDIGEST_CONFIG": str(config),
            "GITHUB_API_URL": github.url,
            "GITHUB_TOKEN": "bench",
            "OPENAI_API_KEY": "bench",
            "OPENAI_BASE_URL": f"{model.url}/v1",
            "REDIS_URL": redis_server.url,
            "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": SECRET,
            "SLACK_API_URL": slack.api_url,
        }
        yield World(github, model, slack, redis_server, rows, config, env)
