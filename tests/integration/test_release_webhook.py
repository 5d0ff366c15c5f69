"""A published release posted where channels asked for it (`releases = "post"`), through two
served replicas on one Redis and one Slack: GitHub's `release` event, delivered to both, posts
it once in each such channel and nowhere else; drafts and pre-releases post nothing; the
scheduler's poll posts a fresh release the webhook never told of, and never an old one."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from devkit.clocks import WallClock
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack

from tests.integration.conftest import REPO
from tests.integration.slack_harness import SlackHarness, serve_harness, wait_for
from tests.integration.test_github_webhook import SECRET, deliver
from tests.integration.test_reliability import good_card

POSTS = "C0RELEASE1"
ALSO = "C0RELEASE2"
QUIET = "C0NORELEAS"
START = datetime(2026, 11, 1, tzinfo=UTC)
CONFIG = "\n".join(
    f'[[channels]]\nid = "{channel}"\nrepos = ["{REPO}"]\nreleases = "{mode}"\n'
    for channel, mode in ((POSTS, "post"), (ALSO, "post"), (QUIET, "off"))
)


def release_event(tag: str, *, draft: bool = False, prerelease: bool = False) -> dict[str, Any]:
    # The fields of GitHub's `release` event we read, in the shape it sends them.
    return {
        "action": "published",
        "release": {"tag_name": tag, "draft": draft, "prerelease": prerelease, "name": tag},
        "repository": {"full_name": REPO, "private": False},
        "sender": {"login": "releaser"},
    }


@pytest.fixture
def clock() -> WallClock:
    return WallClock(START + timedelta(days=2))


@pytest.fixture
def replicas(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path, clock: WallClock
) -> Iterator[tuple[SlackHarness, SlackHarness]]:
    model.responder = good_card
    for number in range(1, 31):
        github.add_pr(
            REPO,
            number,
            title=f"[Core] Change {number}",
            merged_at=START + timedelta(hours=number),
            files=[{"path": f"vllm/core/mod_{number}.py", "additions": 10, "deletions": 1}],
        )
    github.add_release(REPO, "v1", START + timedelta(hours=10, minutes=1))
    github.add_release(REPO, "v2rc1", START + timedelta(hours=20, minutes=1), prerelease=True)
    github.add_release(REPO, "v2", START + timedelta(hours=30, minutes=1))
    with contextlib.ExitStack() as stack:
        slack = stack.enter_context(FakeSlack())
        first, second = (
            stack.enter_context(
                serve_harness(
                    github,
                    model,
                    redis_url,
                    tmp_path / name,
                    config_text=CONFIG,
                    now=clock,
                    webhook_secret=SECRET,
                    shared_slack=slack,
                )
            )
            for name in ("a", "b")
        )
        yield first, second


@pytest.fixture(autouse=True)
def config_dirs(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()


def leads(harness: SlackHarness, channel: str) -> list[str]:
    return [message["text"] for message in harness.slack.messages(channel)]


def test_a_release_delivered_to_two_replicas_is_posted_once_where_asked(
    replicas: tuple[SlackHarness, SlackHarness],
) -> None:
    first, second = replicas
    assert deliver(first, release_event("v2"), event="release").status_code == 202
    assert deliver(second, release_event("v2"), event="release").status_code == 202  # another hook's delivery
    for channel in (POSTS, ALSO):
        wait_for(lambda c=channel: leads(first, c), timeout=30)  # type: ignore[misc]
    for harness in replicas:
        harness.parts.scheduler.tick()  # the poll finds it posted already
        wait_for(lambda h=harness: not h.parts.scheduler.busy, timeout=30)  # type: ignore[misc]
    for channel in (POSTS, ALSO):
        (lead,) = leads(first, channel)
        assert lead.startswith(f"{REPO} v2 (since v1)")
        assert first.slack.thread(channel, first.slack.messages(channel)[0]["ts"])  # the cards, by area
    assert leads(first, QUIET) == []


def test_drafts_and_pre_releases_post_nothing(replicas: tuple[SlackHarness, SlackHarness]) -> None:
    first, _ = replicas
    assert deliver(first, release_event("v2rc1", prerelease=True), event="release").json() == {
        "ignored": "not a published full release"
    }
    assert deliver(first, release_event("v3", draft=True), event="release").status_code == 200
    assert leads(first, POSTS) == []


def test_the_poll_posts_a_fresh_release_nobody_told_of_and_never_an_old_one(
    replicas: tuple[SlackHarness, SlackHarness], clock: WallClock
) -> None:
    first, second = replicas
    clock.now = START + timedelta(days=9)  # v2 is a week old: not posted when first seen now
    for harness in replicas:
        harness.parts.scheduler.tick()
        wait_for(lambda h=harness: not h.parts.scheduler.busy, timeout=30)  # type: ignore[misc]
    assert leads(first, POSTS) == []
    clock.now = START + timedelta(days=2)
    for harness in (first, second, first):
        harness.parts.scheduler.tick()
        wait_for(lambda h=harness: not h.parts.scheduler.busy, timeout=30)  # type: ignore[misc]
    assert len(leads(first, POSTS)) == 1 and len(leads(first, ALSO)) == 1
