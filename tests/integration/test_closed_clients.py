"""A process's clients, once closed, open nothing: what still runs under them fails instead.

A thread that outlives its command (a metrics label asking whether a repository is private, a
card still being fetched) must not make a new client nobody will close: its sockets would be
left to the garbage collector.
"""

from __future__ import annotations

import contextlib

import pytest
import redis
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.redis_server import RedisServer

from bot.errors import SourceUnreachable
from bot.ops import telemetry
from bot.wiring.metrics import metrics_installed
from tests.integration.conftest import REPO, ServicesFactory, day, settings_for
from tests.integration.test_reliability import WINDOW, good_card


def test_a_closed_github_client_refuses_and_sends_nothing(github: FakeGitHub, make_services: ServicesFactory) -> None:
    github.add_pr(REPO, 7, title="Faster", merged_at=day(1), files=[{"path": "vllm/a.py", "additions": 4}])
    services = make_services(settings_for(github))
    assert services.visibility.is_private(REPO) is False
    sent = len(github.requests)
    services.close()

    with pytest.raises(SourceUnreachable, match="client closed"):
        services.source.is_private("acme/other")
    # What asks through the visibility hears "cannot tell": private, as a failed lookup is.
    assert services.visibility.is_private("acme/other") is True
    assert len(github.requests) == sent


def test_a_metrics_sink_is_gone_with_the_process_that_installed_it(
    github: FakeGitHub, make_services: ServicesFactory
) -> None:
    services = make_services(settings_for(github))
    with metrics_installed(services):
        assert telemetry.active()
    assert not telemetry.active()
    telemetry.count("model_tokens_by_repo_total", 10, repo=REPO)  # reaches no sink, asks GitHub nothing
    assert github.requests == []


def test_a_closed_process_leaves_no_connection_open_to_redis(
    github: FakeGitHub, model: FakeOpenAI, own_redis: RedisServer, make_services: ServicesFactory
) -> None:
    github.add_pr(REPO, 7, title="Faster", merged_at=day(1), files=[{"path": "vllm/a.py", "additions": 4}])
    model.responder = good_card
    services = make_services(settings_for(github, model, redis_url=own_redis.url))
    assert services.queue is not None
    services.digests.build((REPO,), WINDOW)  # the store's connections
    services.queue.depth()  # and the card queue's, which Dramatiq's broker opens and never closes
    with contextlib.closing(redis.Redis.from_url(own_redis.url)) as admin:
        assert len(admin.client_list()) > 1
        services.close()
        # Only the asker itself: a connection left open is a socket the garbage collector finds later.
        assert [client["name"] for client in admin.client_list()] == [""]
