"""Feedback that tunes tomorrow (issue 13), through the real Bolt app on loopback: members click
Useful / Not for us under the cards of three days of the vLLM data set; day four's digest puts
the attention cards first and the CI cards last in their verdict groups, and says why."""

from __future__ import annotations

import json
import re
import time
import urllib.parse
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from devkit.fakes import dataset

from bot.errors import StoreError
from bot.models import DigestOptions, Filters, Vote, Window
from bot.store.feedback import FeedbackStore
from tests.integration.conftest import REPO
from tests.integration.slack_harness import DIGEST_CHANNEL, SlackHarness, wait_for
from tests.shared_data import shared_rows

DAYS = ("2026-08-04", "2026-08-05", "2026-08-06", "2026-08-07")
MEMBERS = ("U0MEMBER01", "U0MEMBER02")
_EMOJI_VERDICT = {":books:": "read", ":eyes:": "skim", ":fast_forward:": "skip"}


def is_attention(row: dict[str, Any]) -> bool:
    return any(change["path"].startswith("vllm/v1/attention/") for change in row["files"])


def is_ci(row: dict[str, Any]) -> bool:
    return "[CI]" in row["title"] or any(change["path"].startswith(".buildkite/") for change in row["files"])


def post_day(harness: SlackHarness, day: str) -> str:
    start = datetime.fromisoformat(day).replace(tzinfo=UTC)
    result = harness.parts.digests.run(
        DIGEST_CHANNEL,
        day,
        Window(start, start + timedelta(days=1)),
        (REPO,),
        options=DigestOptions("en", Filters(), "note"),
    )
    assert result is not None and result.thread_ts
    return result.thread_ts


def cards(harness: SlackHarness, thread_ts: str) -> list[tuple[int, str, dict[str, Any], dict[str, Any]]]:
    """(PR number, verdict, feedback element, message) of every card in the thread, in order."""
    found = []
    for message in harness.slack.thread(DIGEST_CHANNEL, thread_ts):
        verdict = ""
        for block in message.get("blocks", []):
            if block["type"] == "section":
                verdict = next(v for emoji, v in _EMOJI_VERDICT.items() if block["text"]["text"].startswith(emoji))
            if block["type"] == "context_actions":
                element = block["elements"][0]
                number = int(re.search(r"#(\d+)$", block["block_id"])[1])  # type: ignore[index]
                found.append((number, verdict, element, message))
    return found


def click(
    harness: SlackHarness, user: str, element: dict[str, Any], message: dict[str, Any], up: bool, value: str = ""
) -> str:
    """A click on a feedback button as Slack sends it (block_actions, form field `payload`); the
    id of its response_url."""
    button = element["positive_button" if up else "negative_button"]
    response_url = harness.slack.new_response_url()
    payload = {
        "type": "block_actions",
        "team": {"id": "T0TEST"},
        "user": {"id": user},
        "channel": {"id": DIGEST_CHANNEL},
        "container": {
            "type": "message",
            "channel_id": DIGEST_CHANNEL,
            "message_ts": message["ts"],
            "thread_ts": message["thread_ts"],
        },
        "message": {"ts": message["ts"], "thread_ts": message["thread_ts"], "blocks": message["blocks"]},
        "response_url": response_url,
        "trigger_id": harness.trigger_id(),
        "actions": [
            {
                "action_id": element["action_id"],
                "block_id": "b",
                "type": "feedback_buttons",
                "value": value or button["value"],
                "text": button["text"],
                "action_ts": f"{time.time():.6f}",
            }
        ],
    }
    body = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
    assert harness.signed(body, "application/x-www-form-urlencoded").status_code == 200
    return response_url.rsplit("/", 1)[-1]


