"""Glob patterns a person types, hostile ones included: refused on their field where they are
entered (settings form, `/pr watch`), and harmless when one saved before the checks reaches the
matcher, through the real Bolt app with signed requests, fake Slack and GitHub, and a real Redis.

Before matching took linear time, a 29-character pattern in a channel's Paths froze /healthz and
every ack of every workspace: the regular expression backtracked while holding the GIL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.core.strings.globs import MAX_GLOB_WILDCARDS
from bot.store.subscriptions import ChannelEdits
from tests.integration.slack_harness import DIGEST_CHANNEL, HUMAN, OTHER_REPO, SlackHarness, wait_for
from tests.integration.test_subscriptions import NEW, prepare, run, served, state, submit

NOW = datetime(2026, 8, 6, 12, 0, tzinfo=UTC)
TOO_WILD = "*?" * (MAX_GLOB_WILDCARDS // 2) + "*x"  # one wildcard over the limit
# The worst the checks let through: every wildcard allowed, and a character no path ends with. The
# old expression took 42 s for 5 pairs against one path; 8 pairs never answered.
WORST_ALLOWED = "*?" * (MAX_GLOB_WILDCARDS // 2) + "#"
# What the settings box takes (3,000 characters): saved before the checks, it reaches the matcher.
SAVED_BEFORE = ["*?" * 1500, "*?" * 12 + "#"]


@pytest.fixture
def subs(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    with served(github, model, redis_url, tmp_path) as harness:
        prepare(harness)
        # A path as long as vLLM's: the old expressions backtracked over every way to split it.
        harness.github.add_pr(
            OTHER_REPO,
            3,
            title="Tune the fused MoE kernels",
            merged_at=datetime(2026, 8, 6, 6, 3, tzinfo=UTC),
            files=[
                {"path": "src/model_executor/layers/fused_moe/fused_moe_kernels.py", "additions": 9, "deletions": 1}
            ],
        )
        yield harness


def test_a_paths_pattern_with_too_many_wildcards_is_refused_on_its_field(subs: SlackHarness) -> None:
    run(subs, f"follow {OTHER_REPO}")
    answer = submit(subs, NEW, state(repos=OTHER_REPO, paths=f"src/**, {TOO_WILD}")).json()
    assert answer["response_action"] == "errors"
    assert set(answer["errors"]) == {"paths"}
    assert f"at most {MAX_GLOB_WILDCARDS} (* or ?)" in answer["errors"]["paths"]
    subs.settle()
    (edits,) = subs.subscription_store.all().values()
    assert "paths" not in edits.values  # nothing of the refused form was kept


def test_an_authors_pattern_too_long_is_refused_on_its_field_in_chinese(subs: SlackHarness) -> None:
    run(subs, f"follow {OTHER_REPO}")
    answer = submit(subs, NEW, state(repos=OTHER_REPO, language="zh-CN", exclude_authors="a" * 3000)).json()
    assert answer["response_action"] == "errors"
    assert set(answer["errors"]) == {"exclude_authors"}
    assert "最多 200 个字符" in answer["errors"]["exclude_authors"]
    assert len(answer["errors"]["exclude_authors"]) < 150  # the pattern is shown cut, not whole


def test_a_watch_glob_with_too_many_wildcards_is_refused_at_once(subs: SlackHarness) -> None:
    _hook, response = subs.command(f"watch {OTHER_REPO} {TOO_WILD}", DIGEST_CHANNEL)
    assert f"at most {MAX_GLOB_WILDCARDS} wildcards" in response.text
    subs.settle()


def test_the_worst_pattern_the_form_lets_through_does_not_freeze_the_server(subs: SlackHarness) -> None:
    run(subs, f"follow {OTHER_REPO}")
    fields = state(repos=OTHER_REPO, paths=f"{WORST_ALLOWED}, src/*", exclude_authors=WORST_ALLOWED)
    assert submit(subs, NEW, fields).text == ""  # accepted
    subs.settle()
    _digest_is_posted_and_the_server_answers(subs)


def test_patterns_saved_before_the_checks_are_kept_and_do_not_freeze_the_server(subs: SlackHarness) -> None:
    run(subs, f"follow {OTHER_REPO}")
    store = subs.subscription_store
    (edits,) = store.all().values()
    values = {**edits.values, "paths": [*SAVED_BEFORE, "src/*"], "exclude_authors": SAVED_BEFORE}
    store.save(NEW, ChannelEdits(values=values, by=HUMAN, at=NOW))
    view = subs.home.subscriptions.view(NEW)
    assert view is not None and view.config.paths == (*SAVED_BEFORE, "src/*")  # the channel keeps them
    _digest_is_posted_and_the_server_answers(subs)


def _digest_is_posted_and_the_server_answers(subs: SlackHarness) -> None:
    told = run(subs, "digest")  # lists the PRs and runs both filters over every changed file
    assert "2026-08-06 is posted" in told
    health = requests.get(subs.events_url.replace("/slack/events", "/healthz"), timeout=5)
    assert health.status_code == 200
    (lead,) = wait_for(lambda: subs.slack.messages(NEW))
    assert "3 merged" in str(lead["text"])  # src/* still keeps all three; the hostile ones match nothing
