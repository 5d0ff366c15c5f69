"""The shared card queue (issue 14) on a real Redis: jobs are JSON, a (PR, language) is queued once,
workers make the cards, and a digest in a process without a worker waits for them instead of
asking the model itself; with no worker alive, it makes them itself as before."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.redis_server import RedisServer

from bot.core.card_jobs import CardJob
from bot.models import Window
from bot.spending.budgets import Payer
from bot.wiring.process import start_worker
from tests.integration.conftest import REPO, ServicesFactory, day, settings_for
from tests.integration.slack_harness import wait_for
from tests.integration.test_reliability import add_prs, good_card

NAMESPACE = "prdigest:jobs"
WINDOW = Window(day(0), day(24))


@pytest.fixture
def client(redis_url: str) -> Iterator[redis.Redis]:
    connection = redis.Redis.from_url(redis_url)
    yield connection
    connection.close()


def queued_messages(client: redis.Redis) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in client.hvals(f"{NAMESPACE}:cards.msgs")]


def test_a_job_is_json_queued_once_and_made_by_a_worker(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, client: redis.Redis, make_services: ServicesFactory
) -> None:
    add_prs(github, 1)
    model.responder = good_card
    services = make_services(settings_for(github, model, redis_url))
    queue = services.queue
    assert queue is not None and not queue.workers_alive()

    job = CardJob(REPO, 1, "en")
    assert queue.submit(job) is True
    assert queue.submit(CardJob(REPO.upper(), 1, "en")) is False  # the same card, however spelled
    assert queue.submit(CardJob(REPO, 1, "zh-CN")) is True  # another language is another card
    messages = queued_messages(client)
    assert sorted(message["args"][0]["language"] for message in messages) == ["en", "zh-CN"]
    assert all(message["args"][0]["repo"] == REPO for message in messages)  # plain JSON, no pickle
    assert queue.depth() == 2 and queue.oldest_age() >= 0

    worker = start_worker(services, 2)
    try:
        assert wait_for(queue.workers_alive)
        wait_for(lambda: queue.depth() == 0 and model.calls == 2, timeout=20)
        snapshot = services.cards.snapshot_by_ref(job.ref)
        assert services.cards.card(snapshot, "en").card.source == "llm"
        assert model.calls == 2  # from the store: no third call
        # Done, the mark is gone: the card may be queued again (a fallback card asked again later).
        wait_for(lambda: not client.exists(f"{NAMESPACE}:queued:{job.key}"))
    finally:
        worker.stop()
    # A worker that stopped is no longer counted alive (the check is cached for a second).
    time.sleep(1.1)
    assert not queue.workers_alive()


def test_a_job_prdigest_did_not_write_is_dropped_not_retried(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, client: redis.Redis, make_services: ServicesFactory
) -> None:
    services = make_services(settings_for(github, model, redis_url))
    queue = services.queue
    assert queue is not None
    queue._actor.send({"repo": "not a repo", "number": -1, "language": "fr"})
    worker = start_worker(services, 1)
    try:
        wait_for(lambda: queue.depth() == 0, timeout=10)
        time.sleep(0.5)
        assert model.calls == 0 and client.zcard(f"{NAMESPACE}:cards.XQ") == 0
    finally:
        worker.stop()


def test_a_digest_without_a_worker_of_its_own_waits_for_the_workers_cards(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, make_services: ServicesFactory
) -> None:
    add_prs(github, 12)
    model.responder = good_card
    model.latency = 0.05
    # The serving process has no model it could reach: every card it made itself would be a
    # heuristic one. The worker's process has the model.
    serving = make_services(
        settings_for(github, None, redis_url, OPENAI_API_KEY="k", OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    )
    working = make_services(settings_for(github, model, redis_url))
    worker = start_worker(working, 4)
    try:
        wait_for(lambda: serving.queue is not None and serving.queue.workers_alive())
        digest = serving.digests.build((REPO,), WINDOW)
    finally:
        worker.stop()
    assert digest.shown == 12 and digest.model_failures == 0
    assert all(item.card.source == "llm" for item in digest.items)
    assert model.calls == 12  # each card once, by the worker


def test_with_no_worker_alive_a_digest_makes_its_cards_itself(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, client: redis.Redis, make_services: ServicesFactory
) -> None:
    add_prs(github, 5)
    model.responder = good_card
    services = make_services(settings_for(github, model, redis_url))
    digest = services.digests.build((REPO,), WINDOW)
    assert digest.shown == 5 and all(item.card.source == "llm" for item in digest.items)
    assert model.calls == 5
    assert client.llen(f"{NAMESPACE}:cards") == 0  # nothing left queued for nobody


def test_a_worker_started_while_redis_is_away_takes_jobs_once_it_answers(
    github: FakeGitHub, model: FakeOpenAI, own_redis: RedisServer, make_services: ServicesFactory
) -> None:
    add_prs(github, 1)
    model.responder = good_card
    services = make_services(settings_for(github, model, own_redis.url))
    queue = services.queue
    assert queue is not None
    own_redis.stop()
    worker = start_worker(services, 1)  # serve comes up while Redis is away
    try:
        assert not queue.workers_alive()
        own_redis.start()
        assert wait_for(queue.workers_alive, timeout=20)
        assert queue.submit(CardJob(REPO, 1, "en"))
        wait_for(lambda: model.calls == 1, timeout=30)
    finally:
        worker.stop()


def test_a_digest_whose_cards_workers_make_asks_github_once_per_pr(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, make_services: ServicesFactory
) -> None:
    # `serve` with its own worker, as the scheduler and `/pr digest` run: the workers take the
    # digest's jobs at once, while the digest is still reading the day's PRs from GitHub.
    add_prs(github, 12)
    model.responder = good_card
    github.latency = 0.02
    services = make_services(settings_for(github, model, redis_url))
    worker = start_worker(services, 8)
    try:
        wait_for(lambda: services.queue is not None and services.queue.workers_alive())
        digest = services.digests.build((REPO,), WINDOW)
    finally:
        worker.stop()
    assert digest.shown == 12 and all(item.card.source == "llm" for item in digest.items)
    counts = github.counts_by_kind()
    # The files of each PR, once; no GET of a PR for its listing, no per-PR review comments.
    assert counts.get("files") == 12 and "pull" not in counts and "comments" not in counts, counts


def test_a_job_of_an_asker_that_reads_nothing_is_made_at_once(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, make_services: ServicesFactory
) -> None:
    # An answer across days queues the cards of PRs it has no card for, and reads nothing from
    # GitHub itself: the worker reads the PR, it does not wait for a snapshot nobody is reading.
    add_prs(github, 3)
    model.responder = good_card
    services = make_services(settings_for(github, model, redis_url))
    listings = services.source.list_merged(REPO, WINDOW)
    worker = start_worker(services, 3)
    try:
        wait_for(lambda: services.queue is not None and services.queue.workers_alive())
        assert services.cards.queue(listings, "en", Payer("C0123456789")) == 3
        assert wait_for(lambda: model.calls == 3, timeout=15)
    finally:
        worker.stop()