def test_three_days_of_clicks_put_attention_cards_first_and_ci_cards_last_and_say_why(harness: SlackHarness) -> None:
    rows = {row["number"]: row for row in shared_rows() if row["merged_at"][:10] in DAYS}
    dataset.populate(harness.github, rows.values(), REPO)
    clicked: set[int] = set()
    for day in DAYS[:3]:
        thread_ts = post_day(harness, day)
        for number, _, element, message in cards(harness, thread_ts):
            row = rows[number]
            for user in MEMBERS:
                if is_attention(row):
                    click(harness, user, element, message, up=True)
                    clicked.add(number)
                if is_ci(row):
                    click(harness, user, element, message, up=False)
                    clicked.add(number)
        harness.settle()
    # One vote per person per PR: a second click (a PR both of attention and CI) replaced the first.
    assert len(harness.feedback.votes(DIGEST_CHANNEL)) == len(clicked) * len(MEMBERS) > 0

    thread_ts = post_day(harness, DAYS[3])
    shown = cards(harness, thread_ts)
    assert harness.slack.rejections == []
    groups: dict[str, list[int]] = {}
    for number, verdict, _, _ in shown:
        groups.setdefault(verdict, []).append(number)
    attention_seen = 0
    for numbers in groups.values():
        kinds = [
            (is_attention(rows[n]) and not is_ci(rows[n]), is_ci(rows[n]) and not is_attention(rows[n]))
            for n in numbers
        ]
        positions_up = [i for i, (up, _) in enumerate(kinds) if up]
        positions_down = [i for i, (_, down) in enumerate(kinds) if down]
        rest = [i for i, (up, down) in enumerate(kinds) if not up and not down]
        attention_seen += len(positions_up)
        if rest:
            assert all(i < min(rest) for i in positions_up), numbers
            assert all(i > max(rest) for i in positions_down), numbers
        if positions_up and positions_down:
            assert max(positions_up) < min(positions_down)
    assert attention_seen > 0

    attention = next(n for n, _, _, _ in shown if is_attention(rows[n]) and not is_ci(rows[n]))
    harness.thread_reply(DIGEST_CHANNEL, thread_ts, f"why is #{attention} here?")
    answer = wait_for(
        lambda: next(
            (
                m
                for m in harness.slack.thread(DIGEST_CHANNEL, thread_ts)
                if m.get("bot_id") and "ranked up" in (m.get("text") or "")
            ),
            None,
        ),
        timeout=20,
    )
    assert re.search(r"ranked up: this channel marked \d+ `vllm/v1/attention/` PRs useful", answer["text"])


def test_feedback_reset_clears_the_channel_for_its_members_only_in_its_language(harness: SlackHarness) -> None:
    harness.slack.members = {DIGEST_CHANNEL: [MEMBERS[0]]}
    store = harness.feedback
    store.vote(DIGEST_CHANNEL, MEMBERS[0], Vote(f"{REPO}#1", True, ("vllm/v1/attention/",)))
    _, refused = harness.command("feedback clear", DIGEST_CHANNEL, user=MEMBERS[0])
    assert "Usage:" in refused.text  # refused in the acknowledgement, before any work

    hook, _ = harness.command("feedback reset", DIGEST_CHANNEL, user="U0STRANGE1")
    wait_for(lambda: harness.slack.responses.get(hook))
    harness.settle()
    assert "Only members of this channel may clear its feedback" in harness.slack.responses[hook][-1]["text"]
    assert len(store.votes(DIGEST_CHANNEL)) == 1

    hook, _ = harness.command("feedback reset", DIGEST_CHANNEL, user=MEMBERS[0])
    wait_for(lambda: harness.slack.responses.get(hook))
    harness.settle()
    assert "feedback is cleared" in harness.slack.responses[hook][-1]["text"]
    assert store.votes(DIGEST_CHANNEL) == []


def test_a_click_that_cannot_be_kept_is_told_and_one_for_another_repository_counts_for_nothing(
    harness: SlackHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = [row for row in shared_rows() if row["merged_at"][:10] == DAYS[0]]
    dataset.populate(harness.github, rows, REPO)
    number, _, element, message = cards(harness, post_day(harness, DAYS[0]))[0]
    store = harness.feedback
    assert store is not None

    # A value naming a repository this channel does not follow (forged, or from a card since
    # unfollowed): nothing is kept and nothing is said.
    forged = element["positive_button"]["value"].replace(REPO, "someone/else")
    assert forged != element["positive_button"]["value"]
    hook = click(harness, MEMBERS[0], element, message, up=True, value=forged)
    harness.settle()
    assert store.votes(DIGEST_CHANNEL) == [] and harness.slack.responses[hook] == []

    # Redis refusing the write: the person is told, only them, and nothing is counted.
    def refuse(*args: object) -> None:
        raise StoreError("error.redis_unreachable", error="ConnectionError")

    monkeypatch.setattr(FeedbackStore, "vote", refuse)
    hook = click(harness, MEMBERS[0], element, message, up=True)
    said = wait_for(lambda: harness.slack.responses[hook])
    assert said[-1]["response_type"] == "ephemeral"
    assert "could not be kept just now" in said[-1]["text"]
    monkeypatch.undo()

    # The same click again, Redis back: kept once.
    hook = click(harness, MEMBERS[0], element, message, up=True)
    wait_for(lambda: store.votes(DIGEST_CHANNEL))
    assert [vote.pr for vote in store.votes(DIGEST_CHANNEL)] == [f"{REPO}#{number}"]
