"""`/pr` and its Share button, served for real: keys that ignore how a repository is spelled,
answers only to Slack's own response_url, each payload handled once, Share only by the asker."""

from __future__ import annotations

import json
import logging
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.redis_server import RedisServer

from bot.models import PRRef, Window
from bot.render.slack.replies import say
from tests.integration.conftest import NOW, REPO, ServicesFactory, day, settings_for
from tests.integration.slack_harness import DIGEST_CHANNEL, HUMAN, SlackHarness, serve_harness, wait_for

FORM = "application/x-www-form-urlencoded"
SOMEONE_ELSE = "U0OTHER0001"
NUMBER = 1001
# GitHub's full_name is vllm-project/vllm; people type it as they like.
SPELLINGS = [
    "VLLM-Project/vLLM#1001",
    f"{REPO}#1001",
    "VLLM-PROJECT/VLLM#1001",
    "https://github.com/Vllm-Project/Vllm/pull/1001",
]


def card_answer(request: dict[str, Any]) -> dict[str, Any]:
    return {
        "headline": "Speeds up the scheduler",
        "verdict": "read",
        "minutes": 10,
        "why": ["A pattern"],
        "caveats": [],
        "watch": [],
    }


@pytest.fixture
def served(harness: SlackHarness) -> SlackHarness:
    harness.github.add_pr(
        REPO,
        NUMBER,
        title="[Perf] Faster scheduler",
        merged_at=day(2),
        files=[{"path": "vllm/core/scheduler.py", "additions": 40, "deletions": 3}],
    )
    harness.model.responder = card_answer
    return harness


def settle(harness: SlackHarness) -> None:
    """Wait until everything the app accepted has been done: the listeners (an ack reaches us
    before its listener has handed its work over), then that work. Neither pool takes more."""
    harness.parts.app.listener_runner.listener_executor.shutdown(wait=True)
    harness.parts.deps.work.shutdown(wait=True)


def ask_card(harness: SlackHarness, text: str = f"{REPO}#{NUMBER}") -> dict[str, Any]:
    hook, response = harness.command(text)
    assert response.status_code == 200
    (payload,) = wait_for(lambda: harness.slack.responses[hook], timeout=15)
    return dict(payload)


def share_value(payload: dict[str, Any]) -> str:
    """The value of the Share button in a /pr answer, as Slack sends it back on a click."""
    buttons = [
        element
        for block in payload["blocks"]
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"] == "share_card"
    ]
    assert len(buttons) == 1
    return str(buttons[0]["value"])


# -- item 5: one PR, however its repository is spelled -----------------------------------------


def test_one_pr_spelled_four_ways_is_read_once_and_summarized_once(served: SlackHarness) -> None:
    served.github.reset_requests()
    for text in SPELLINGS:
        payload = ask_card(served, text)
        blocks = json.dumps(payload["blocks"])
        assert "Speeds up the scheduler" in blocks
        assert f"{REPO}#{NUMBER}" in blocks  # GitHub's spelling, whatever was typed
        assert "VLLM" not in blocks and "Vllm" not in blocks
    assert served.model.calls == 1
    # The repository's visibility (for the channel's access rule), then the PR, its files and its
    # review comments, once: the other spellings find them in Redis.
    assert served.github.counts_by_kind() == {"repo": 1, "pull": 1, "files": 1, "comments": 1}


@pytest.mark.parametrize("now", [NOW, NOW + timedelta(days=10)], ids=["pulls list", "search"])
def test_a_digest_and_a_differently_spelled_pr_share_one_card(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, make_services: ServicesFactory, now: datetime
) -> None:
    # The config spells the repository its own way, /pr another: GitHub's name makes one key.
    github.add_repo("Acme/Gadgets")
    github.add_pr(
        "acme/gadgets",
        7,
        title="Faster gadgets",
        merged_at=day(2),
        files=[{"path": "gadgets/core.py", "additions": 9, "deletions": 1}],
    )
    model.responder = card_answer
    services = make_services(settings_for(github, model, redis_url), now=now)
    (item,) = services.digests.build(("ACME/gadgets",), Window(day(0), day(24))).items
    assert item.listing.repo == "Acme/Gadgets"
    github.reset_requests()
    snapshot = services.cards.snapshot_by_ref(PRRef("acme/GADGETS", 7))
    assert snapshot.listing.repo == "Acme/Gadgets"
    assert services.cards.card(snapshot, "en").card.headline == item.card.headline
    assert model.calls == 1
    assert github.requests == []


# -- item 6: the response_url is Slack's, or nothing is sent -------------------------------------


