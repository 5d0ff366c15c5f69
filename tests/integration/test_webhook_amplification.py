"""Issue 23, item 7: a signed delivery costs GitHub at most one request when its PR does not exist
or is not merged, a PR number GitHub could not give is refused at the door, and each of these
failures logs one line (no traceback, no retry)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.core.card_jobs import MAX_PR_NUMBER, CardJob
from bot.wiring.process import start_worker
from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import SlackHarness, serve_harness, wait_for
from tests.integration.test_github_webhook import NAMESPACE, SECRET, deliver, merge_event, queued
from tests.integration.test_reliability import good_card


@pytest.fixture
def served(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    with serve_harness(github, model, redis_url, tmp_path, webhook_secret=SECRET) as harness:
        yield harness


@pytest.fixture
def client(redis_url: str) -> Iterator[redis.Redis]:
    connection = redis.Redis.from_url(redis_url)
    yield connection
    connection.close()


def pull_requests(github: FakeGitHub, number: int) -> int:
    return sum(1 for request in github.requests if request.path.endswith(f"/pulls/{number}"))


def run_jobs_to_the_end(served: SlackHarness, client: redis.Redis, numbers: list[int]) -> None:
    """Run a worker until each job's queued mark is gone (done or dropped: a failed job keeps its
    mark while it waits for its retry) and nothing waits in the queue or for a retry."""
    marks = [f"{NAMESPACE}:queued:{CardJob(REPO, number, 'en').key}" for number in numbers]
    worker = start_worker(served.services, 2)
    try:
        wait_for(lambda: not any(client.exists(mark) for mark in marks), timeout=20)
        wait_for(lambda: served.services.queue is not None and served.services.queue.depth() == 0, timeout=20)
    finally:
        worker.stop()


@pytest.mark.parametrize("number", [10**30, MAX_PR_NUMBER + 1, 0, -3, "7", True], ids=repr)
def test_a_merge_of_a_pr_number_github_could_not_give_is_refused_and_queues_nothing(
    served: SlackHarness, redis_url: str, number: object, caplog: pytest.LogCaptureFixture
) -> None:
    event = merge_event()
    event["pull_request"]["number"] = number
    with caplog.at_level(logging.WARNING, logger="bot.http.webhook"):
        response = deliver(served, event)
    assert response.status_code == 422 and "pull_request.number" in response.json()["error"]
    assert queued(redis_url) == 0
    refusals = [record for record in caplog.records if record.name == "bot.http.webhook"]
    assert len(refusals) == 1 and refusals[0].exc_info is None and "\n" not in refusals[0].getMessage()


def test_the_largest_number_github_gives_is_still_queued(served: SlackHarness, redis_url: str) -> None:
    assert deliver(served, merge_event(number=MAX_PR_NUMBER)).status_code == 202
    assert queued(redis_url) == 1


def test_jobs_for_missing_prs_cost_one_request_each_and_one_line(
    served: SlackHarness, client: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    numbers = [404, 405, 406]
    for number in numbers:
        assert deliver(served, merge_event(number=number)).status_code == 202
    with caplog.at_level(logging.INFO):
        run_jobs_to_the_end(served, client, numbers)

    assert [pull_requests(served.github, number) for number in numbers] == [1, 1, 1]
    assert len(served.github.requests) == len(numbers)  # nothing else was asked either
    assert client.zcard(f"{NAMESPACE}:cards.DQ") == 0 and client.zcard(f"{NAMESPACE}:cards.XQ") == 0
    assert not [record for record in caplog.records if record.exc_info is not None]
    drops = [record.getMessage() for record in caplog.records if "dropped" in record.getMessage()]
    assert sorted(drops) == [f"card job for {REPO}#{n} dropped: GitHub has no such pull request" for n in numbers]
    assert served.model.calls == 0


def test_a_job_for_a_closed_unmerged_pr_is_dropped_and_gets_no_card(
    served: SlackHarness, client: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    served.github.add_pr(
        REPO, 8, title="Abandoned", merged_at=None, closed_at=day(1), files=[{"path": "vllm/a.py", "additions": 3}]
    )
    served.model.responder = good_card
    # The payload claims a merge (its sender holds the secret); GitHub says otherwise.
    assert deliver(served, merge_event(number=8)).status_code == 202
    with caplog.at_level(logging.INFO):
        run_jobs_to_the_end(served, client, [8])

    assert len(served.github.requests) == 1 and pull_requests(served.github, 8) == 1  # no files, no comments
    assert served.model.calls == 0
    assert not [record for record in caplog.records if record.exc_info is not None]
    drops = [record.getMessage() for record in caplog.records if "dropped" in record.getMessage()]
    assert drops == [f"card job for {REPO}#8 dropped: a merge was announced, but GitHub says it is not merged"]


def test_a_merged_pr_announced_by_the_webhook_still_gets_its_card(served: SlackHarness, client: redis.Redis) -> None:
    served.github.add_pr(
        REPO, 9, title="A change", merged_at=day(1), files=[{"path": "vllm/a.py", "additions": 3, "deletions": 1}]
    )
    served.model.responder = good_card
    assert deliver(served, merge_event(number=9)).status_code == 202
    run_jobs_to_the_end(served, client, [9])
    assert served.model.calls == 1


def test_a_job_github_fails_logs_one_line_and_is_made_on_its_retry(
    served: SlackHarness, client: redis.Redis, caplog: pytest.LogCaptureFixture
) -> None:
    served.github.add_pr(
        REPO, 10, title="A change", merged_at=day(1), files=[{"path": "vllm/a.py", "additions": 3, "deletions": 1}]
    )
    served.model.responder = good_card
    served.github.fail_next(r"/pulls/10$", 502, times=2)  # the first try and PyGithub's own retry of it
    assert deliver(served, merge_event(number=10)).status_code == 202
    with caplog.at_level(logging.INFO):
        run_jobs_to_the_end(served, client, [10])

    assert served.model.calls == 1
    assert not [record for record in caplog.records if record.exc_info is not None]
    failures = [record.getMessage() for record in caplog.records if "card job failed" in record.getMessage()]
    assert len(failures) == 1 and "\n" not in failures[0]
