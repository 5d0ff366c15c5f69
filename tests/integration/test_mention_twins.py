"""A reply in a digest's thread that @mentions the bot reaches it twice, as a `message` and as an
`app_mention`, each with its own event_id and in either order: it is one question, answered once."""

from __future__ import annotations

import pytest

from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import DIGEST_CHANNEL, HUMAN, SlackHarness, wait_for
from tests.integration.test_bad_slack_input import digest_thread_ts
from tests.integration.test_reliability import good_card


def digest_thread(harness: SlackHarness) -> str:
    harness.github.add_pr(
        REPO,
        1001,
        title="Faster scheduler step",
        merged_at=day(3),
        files=[{"path": "vllm/core/scheduler.py", "additions": 40, "deletions": 3}],
    )
    harness.model.responder = good_card
    return digest_thread_ts(harness)


@pytest.mark.parametrize("first", ["message", "app_mention"])
def test_a_mention_in_a_digest_thread_and_its_message_twin_are_answered_once(harness: SlackHarness, first: str) -> None:
    thread_ts = digest_thread(harness)
    posted = len(harness.slack.thread(DIGEST_CHANNEL, thread_ts))
    text = "<@UBOT> what does #1001 change?"
    ts = harness.slack.add_message(DIGEST_CHANNEL, text, thread_ts=thread_ts)
    event = {"channel": DIGEST_CHANNEL, "user": HUMAN, "text": text, "ts": ts, "thread_ts": thread_ts}
    second = "app_mention" if first == "message" else "message"
    assert harness.event({**event, "type": first}, event_id="EvTwinA").status_code == 200
    assert harness.event({**event, "type": second}, event_id="EvTwinB").status_code == 200
    wait_for(
        lambda: any("An answer." in (m.get("text") or "") for m in harness.slack.thread(DIGEST_CHANNEL, thread_ts))
    )
    harness.settle()
    replies = [m for m in harness.slack.thread(DIGEST_CHANNEL, thread_ts)[posted:] if m.get("bot_id")]
    assert len(replies) == 1
    assert harness.model.chat_requests()[-1]["messages"][-1]["content"].endswith("what does #1001 change?")
    assert sum(1 for request in harness.model.chat_requests() if "response_format" not in request) == 1