def test_a_response_url_on_another_port_or_host_gets_nothing(
    served: SlackHarness, caplog: pytest.LogCaptureFixture
) -> None:
    value = share_value(ask_card(served))
    with FakeSlack() as foreign:  # same host as the configured SLACK_API_URL, another port
        foreign_urls = [
            foreign.new_response_url(),
            foreign.url.replace("http://", "https://") + "/response/R0001",
            served.slack.url.replace("http://", "https://") + "/response/R0001",  # right port, wrong scheme
            f"http://localhost:{served.slack.port}/response/R0001",  # another name for the same host
        ]
        with caplog.at_level(logging.WARNING, logger="bot.slack.guards"):
            for url in foreign_urls:
                _, response = served.command(f"{REPO}#{NUMBER}", response_url=url)
                assert response.status_code == 200
                _, response = served.action(value, response_url=url)
                assert response.status_code == 200
        settle(served)
        assert foreign.requests == []
    refused = [record for record in caplog.records if "response_url is not Slack's" in record.getMessage()]
    assert len(refused) == 2 * len(foreign_urls)
    assert served.slack.messages(DIGEST_CHANNEL) == []  # a forged click shares nothing either
    assert served.model.calls == 1  # and a forged command costs nothing


# -- item 7: a payload is handled once ----------------------------------------------------------


def test_a_share_click_replayed_three_times_posts_once(served: SlackHarness) -> None:
    value = share_value(ask_card(served))
    hook, body = served.action_form(value)
    for _ in range(3):
        assert served.signed(body, FORM).status_code == 200
    settle(served)
    assert len(served.slack.messages(DIGEST_CHANNEL)) == 1
    assert len(served.slack.responses[hook]) == 1  # the ephemeral card deleted once


def test_a_slash_command_replayed_is_answered_once(served: SlackHarness) -> None:
    hook, body = served.command_form(f"{REPO}#{NUMBER}")
    acks = [served.signed(body, FORM) for _ in range(3)]
    assert [ack.status_code for ack in acks] == [200, 200, 200]
    assert "Looking into it" in acks[0].text
    settle(served)
    assert len(served.slack.responses[hook]) == 1
    assert served.model.calls == 1


def test_two_clicks_are_two_payloads(served: SlackHarness) -> None:
    # Two clicks carry two trigger_ids: each is handled (the second shares the card again).
    value = share_value(ask_card(served))
    served.action(value)
    served.action(value)
    settle(served)
    assert len(served.slack.messages(DIGEST_CHANNEL)) == 2


# -- item 10: only the asker's click shares --------------------------------------------------------


def test_share_by_someone_else_is_refused_and_posts_nothing(served: SlackHarness) -> None:
    value = share_value(ask_card(served))
    hook, response = served.action(value, user=SOMEONE_ELSE)
    assert response.status_code == 200
    (refusal,) = wait_for(lambda: served.slack.responses[hook])
    assert refusal["text"] == say("en", "share_not_yours")
    assert refusal.get("response_type", "ephemeral") == "ephemeral" and not refusal.get("replace_original")
    settle(served)
    assert served.slack.messages(DIGEST_CHANNEL) == []


def test_share_of_a_value_we_did_not_write_posts_nothing(served: SlackHarness) -> None:
    # A bare reference (what the button held before it named its asker) binds nobody.
    ask_card(served)
    for value in (f"{REPO}#{NUMBER}", json.dumps({"pr": f"{REPO}#{NUMBER}"}), "{", ""):
        served.action(value)
    settle(served)
    assert served.slack.messages(DIGEST_CHANNEL) == []


def test_share_by_the_asker_names_them_in_the_button(served: SlackHarness) -> None:
    value = share_value(ask_card(served))
    assert HUMAN in value and re.search(rf"{re.escape(REPO)}#{NUMBER}", value)
    hook, _ = served.action(value)
    wait_for(lambda: served.slack.messages(DIGEST_CHANNEL))
    assert wait_for(lambda: served.slack.responses[hook])[0].get("delete_original") is True


# -- Redis unreachable: replays cannot be told apart, so nothing is done twice -------------------


def test_without_redis_a_command_or_click_is_answered_with_try_again_and_nothing_else(
    github: FakeGitHub, model: FakeOpenAI, own_redis: RedisServer, tmp_path: Path
) -> None:
    with serve_harness(github, model, own_redis.url, tmp_path) as harness:
        github.add_pr(REPO, NUMBER, title="Faster", merged_at=day(2), files=[{"path": "a.py", "additions": 1}])
        model.responder = card_answer
        value = share_value(ask_card(harness))
        own_redis.stop()
        hook, response = harness.command(f"{REPO}#{NUMBER}")
        assert response.status_code == 200
        (payload,) = wait_for(lambda: harness.slack.responses[hook])
        assert payload["text"] == say("en", "try_later")
        share_hook, response = harness.action(value)
        assert response.status_code == 200
        (refusal,) = wait_for(lambda: harness.slack.responses[share_hook])
        assert refusal["text"] == say("en", "try_later")
        settle(harness)
        assert harness.slack.messages(DIGEST_CHANNEL) == []
        assert model.calls == 1
