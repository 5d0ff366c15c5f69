"""Faults on every side, quick enough for every run: nothing lost, nothing twice.

The long versions (three server processes, a poster killed mid-thread, 1,000 events) are in
`make soak`; see docs/reliability.md.
"""

from __future__ import annotations

import contextlib
import json
import random
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack

from bot.digests.lease import PostLease
from bot.models import DigestOptions, Filters, Window
from bot.slack.app import SlackParts
from bot.wiring.process import build_process
from bot.wiring.slack import slack_app, wire_slack
from bot.wiring.timing import Timing
from bot.words import said
from tests.integration.conftest import REPO, ServicesFactory, day, settings_for
from tests.integration.slack_harness import CONFIG, DIGEST_CHANNEL, app_settings, serve_harness

WINDOW = Window(day(0), day(24))
DAY = "2026-08-05"


def add_prs(github: FakeGitHub, count: int) -> None:
    for number in range(1, count + 1):
        github.add_pr(
            REPO,
            number,
            title=f"Change number {number}",
            merged_at=day(number * 0.2),
            files=[{"path": f"vllm/mod_{number}.py", "additions": 50, "deletions": 3}],
        )


def good_card(request: dict[str, Any]) -> dict[str, Any] | str:
    if "response_format" not in request:
        return "An answer."
    return {"headline": "A change", "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}


def test_thirty_percent_model_faults_still_give_every_pr_a_card(
    github: FakeGitHub, model: FakeOpenAI, make_services: ServicesFactory
) -> None:
    add_prs(github, 40)
    chance = random.Random(30)
    lock = threading.Lock()

    def flaky(request: dict[str, Any]) -> dict[str, Any] | str:
        with lock:
            fail = chance.random() < 0.3
        if fail:
            raise RuntimeError("injected 500")
        return good_card(request)

    model.responder = flaky
    digest = make_services(settings_for(github, model)).digests.build((REPO,), WINDOW)
    assert digest.shown == 40 and len({item.listing.number for item in digest.items}) == 40
    assert sum(item.card.source == "llm" for item in digest.items) >= 30  # one retry rescues most


def test_a_digest_with_every_model_call_failing_is_posted_and_says_so(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    add_prs(github, 5)
    model.responder = lambda request: (_ for _ in ()).throw(RuntimeError("down"))
    with serve_harness(github, model, redis_url, tmp_path) as harness:
        result = harness.parts.digests.run(
            DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("en", Filters(), "note")
        )
        assert result is not None
        (lead,) = harness.slack.messages(DIGEST_CHANNEL)
        assert "The model could not be reached for 5 of 5 PRs" in json.dumps(lead["blocks"])
        thread = " ".join(message["text"] for message in harness.slack.thread(DIGEST_CHANNEL, lead["ts"]))
        assert all(f"#{number}" in thread for number in range(1, 6))


def test_github_rate_limit_resetting_in_two_seconds_is_waited_out(
    github: FakeGitHub, make_services: ServicesFactory
) -> None:
    add_prs(github, 3)
    github.rate_limit = 2  # the list page and one more, then 403 until the reset
    github.rate_limit_reset_in = 2
    threading.Timer(2.0, lambda: setattr(github, "rate_limit", None)).start()  # GitHub's reset
    started = time.monotonic()
    digest = make_services(settings_for(github)).digests.build((REPO,), WINDOW)
    assert time.monotonic() - started >= 2.0
    assert digest.shown == 3 and all(item.card.coverage.files_known for item in digest.items)
    assert digest.notes == ()


def test_a_pr_gone_mid_digest_is_named_and_the_rest_complete(
    github: FakeGitHub, make_services: ServicesFactory
) -> None:
    add_prs(github, 5)
    github.fail_next(r"/pulls/3/files$", 404, body={"message": "Not Found"})
    digest = make_services(settings_for(github)).digests.build((REPO,), WINDOW)
    assert digest.shown == 5
    gone = next(item for item in digest.items if item.listing.number == 3)
    assert not gone.card.coverage.files_known
    assert any("#3" in said("en", note) and "not found" in said("en", note) for note in digest.notes)
    assert all(item.card.coverage.files_known for item in digest.items if item.listing.number != 3)


@contextlib.contextmanager
def replica(
    github: FakeGitHub, model: FakeOpenAI, slack: FakeSlack, redis_url: str, config: Path, lease: float | None = None
) -> Iterator[SlackParts]:
    """One replica of the app, its clients closed on exit, whatever the test found."""
    settings = app_settings(github, model, slack, redis_url, config)
    services = build_process(
        settings, Timing(model_retries=0, pace=0.0, post_lease_seconds=lease), warn=lambda message: None
    )
    with contextlib.closing(services):
        yield slack_app(wire_slack(services))


def test_three_replicas_at_post_time_post_one_digest(
    github: FakeGitHub, model: FakeOpenAI, any_redis_url: str, tmp_path: Path
) -> None:
    add_prs(github, 8)
    model.responder = good_card
    model.latency = 0.1
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG, encoding="utf-8")
    with FakeSlack() as slack, contextlib.ExitStack() as stack:
        replicas = [stack.enter_context(replica(github, model, slack, any_redis_url, config)) for _ in range(3)]
        results: list[Any] = []

        def post(parts: Any) -> None:
            results.append(
                parts.digests.run(DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("en", Filters(), "note"))
            )

        threads = [threading.Thread(target=post, args=(parts,)) for parts in replicas]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert sum(result is not None for result in results) == 1
        assert len(slack.messages(DIGEST_CHANNEL)) == 1
        assert model.calls == 8


# Short, so the test waits little for the dead poster's lease to lapse; long enough that a busy
# machine cannot starve the live poster's heartbeat (renewed every third of it) past it.
DYING_LEASE = 2.0


def test_a_poster_that_dies_mid_thread_is_taken_over_without_duplicates(
    github: FakeGitHub, model: FakeOpenAI, any_redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_prs(github, 40)
    model.responder = good_card
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG, encoding="utf-8")
    with (
        FakeSlack() as slack,
        replica(github, model, slack, any_redis_url, config, lease=DYING_LEASE) as dying,
        replica(github, model, slack, any_redis_url, config, lease=DYING_LEASE) as survivor,
    ):
        # The dying replica stops answering after two posts and never releases its lease.
        slack.fail_next("chat.postMessage", error="internal_error", after=2, times=50)
        monkeypatch.setattr(PostLease, "__exit__", lambda self, *exc: self._stop.set())
        with pytest.raises(Exception, match="internal_error"):
            dying.digests.run(DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("en", Filters(), "note"))
        monkeypatch.undo()
        slack.clear_faults()
        assert (
            survivor.digests.run(DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("en", Filters(), "note"))
            is None
        )
        time.sleep(DYING_LEASE + 0.1)  # one lease time
        result = survivor.digests.run(
            DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("en", Filters(), "note")
        )
        assert result is not None and result.already == 2
        (lead,) = slack.messages(DIGEST_CHANNEL)
        text = " ".join(message["text"] for message in slack.thread(DIGEST_CHANNEL, lead["ts"]))
        numbers = [int(found) for found in re.findall(r"#(\d+)\b", text)]
        assert sorted(numbers) == list(range(1, 41))
