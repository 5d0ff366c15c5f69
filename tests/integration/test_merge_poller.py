"""The merge poller (issue 14): each followed repository's merged PRs are listed once per interval,
by one replica, and their cards queued for the workers in the languages their channels read."""

from __future__ import annotations

from pathlib import Path

from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.wiring.process import start_worker
from bot.wiring.slack import wire_slack
from tests.integration.conftest import NOW, REPO, ServicesFactory, settings_for
from tests.integration.slack_harness import wait_for
from tests.integration.test_reliability import good_card

CONFIG = f"""
[defaults]
timezone = "UTC"

[[channels]]
id = "C0ENGLISH1"
repos = ["{REPO}"]

[[channels]]
id = "C0CHINESE1"
repos = ["{REPO}"]
language = "zh-CN"
"""


def add_prs(github: FakeGitHub, count: int) -> None:
    for number in range(1, count + 1):
        github.add_pr(
            REPO,
            number,
            title=f"Change number {number}",
            merged_at=NOW.replace(hour=number),  # this morning, within the first look back
            files=[{"path": f"vllm/mod_{number}.py", "additions": 10, "deletions": 1}],
        )


def lists(github: FakeGitHub) -> int:
    counts = github.counts_by_kind()
    return counts.get("pulls", 0) + counts.get("search", 0)


def test_one_replica_polls_each_interval_and_queues_every_language_once(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path, make_services: ServicesFactory
) -> None:
    add_prs(github, 3)
    model.responder = good_card
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG, encoding="utf-8")
    settings = settings_for(github, model, redis_url, PRDIGEST_CONFIG=str(config))
    replicas = [make_services(settings) for _ in range(2)]
    assert all(replica.poller is not None for replica in replicas)
    polls = [wire_slack(replica).poll_merged for replica in replicas]

    # No worker alive: nothing is listed, nothing queued (the digest will make its cards itself).
    assert polls[0]() == 0 and lists(github) == 0

    worker = start_worker(replicas[1], 2)
    try:
        assert wait_for(replicas[0].cards.workers_alive)
        assert polls[0]() == 6  # 3 PRs × 2 languages
        assert polls[1]() == 0  # the other replica: polled within the interval
        assert polls[0]() == 0
        assert lists(github) == 1
        wait_for(lambda: model.calls == 6, timeout=30)
    finally:
        worker.stop()


def test_without_redis_or_with_polling_off_there_is_no_poller(
    github: FakeGitHub, redis_url: str, tmp_path: Path, make_services: ServicesFactory
) -> None:
    assert make_services(settings_for(github)).poller is None  # no Redis: no queue
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG + "\n[queue]\npoll_minutes = 0\n", encoding="utf-8")
    assert make_services(settings_for(github, None, redis_url, PRDIGEST_CONFIG=str(config))).poller is None
