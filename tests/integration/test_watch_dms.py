"""Personal watches through the real app on loopback: `/pr watch`, `watch list` and `unwatch` as
signed slash commands, then days replayed one after another with the scheduler's tick, against
fake Slack, GitHub and model servers and a real Redis. Each person gets at most one DM a day, at
09:00 in their Slack time zone, with the cards their watches match; a private repository's only
while they are in a channel configured for it; never twice, with two replicas ticking."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import redis
from devkit.clocks import WallClock
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.core.watches import Watch
from bot.models import Window
from bot.store.backends.redis_store import PREFIX
from bot.store.ledger import PostLedger
from bot.watches.dms import DueWatchDM
from bot.wiring.process import Process, build_process
from bot.wiring.slack import slack_app, wire_slack
from tests.integration.conftest import REPO
from tests.integration.oauth_harness import HOME, SECOND, SECOND_CHANNEL, OAuthHarness
from tests.integration.oauth_harness import HUMAN as OAUTH_HUMAN
from tests.integration.slack_harness import (
    DIGEST_CHANNEL,
    HUMAN,
    OTHER_CHANNEL,
    OTHER_REPO,
    SlackHarness,
    serve_harness,
    wait_for,
)

OUTSIDER = "U0OUTSIDE1"
ZONE = "Asia/Shanghai"  # 09:00 there is 01:00 UTC


def card_reply(request: dict[str, Any]) -> dict[str, Any] | str:
    if "response_format" not in request:
        return "An answer."
    return {"headline": "A change worth a look", "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}


def merged(github: FakeGitHub, repo: str, number: int, when: str, path: str, body: str = "") -> None:
    github.add_pr(
        repo,
        number,
        title=f"Change {number}",
        body=body,
        merged_at=datetime.fromisoformat(when),
        files=[{"path": path, "additions": 30, "deletions": 2}],
    )


@pytest.fixture
def served(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> Iterator[tuple[SlackHarness, WallClock]]:
    clock = WallClock(datetime(2026, 8, 5, 0, 0, tzinfo=UTC))
    with serve_harness(github, model, redis_url, tmp_path, now=clock) as harness:
        harness.github.add_repo(OTHER_REPO, private=True)
        harness.model.responder = card_reply
        harness.slack.members = {DIGEST_CHANNEL: [HUMAN, OUTSIDER], OTHER_CHANNEL: [HUMAN]}
        harness.slack.zones = {HUMAN: ZONE, OUTSIDER: ZONE}
        yield harness, clock


def told(harness: SlackHarness, text: str, user: str = HUMAN, channel: str = DIGEST_CHANNEL) -> str:
    """What the asker is told through the response_url after `/pr <text>`."""
    hook, response = harness.command(text, channel, user=user)
    assert response.status_code == 200
    wait_for(lambda: harness.slack.responses[hook])
    harness.settle()
    return str(harness.slack.responses[hook][-1]["text"])


def tick(harness: SlackHarness, clock: WallClock, when: str, *replicas: Process) -> None:
    """The scheduler's tick at `when` (UTC), in this replica and in each of `replicas`, settled."""
    clock.now = datetime.fromisoformat(when)
    harness.parts.scheduler.tick()
    others = [slack_app(wire_slack(replica)) for replica in replicas]
    for parts in others:
        parts.scheduler.tick()
    harness.settle()
    for parts in others:
        wait_for(parts.idle)
        parts.scheduler.stop()


def dm_text(message: dict[str, Any]) -> str:
    return json.dumps(message["blocks"])


# -- the commands ---------------------------------------------------------------------------


def test_watch_list_and_unwatch_answer_the_asker_alone(served: tuple[SlackHarness, WallClock]) -> None:
    harness, _ = served
    assert "You watch nothing yet" in told(harness, "watch list")
    added = told(harness, f"watch {REPO} vllm/attention/**")
    assert f"Watching {REPO} vllm/attention/**" in added and f"09:00 ({ZONE})" in added
    assert "Watching" in told(harness, f"watch {REPO}#51079")
    assert "already watch" in told(harness, f"watch {REPO.upper()} vllm/attention/**")
    listed = told(harness, "watch list")
    assert f"`{REPO} vllm/attention/**`" in listed and f"`{REPO}#51079`" in listed
    assert "no watch called docs/**" in told(harness, "unwatch docs/**")
    assert f"Stopped watching {REPO} vllm/attention/**" in told(harness, "unwatch vllm/attention/**")
    assert f"Stopped watching {REPO}#51079" in told(harness, "unwatch all")
    assert "You watch nothing yet" in told(harness, "watch list")
    # Someone else's watches are their own.
    told(harness, f"watch {REPO} docs/**")
    assert "You watch nothing yet" in told(harness, "watch list", user=OUTSIDER)
    assert harness.slack.all_messages() == [] and harness.slack.rejections == []


