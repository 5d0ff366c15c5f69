"""QUEUE_URL naming RabbitMQ (amqp://), Dramatiq's RabbitMQ broker on a real rabbitmq-server on
loopback: a worker in one process makes the cards another's digest waits for, the queue's marks
are kept in REDIS_URL's store (a single Redis, or a cluster), and RabbitMQ away is a miss, not a
stop: the digest makes its cards itself."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.rabbitmq_server import RabbitmqServer

from bot.core.card_jobs import CardJob
from bot.errors import ConfigError, StoreError
from bot.models import Window
from bot.settings import load_settings
from bot.wiring.process import start_worker
from tests.integration.conftest import REPO, ServicesFactory, day, settings_for
from tests.integration.slack_harness import wait_for
from tests.integration.test_reliability import add_prs, good_card

WINDOW = Window(day(0), day(24))


@pytest.fixture(scope="module")
def rabbitmq() -> Iterator[RabbitmqServer]:
    with RabbitmqServer() as server:
        yield server


@pytest.mark.parametrize("store", ["single", "cluster"])
def test_a_worker_makes_the_cards_a_digest_waits_for(
    github: FakeGitHub,
    model: FakeOpenAI,
    rabbitmq: RabbitmqServer,
    store: str,
    request: pytest.FixtureRequest,
    make_services: ServicesFactory,
) -> None:
    redis_url = str(request.getfixturevalue("redis_url" if store == "single" else "cluster_url"))
    add_prs(github, 6)
    model.responder = good_card
    queued = {"QUEUE_URL": rabbitmq.url}
    # The serving process has no model it could reach: a card it made itself would be a heuristic one.
    serving = make_services(
        settings_for(github, None, redis_url, OPENAI_API_KEY="k", OPENAI_BASE_URL="http://127.0.0.1:9/v1", **queued)
    )
    # A generous model budget: on a loaded machine the worker's threads may wait their turn a while.
    working = make_services(settings_for(github, model, redis_url, **queued), model_timeout=30)
    worker = start_worker(working, 3)
    try:
        wait_for(lambda: serving.queue is not None and serving.queue.workers_alive())
        digest = serving.digests.build((REPO,), WINDOW)
        assert serving.queue is not None
        wait_for(lambda: serving.queue is not None and serving.queue.depth() == 0)
    finally:
        worker.stop()
    sources = [(item.listing.number, item.card.source, item.card.no_model) for item in digest.items]
    assert digest.shown == 6 and all(item.card.source == "llm" for item in digest.items), (sources, model.calls)
    assert model.calls == 6  # each card once, by the worker


def test_a_card_is_queued_once_while_its_job_waits(
    github: FakeGitHub, model: FakeOpenAI, rabbitmq: RabbitmqServer, redis_url: str, make_services: ServicesFactory
) -> None:
    services = make_services(settings_for(github, model, redis_url, QUEUE_URL=rabbitmq.url))
    queue = services.queue
    assert queue is not None
    assert queue.submit(CardJob(REPO, 41, "en")) is True
    assert queue.submit(CardJob(REPO.upper(), 41, "en")) is False  # the same card, however spelled
    assert queue.depth() >= 1
    with redis.Redis.from_url(redis_url) as client:
        assert client.exists(f"prdigest:v1:jobs_queued:{REPO.lower()}#41:en")
    with pytest.raises(LookupError):
        queue.oldest_age()


def test_rabbitmq_away_is_a_store_error_and_the_digest_makes_its_cards(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, make_services: ServicesFactory
) -> None:
    add_prs(github, 3)
    model.responder = good_card
    services = make_services(settings_for(github, model, redis_url, QUEUE_URL="amqp://guest:guest@127.0.0.1:9/%2F"))
    queue = services.queue
    assert queue is not None and not queue.workers_alive()
    with pytest.raises(StoreError, match="The card queue"):
        queue.depth()
    digest = services.digests.build((REPO,), WINDOW)
    assert digest.shown == 3 and model.calls == 3


def test_a_queue_url_is_read_at_start() -> None:
    with pytest.raises(ConfigError, match="QUEUE_URL names no RabbitMQ host"):
        load_settings({"REDIS_URL": "redis://127.0.0.1:1/0", "QUEUE_URL": "amqp://"})
