"""REDIS_URL naming a node of a three-master Redis Cluster on loopback: prdigest sees it and uses
the cluster client with nothing else set; keys spread over every master; the card queue goes to
QUEUE_URL's single Redis, or, without it, cards are made in each process and the log says so once.

The store contract, the posting lease and the replica tests run on the cluster too
(test_kv_contract.py, test_post_lease.py, test_reliability.py, test_digest.py: `any_redis_url`).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
import redis
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.redis_cluster import RedisCluster

from bot.cli.main import main
from bot.errors import ConfigError
from bot.models import Window
from bot.settings import load_settings
from bot.store.backends.redis_store import RedisKV
from bot.wiring.process import build_process, start_worker
from bot.wiring.store import CLUSTER_QUEUE_NOTE
from bot.wiring.timing import Timing
from tests.integration.conftest import REPO, ServicesFactory, day, settings_for
from tests.integration.slack_harness import CONFIG, DIGEST_CHANNEL, wait_for
from tests.integration.test_reliability import add_prs, good_card

WINDOW = Window(day(0), day(24))


def test_a_cluster_node_as_redis_url_spreads_keys_over_every_master(
    redis_cluster: RedisCluster, cluster_url: str
) -> None:
    kv = RedisKV.from_url(cluster_url)
    try:
        assert kv.clustered is None  # nothing asked yet: Redis may be down when a process starts
        for number in range(60):
            kv.set(f"card:{REPO}#{number}", b"x", ttl=60)
        assert kv.clustered is True
        held = []
        for node in redis_cluster.nodes:
            with redis.Redis(port=node.port) as client:
                held.append(client.dbsize())
        assert sum(held) == 60 and all(count > 0 for count in held), held
    finally:
        kv.close()


def test_any_node_reaches_every_key(redis_cluster: RedisCluster, cluster_url: str) -> None:
    first, last = RedisKV.from_url(cluster_url), RedisKV.from_url(redis_cluster.nodes[-1].url)
    try:
        for number in range(20):
            first.hset(f"ledger:{{C{number}}}:2026-08-05", "part:0", b"1.0", ttl=60)
        assert all(last.hgetall(f"ledger:{{C{number}}}:2026-08-05") == {"part:0": b"1.0"} for number in range(20))
        assert last.delete_prefix("ledger:") == 20
    finally:
        first.close()
        last.close()


def test_a_cluster_has_only_database_0(redis_cluster: RedisCluster, cluster_url: str) -> None:
    kv = RedisKV.from_url(cluster_url.rsplit("/", 1)[0] + "/3")
    try:
        with pytest.raises(ConfigError, match="a Redis Cluster has only database 0"):
            kv.get("anything")
    finally:
        kv.close()


def test_without_queue_url_cards_are_made_in_process_and_the_log_says_so_once(
    github: FakeGitHub, model: FakeOpenAI, cluster_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    add_prs(github, 4)
    model.responder = good_card
    caplog.set_level(logging.WARNING)
    process = build_process(settings_for(github, model, cluster_url), Timing(model_retries=0), warn=lambda line: None)
    try:
        assert process.queue is None
        digest = process.digests.build((REPO,), WINDOW)
        assert digest.shown == 4 and all(item.card.source == "llm" for item in digest.items)
        with pytest.raises(ConfigError, match="QUEUE_URL is not set: a worker takes its card jobs from a single"):
            start_worker(process)
    finally:
        process.close()
    assert [record.getMessage() for record in caplog.records].count(CLUSTER_QUEUE_NOTE) == 1


def test_with_queue_url_a_worker_makes_the_cards_the_cluster_keeps(
    github: FakeGitHub, model: FakeOpenAI, cluster_url: str, redis_url: str, make_services: ServicesFactory
) -> None:
    add_prs(github, 6)
    model.responder = good_card
    queued = {"QUEUE_URL": redis_url}
    serving = make_services(
        settings_for(github, None, cluster_url, OPENAI_API_KEY="k", OPENAI_BASE_URL="http://127.0.0.1:9/v1", **queued)
    )
    # A generous model budget: on a loaded machine the worker's threads may wait their turn a while.
    working = make_services(settings_for(github, model, cluster_url, **queued), model_timeout=30)
    worker = start_worker(working, 3)
    try:
        wait_for(lambda: serving.queue is not None and serving.queue.workers_alive())
        digest = serving.digests.build((REPO,), WINDOW)
    finally:
        worker.stop()
    assert digest.shown == 6 and all(item.card.source == "llm" for item in digest.items)
    assert model.calls == 6  # each card once, by the worker, kept in the cluster
    with redis.Redis.from_url(redis_url) as single:
        assert not single.keys("prdigest:v1:card:*")  # the queue's Redis holds jobs, not cards


def test_posting_twice_on_a_cluster_posts_once(
    github: FakeGitHub, cluster_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_prs(github, 3)
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG, encoding="utf-8")
    with FakeSlack() as slack:
        env = {
            "PRDIGEST_CONFIG": str(config),
            "GITHUB_API_URL": github.url,
            "REDIS_URL": cluster_url,
            "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_API_URL": slack.api_url,
        }
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        argv = ["digest", REPO, "--date", "2026-08-05", "--post", DIGEST_CHANNEL]
        assert main(argv) == 0
        assert main(argv) == 0
        posted = slack.all_messages()
    assert len(posted) == 2  # the lead and its one thread message, once


def test_queue_url_is_checked_at_start() -> None:
    with pytest.raises(ConfigError, match="QUEUE_URL is not a Redis URL"):
        load_settings({"REDIS_URL": "redis://127.0.0.1:1/0", "QUEUE_URL": "http://queue"})
    with pytest.raises(ConfigError, match="QUEUE_URL is set without REDIS_URL"):
        load_settings({"QUEUE_URL": "redis://127.0.0.1:1/0"})


def test_doctor_says_redis_is_a_cluster_and_where_cards_are_made(
    github: FakeGitHub,
    cluster_url: str,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("REDIS_URL", cluster_url)
    main(["doctor"])
    assert "a Redis Cluster; no QUEUE_URL: cards made in each process" in capsys.readouterr().out
    monkeypatch.setenv("QUEUE_URL", redis_url)
    main(["doctor"])
    assert "a Redis Cluster; card queue at redis://127.0.0.1:" in capsys.readouterr().out
