"""The `bot/` modules a `/pr owner/repo#N` passes through, from the signed request to the card
reaching the response_url: the figure issue 24 compares before and after a reshape.

    PYTHONPATH=. .venv/bin/python scripts/pr_call_path.py

Serves the real Bolt app on loopback (fake Slack, GitHub and model, a private redis-server),
asks once to warm every cache and import, then traces a second `/pr` for another PR with a
profiler on every thread and prints the distinct `bot/` modules whose functions ran, in the
order they were first entered.
"""

from __future__ import annotations

import sys
import tempfile
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Any

from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.redis_server import RedisServer

from tests.integration.conftest import REPO
from tests.integration.slack_harness import serve_harness, wait_for

BOT = str(Path(__file__).resolve().parents[1] / "bot")


class Tracer:
    """A profiler for every thread started after `install()`: the served app's threads and its
    pools are all started after it. It records only while `recording` is set."""

    def __init__(self) -> None:
        self.recording = False
        self.seen: dict[str, None] = {}

    def install(self) -> None:
        threading.setprofile(self._profile)
        sys.setprofile(self._profile)

    def uninstall(self) -> None:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]

    def _profile(self, frame: FrameType, event: str, arg: object) -> None:
        if self.recording and event == "call" and frame.f_code.co_filename.startswith(BOT):
            self.seen.setdefault(Path(frame.f_code.co_filename).relative_to(Path(BOT).parent).as_posix(), None)


def ask(harness: Any, number: int) -> None:
    hook, response = harness.command(f"{REPO}#{number}")
    assert response.status_code == 200
    wait_for(lambda: harness.slack.responses[hook])
    harness.settle()


def served() -> Iterator[Any]:
    with tempfile.TemporaryDirectory() as tmp, RedisServer() as redis, FakeGitHub() as github, FakeOpenAI() as model:
        github.add_repo(REPO)
        for number in (1, 2):
            github.add_pr(
                REPO,
                number,
                title=f"[Perf] Faster kernel {number}",
                merged_at=datetime(2026, 8, 5, 10, number, tzinfo=UTC),
                files=[{"path": f"vllm/kernels/k{number}.py", "additions": 30, "deletions": 2}],
            )
        with serve_harness(github, model, redis.url, Path(tmp)) as harness:
            yield harness


def main() -> None:
    tracer = Tracer()
    tracer.install()
    try:
        for harness in served():
            ask(harness, 1)  # warm: imports, clients, caches
            tracer.recording = True
            ask(harness, 2)
            tracer.recording = False
    finally:
        tracer.uninstall()
    print(f"{len(tracer.seen)} bot/ modules on the path of /pr {REPO}#2:")
    for module in tracer.seen:
        print(f"  {module}")


if __name__ == "__main__":
    main()
