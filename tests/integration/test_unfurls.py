"""Pasted PR links unfurled with their card, through the real app with `[slack] unfurl = true`:
only the channel's own repositories, never a private one outside its channel (signed
link_shared events, fake Slack, real Redis)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack_agent import link_shared

from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import (
    CONFIG,
    DIGEST_CHANNEL,
    HUMAN,
    OTHER_CHANNEL,
    OTHER_REPO,
    SlackHarness,
    add_secret_pr,
    serve_harness,
    wait_for,
)

PR_URL = f"https://github.com/{REPO}/pull/1001"
SECRET_URL = f"https://github.com/{OTHER_REPO}/pull/7"


@pytest.fixture
def unfurling(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    with serve_harness(github, model, redis_url, tmp_path, config_text=CONFIG + "\n[slack]\nunfurl = true\n") as served:
        yield served


def card(request: dict[str, Any]) -> dict[str, Any]:
    text = request["messages"][-1]["content"]
    headline = "Keys rotate daily" if "keys/rotate.py" in text else "Cuts each scheduler step by 12%"
    return {"headline": headline, "verdict": "read", "minutes": 9, "why": [], "caveats": [], "watch": []}


def prs(harness: SlackHarness) -> None:
    harness.github.add_pr(
        REPO,
        1001,
        title="[Perf] Faster scheduler step",
        body="Scheduler steps take 12% less time.",
        merged_at=day(3),
        files=[{"path": "vllm/core/scheduler.py", "additions": 80, "deletions": 5}],
    )
    add_secret_pr(harness)
    harness.model.responder = card


def paste(harness: SlackHarness, channel: str, *urls: str, **where: Any) -> str:
    ts = harness.slack.add_message(channel, "have a look: " + " ".join(urls))
    assert harness.event(link_shared(HUMAN, channel, ts, list(urls), **where)).status_code == 200
    return ts


def shown(call: dict[str, Any]) -> str:
    return json.dumps(call["unfurls"])


def test_a_followed_public_pr_unfurls_at_once_then_with_the_models_card(unfurling: SlackHarness) -> None:
    prs(unfurling)
    ts = paste(unfurling, DIGEST_CHANNEL, PR_URL)
    first, second = wait_for(lambda: (calls := unfurling.slack.calls("chat.unfurl")) and len(calls) == 2 and calls)
    assert (first["channel"], first["ts"]) == (second["channel"], second["ts"]) == (DIGEST_CHANNEL, ts)
    assert "no model" in shown(first) and "Cuts each" not in shown(first)
    assert "Cuts each scheduler step by 12%" in shown(second) and "Read carefully (~9 min)" in shown(second)
    assert "Coverage" in shown(second)
    unfurled = unfurling.slack.unfurls[(DIGEST_CHANNEL, ts)]
    assert list(unfurled) == [PR_URL] and "Cuts each scheduler step by 12%" in json.dumps(unfurled)
    assert unfurling.slack.rejections == [] and unfurling.slack.warnings == []


def test_a_cached_card_unfurls_once_without_asking_github_again(unfurling: SlackHarness) -> None:
    prs(unfurling)
    paste(unfurling, DIGEST_CHANNEL, PR_URL)
    wait_for(lambda: len(unfurling.slack.calls("chat.unfurl")) == 2)
    unfurling.settle()
    github_before = len(unfurling.github.requests)
    model_before = unfurling.model.calls
    ts = paste(unfurling, DIGEST_CHANNEL, f"{PR_URL}/files", unfurl_id="Uxx-1", source="conversations_history")
    unfurling.settle()
    third = unfurling.slack.calls("chat.unfurl")[2:]
    assert len(third) == 1 and third[0]["unfurl_id"] == "Uxx-1" and "channel" not in third[0]
    assert "Cuts each scheduler step by 12%" in shown(third[0])
    assert len(unfurling.github.requests) == github_before and unfurling.model.calls == model_before
    assert ts


def test_other_repositories_and_private_ones_outside_their_channel_are_not_unfurled(
    unfurling: SlackHarness,
) -> None:
    prs(unfurling)
    paste(unfurling, DIGEST_CHANNEL, SECRET_URL, "https://github.com/someone/else/pull/3")
    paste(unfurling, "C0RANDOM01", PR_URL, SECRET_URL)  # a channel that follows nothing
    paste(unfurling, "COMPOSER", PR_URL, unfurl_id="Uxx-2", source="composer")
    unfurling.settle()
    assert unfurling.slack.calls("chat.unfurl") == []
    assert unfurling.model.calls == 0


def test_a_private_pr_in_its_channel_shared_with_another_organisation_is_not_unfurled(
    unfurling: SlackHarness,
) -> None:
    prs(unfurling)
    unfurling.slack.channel_info[OTHER_CHANNEL] = {"is_ext_shared": True, "is_shared": True}
    paste(unfurling, OTHER_CHANNEL, SECRET_URL)
    unfurling.settle()
    assert unfurling.slack.calls("chat.unfurl") == []


def test_a_private_pr_unfurls_in_the_channel_configured_for_it(unfurling: SlackHarness) -> None:
    prs(unfurling)
    ts = paste(unfurling, OTHER_CHANNEL, SECRET_URL)
    wait_for(lambda: "Keys rotate daily" in json.dumps(unfurling.slack.unfurls.get((OTHER_CHANNEL, ts), {})))


def test_without_unfurl_in_the_config_nothing_is_unfurled(harness: SlackHarness) -> None:
    prs(harness)
    paste(harness, DIGEST_CHANNEL, PR_URL)
    harness.settle()
    assert harness.slack.calls("chat.unfurl") == []


def test_a_retried_delivery_is_not_unfurled_again(unfurling: SlackHarness) -> None:
    prs(unfurling)
    ts = unfurling.slack.add_message(DIGEST_CHANNEL, f"see {PR_URL}")
    event = link_shared(HUMAN, DIGEST_CHANNEL, ts, [PR_URL])
    unfurling.event(event, event_id="EvLINK0001")
    unfurling.settle()
    unfurling.event(event, event_id="EvLINK0001", retry=1)
    unfurling.settle()
    assert len(unfurling.slack.calls("chat.unfurl")) == 2  # at once, then with the card: once each