def test_bad_watch_input_is_refused_at_once(served: tuple[SlackHarness, WallClock]) -> None:
    harness, _ = served
    _, response = harness.command("watch")
    assert "Usage" in response.text and "watch owner/repo path/glob" in response.text
    _, response = harness.command("watch not-a-repo src/**")
    assert "'not-a-repo' is not a repository" in response.text
    _, response = harness.command(f"watch {REPO} {'a' * 201}")
    assert "at most 200 characters" in response.text
    _, response = harness.command(f"watch {REPO} a b")
    assert "Usage" in response.text
    _, response = harness.command("unwatch")
    assert "unwatch all" in response.text
    harness.settle()
    assert harness.wired.tenants.get(None).watch_dms.watches.everyone() == {}


def test_a_private_or_missing_repository_is_refused_alike(served: tuple[SlackHarness, WallClock]) -> None:
    harness, _ = served
    private = told(harness, f"watch {OTHER_REPO} keys/**", user=OUTSIDER)
    missing = told(harness, "watch nobody/nothing keys/**", user=OUTSIDER)
    assert private.replace(OTHER_REPO, "R") == missing.replace("nobody/nothing", "R")
    assert "does not exist, or it is private" in private
    assert "Watching" in told(harness, f"watch {OTHER_REPO} keys/**", user=HUMAN)  # in its channel


def test_a_person_keeps_at_most_twenty_watches(served: tuple[SlackHarness, WallClock]) -> None:
    harness, _ = served
    for number in range(20):
        harness.wired.tenants.get(None).watch_dms.watches.add(OUTSIDER, parse_path(f"dir{number}/**"))
    assert "the most one person may keep" in told(harness, f"watch {REPO} more/**", user=OUTSIDER)


def parse_path(glob: str) -> Watch:
    return Watch(REPO, "path", pattern=glob)


# -- the daily DM ---------------------------------------------------------------------------


def test_days_replayed_give_one_dm_a_day_with_the_matching_cards_and_none_for_what_may_not_be_seen(
    served: tuple[SlackHarness, WallClock],
) -> None:
    harness, clock = served
    github = harness.github
    # Day 1 (the 24 hours before 09:00 Shanghai on Aug 5 = 01:00 UTC): one match in each repository.
    merged(github, REPO, 101, "2026-08-04T12:00:00+00:00", "vllm/attention/layer.py")
    merged(github, REPO, 102, "2026-08-04T13:00:00+00:00", "docs/index.md")
    merged(github, OTHER_REPO, 7, "2026-08-04T14:00:00+00:00", "keys/rotate.py")
    # Day 2: a match in the public repository, one in the private one, and a revert of #101.
    merged(github, REPO, 103, "2026-08-05T12:00:00+00:00", "vllm/attention/x.py")
    merged(github, OTHER_REPO, 8, "2026-08-05T13:00:00+00:00", "keys/more.py")
    merged(github, REPO, 104, "2026-08-05T14:00:00+00:00", "setup.py", body="Reverts vllm-project/vllm#101")
    # Day 3: nothing any watch matches.
    merged(github, REPO, 105, "2026-08-06T12:00:00+00:00", "docs/other.md")

    assert "Watching" in told(harness, f"watch {REPO} vllm/attention/**")
    assert "Watching" in told(harness, f"watch {OTHER_REPO} keys/**")
    assert "Watching" in told(harness, f"watch {REPO}#101", user=OUTSIDER)
    second = build_process(harness.services.settings, harness.services.timing, warn=lambda message: None)
    try:
        tick(harness, clock, "2026-08-05T00:59:00+00:00", second)  # 08:59 in Shanghai: not yet
        assert harness.slack.dms(HUMAN) == [] and harness.slack.dms(OUTSIDER) == []

        tick(harness, clock, "2026-08-05T01:00:00+00:00", second)  # 09:00, two replicas
        tick(harness, clock, "2026-08-05T05:00:00+00:00", second)  # later that day: nothing more
        (day1,) = harness.slack.dms(HUMAN)
        assert day1["metadata"]["event_payload"] == {"day": "2026-08-05"}
        shown = dm_text(day1)
        assert "#101" in shown and f"{OTHER_REPO}#7" in shown and "#102" not in shown
        assert "A change worth a look" in shown and "vllm/attention/**" in shown
        (outsider1,) = harness.slack.dms(OUTSIDER)
        assert "#101" in dm_text(outsider1) and "#102" not in dm_text(outsider1)

        # The channel digest later that day reuses the cards the DM made: only #102 is new to the model.
        calls = harness.model.calls
        tick(harness, clock, "2026-08-05T09:30:00+00:00")
        assert len(harness.slack.messages(DIGEST_CHANNEL)) == 1
        assert harness.model.calls == calls + 1

        # Day 2: HUMAN has left the private repository's channel (the 5-minute cache gone too).
        harness.slack.members[OTHER_CHANNEL] = []
        harness.services.kv.delete(f"members:{OTHER_CHANNEL}")
        tick(harness, clock, "2026-08-06T01:05:00+00:00", second)
        day2 = harness.slack.dms(HUMAN)[1:]
        assert len(day2) == 1 and "#103" in dm_text(day2[0]) and f"{OTHER_REPO}#8" not in dm_text(day2[0])
        assert "keys/" not in json.dumps(day2[0])
        (outsider2,) = harness.slack.dms(OUTSIDER)[1:]
        assert "#104" in dm_text(outsider2) and "Change 101" not in dm_text(outsider2)

        # Day 3: nothing matches, so no DM; the day is still settled (the ledger says done).
        tick(harness, clock, "2026-08-07T02:00:00+00:00", second)
        assert len(harness.slack.dms(HUMAN)) == 2 and len(harness.slack.dms(OUTSIDER)) == 2
        assert "done" in harness.ledger.entries(f"alert:{HUMAN}", "2026-08-07")
        assert harness.slack.rejections == [] and harness.slack.warnings == []
    finally:
        second.close()


