"""`/pr release` and its Share button through the real app: the release's lead and what to know
before upgrading to the asker alone, then posted once (lead and thread) by the asker's click, and
never about a repository the channel may not be shown."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.render.slack.release_blocks import SHARE_RELEASE_ACTION
from tests.integration.conftest import REPO
from tests.integration.slack_harness import DIGEST_CHANNEL, OTHER_REPO, SlackHarness, wait_for

START = datetime(2026, 9, 1, tzinfo=UTC)
SOMEONE_ELSE = "U0OTHER0001"
CARD = {"headline": "A change", "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}


def at(number: int) -> datetime:
    return START + timedelta(hours=number)


@pytest.fixture
def released(harness: SlackHarness) -> SlackHarness:
    for number in range(1, 61):
        title = "[Frontend] Remove the deprecated --disable-log-requests" if number == 42 else f"[Core] Change {number}"
        harness.github.add_pr(
            REPO,
            number,
            title=title,
            merged_at=at(number),
            files=[{"path": f"vllm/core/part_{number % 5}.py", "additions": number, "deletions": 1}],
        )
    harness.github.add_release(REPO, "v1", at(10) + timedelta(minutes=1))
    harness.github.add_release(REPO, "v2", at(60) + timedelta(minutes=1))
    harness.github.add_repo(OTHER_REPO, private=True)
    return harness


def ask(harness: SlackHarness, text: str, user: str | None = None) -> dict[str, Any]:
    hook, response = harness.command(text, **({"user": user} if user else {}))
    assert response.status_code == 200
    (payload,) = wait_for(lambda: harness.slack.responses[hook], timeout=20)
    return dict(payload)


def share_button(payload: dict[str, Any]) -> str:
    (value,) = [
        element["value"]
        for block in payload.get("blocks", [])
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"] == SHARE_RELEASE_ACTION
    ]
    return str(value)


def test_the_release_is_shown_to_the_asker_then_shared_once_with_its_thread(released: SlackHarness) -> None:
    payload = ask(released, "release v2")
    shown = json.dumps(payload)
    assert f"{REPO} v2 (since v1)" in shown and "50 merged" in shown
    assert "Before you upgrade" in shown and "#42" in shown
    assert payload.get("response_type") == "ephemeral"
    assert released.slack.messages(DIGEST_CHANNEL) == []  # nothing posted for everyone yet

    value = share_button(payload)
    _, body = released.action_form(value, action_id=SHARE_RELEASE_ACTION)
    for _ in range(3):  # a click, and the same signed payload replayed twice
        assert released.signed(body, "application/x-www-form-urlencoded").status_code == 200
    (lead,) = wait_for(lambda: released.slack.messages(DIGEST_CHANNEL), timeout=20)
    released.settle()
    # A second click of the same button: the ledger says the release is in the channel already.
    assert released.action(value, action_id=SHARE_RELEASE_ACTION)[1].status_code == 200
    released.settle()
    assert len(released.slack.messages(DIGEST_CHANNEL)) == 1
    thread = released.slack.thread(DIGEST_CHANNEL, lead["ts"])
    posted = json.dumps(thread)
    assert all(f"pull/{n}|" in posted for n in range(11, 61)) and "pull/10|" not in posted

    # A question in the release's thread is about the release's PRs, as in a digest's thread
    # (no answer written by the model here: the matching PRs are the answer).
    released.model.responder = lambda request: "" if "response_format" not in request else CARD
    before = len(thread)
    released.thread_reply(DIGEST_CHANNEL, lead["ts"], "which of these remove something?")
    replies = wait_for(lambda: released.slack.thread(DIGEST_CHANNEL, lead["ts"])[before + 1 :], timeout=20)
    released.settle()
    answer = json.dumps(released.slack.thread(DIGEST_CHANNEL, lead["ts"])[before + 1 :])
    assert replies and "#42" in answer and "Something went wrong" not in answer


def test_a_click_by_someone_else_shares_nothing(released: SlackHarness) -> None:
    value = share_button(ask(released, f"release {REPO} v2"))
    hook, response = released.action(value, user=SOMEONE_ELSE, action_id=SHARE_RELEASE_ACTION)
    assert response.status_code == 200
    (told,) = wait_for(lambda: released.slack.responses[hook], timeout=20)
    assert "only" in json.dumps(told).lower()
    released.settle()
    assert released.slack.messages(DIGEST_CHANNEL) == []


def test_a_repository_the_channel_may_not_be_shown_is_refused_and_github_not_asked(released: SlackHarness) -> None:
    released.github.reset_requests()
    payload = ask(released, f"release {OTHER_REPO} v1")
    # Refused as /pr refuses a PR of it (named back only as typed, in a channel not shared outside).
    assert "can't answer about" in payload["text"]
    assert not [r for r in released.github.requests if "/releases" in r.path or "/compare/" in r.path]


def test_an_unknown_tag_is_said_to_the_asker(released: SlackHarness) -> None:
    payload = ask(released, "release v9")
    assert "has no release" in json.dumps(payload) and "v9" in json.dumps(payload)