def test_a_dm_marked_pending_that_reached_slack_is_not_sent_again(served: tuple[SlackHarness, WallClock]) -> None:
    harness, clock = served
    merged(harness.github, REPO, 101, "2026-08-04T12:00:00+00:00", "vllm/attention/layer.py")
    told(harness, f"watch {REPO} vllm/attention/**")
    tick(harness, clock, "2026-08-05T01:00:00+00:00")
    assert len(harness.slack.dms(HUMAN)) == 1
    # As if the process died between posting and writing the ledger: pending, not done.
    ledger, name = harness.ledger, f"alert:{HUMAN}"
    harness.services.kv.delete(f"ledger:{{{name}}}:2026-08-05")
    ledger.record(name, "2026-08-05", "pending:1", "1")
    # Another replica (this one remembers the day as settled) finds the DM in Slack, by its metadata.
    replica = build_process(harness.services.settings, harness.services.timing, warn=lambda message: None)
    try:
        clock.now = datetime(2026, 8, 5, 2, tzinfo=UTC)
        parts = slack_app(wire_slack(replica))
        parts.scheduler.tick()
        wait_for(lambda: "done" in ledger.entries(name, "2026-08-05"))
        wait_for(parts.idle)
        parts.scheduler.stop()
    finally:
        replica.close()
    assert len(harness.slack.dms(HUMAN)) == 1
    assert harness.slack.calls("conversations.history")
    assert ledger.entries(name, "2026-08-05")["part:1"] == harness.slack.dms(HUMAN)[0]["ts"]


def test_without_a_time_zone_from_slack_the_dm_comes_at_nine_utc(served: tuple[SlackHarness, WallClock]) -> None:
    harness, clock = served
    merged(harness.github, REPO, 101, "2026-08-04T12:00:00+00:00", "vllm/attention/layer.py")
    harness.slack.zones[HUMAN] = "Mars/Olympus_Mons"
    told(harness, f"watch {REPO} vllm/attention/**")
    tick(harness, clock, "2026-08-05T08:59:00+00:00")
    assert harness.slack.dms(HUMAN) == []
    tick(harness, clock, "2026-08-05T09:00:00+00:00")
    assert len(harness.slack.dms(HUMAN)) == 1


# -- several workspaces (OAuth mode) --------------------------------------------------------


def test_another_workspaces_watches_and_dms_are_its_own(
    oauth: OAuthHarness, github: FakeGitHub, redis_url: str
) -> None:
    oauth.install(HOME)
    oauth.install(SECOND)
    merged(github, REPO, 101, "2026-08-04T12:00:00+00:00", "vllm/attention/layer.py")
    hook = oauth.slack.new_response_url()
    assert (
        oauth.command(SECOND, SECOND_CHANNEL, f"watch {REPO} vllm/attention/**", response_url=hook).status_code == 200
    )
    wait_for(lambda: oauth.slack.responses[hook.rsplit("/", 1)[-1]])
    oauth.settle()
    wired = oauth.first.wired
    assert wired.tenants.get(HOME).watch_dms.watches.everyone() == {}
    jobs = {job.team: job for job in wired.tenants.all_watch_dms()}
    assert set(jobs) == {None, SECOND} and set(jobs[SECOND].watches.everyone()) == {OAUTH_HUMAN}
    keys = set(redis.Redis.from_url(redis_url, decode_responses=True).keys("*watches*"))
    assert keys == {f"{PREFIX}team:{SECOND}:watches"}

    oauth.slack.zones[OAUTH_HUMAN] = "UTC"
    window = Window(datetime(2026, 8, 4, 9, tzinfo=UTC), datetime(2026, 8, 5, 9, tzinfo=UTC))
    before = len(oauth.slack.tokens())
    assert jobs[SECOND].send(DueWatchDM(OAUTH_HUMAN, "2026-08-05", window)) == 1
    used = oauth.slack.tokens()[before:]
    assert used and set(used) <= set(oauth.slack.workspaces.tokens_of(SECOND))
    (dm,) = oauth.slack.dms(OAUTH_HUMAN)
    assert "#101" in dm_text(dm)
    assert "done" in PostLedger(oauth.first.services.kv, SECOND).entries(f"alert:{OAUTH_HUMAN}", "2026-08-05")
