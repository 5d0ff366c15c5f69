"""One person's Stop ends their own answer, not everyone's in the thread (issue 23, item 5).

Two people ask in one digest thread; the model holds both answers part-way (the fake's
`hold_after`) until the second person's Stop has been handled, so the answers overlap for sure.
Through the real app, signed events as Slack sends them, the real openai client, a real Redis."""

from __future__ import annotations

from typing import Any

import pytest
from devkit.fakes.slack import FakeSlack
from devkit.fakes.slack_agent import agent_session_stopped
from slack_sdk import WebClient

from bot.render.slack.replies import stopped_message
from tests.integration import fake_slack_server
from tests.integration.fake_slack_server import error_of
from tests.integration.slack_harness import DIGEST_CHANNEL, HUMAN, SlackHarness, wait_for
from tests.integration.test_streamed_answers import NUMBER, Since, setup_thread

server, slack, client = fake_slack_server.server, fake_slack_server.slack, fake_slack_server.client

OTHER = "U0OTHER002"
CHANNEL, THREAD = "C0DIGEST", "1700000000.000001"  # for the fake's own test
SCRIPT = [f"Sentence {word} of the answer. " for word in "abcdefghijklmnop"]
WHOLE = "".join(SCRIPT).strip()


@pytest.fixture
def thread(harness: SlackHarness) -> tuple[str, Since]:
    thread_ts, since = setup_thread(harness)
    harness.model.stream_script = SCRIPT
    harness.model.hold_after = 3  # the first sentence is streamed, then both answers wait
    # Paced so that the rest outlasts STOP_POLL_SECONDS: each answer reads the marks again.
    harness.model.chunk_delay = 0.1
    return thread_ts, since


def ask_as(harness: SlackHarness, thread_ts: str, user: str) -> str:
    ts, response = harness.thread_reply(DIGEST_CHANNEL, thread_ts, f"what does #{NUMBER} change?", user=user)
    assert response.status_code == 200
    return ts


def press_stop(harness: SlackHarness, thread_ts: str, user: str, streams: list[str]) -> None:
    """`user` presses Stop; once the app has handled it, the model goes on with both answers."""
    assert harness.event(agent_session_stopped(user, DIGEST_CHANNEL, thread_ts, streams)).status_code == 200
    wait_for(harness.parts.listeners.idle)  # the Stop is marked (the answers run on the work pool)
    harness.model.go_on.set()
    harness.settle()


def streamed_to(harness: SlackHarness, user: str) -> dict[str, Any]:
    (message,) = [m for m in harness.slack.streamed() if m["recipient_user_id"] == user]
    return message


def test_a_second_askers_stop_ends_their_stream_and_the_first_answer_is_posted_whole(
    harness: SlackHarness, thread: tuple[str, Since]
) -> None:
    thread_ts, since = thread
    ask_as(harness, thread_ts, HUMAN)
    wait_for(lambda: len(since.calls("chat.startStream")) == 1)
    ask_as(harness, thread_ts, OTHER)
    wait_for(lambda: len(since.calls("chat.startStream")) == 2)
    # Slack ends the stream made for the person who pressed Stop, and lists it in the event.
    stopped = harness.slack.stop_in_thread(DIGEST_CHANNEL, thread_ts, recipient=OTHER)
    assert stopped == [streamed_to(harness, OTHER)["ts"]]
    press_stop(harness, thread_ts, OTHER, stopped)
    mine, theirs = streamed_to(harness, HUMAN), streamed_to(harness, OTHER)
    # The first person's answer ran to its end and was settled into the reply.
    assert mine["stream"] == "stopped" and harness.settled(mine)
    assert WHOLE in mine["text"] and f"#{NUMBER}" in mine["text"]
    # The second person's stream stays as Slack ended it, part-way, and is not made a reply.
    assert theirs["stream"] == "stopped_by_user" and not harness.settled(theirs)
    assert WHOLE not in theirs["text"]
    assert not since.calls("chat.postMessage")


def test_a_second_askers_stop_on_the_placeholder_path_leaves_the_first_answer(
    harness: SlackHarness, thread: tuple[str, Since]
) -> None:
    """Where Slack refuses streaming, nothing is listed in the event: the Stop is the asker's."""
    thread_ts, since = thread
    harness.slack.fail_next("chat.startStream", "not_allowed", times=2)
    ask_as(harness, thread_ts, HUMAN)
    wait_for(lambda: len(since.calls("chat.postMessage")) == 1)
    ask_as(harness, thread_ts, OTHER)
    wait_for(lambda: len(since.calls("chat.postMessage")) == 2)
    placeholders = [m["ts"] for m in harness.slack.thread(DIGEST_CHANNEL, thread_ts) if "Looking into it" in m["text"]]
    mine_ts, theirs_ts = placeholders  # oldest first: the first person's
    press_stop(harness, thread_ts, OTHER, [])
    updates = {call["ts"]: call["text"] for call in since.calls("chat.update")}
    assert WHOLE in updates[mine_ts]
    assert updates[theirs_ts] == stopped_message("en").text
    assert not harness.slack.streamed()


def test_a_stop_before_any_words_is_the_pressers_alone(harness: SlackHarness, thread: tuple[str, Since]) -> None:
    """Only the status shows for both answers when the second person presses Stop."""
    thread_ts, since = thread
    harness.model.hold_after = 0
    ask_as(harness, thread_ts, HUMAN)
    ask_as(harness, thread_ts, OTHER)
    wait_for(lambda: len(harness.model.streams) == 2)
    press_stop(harness, thread_ts, OTHER, [])
    (message,) = harness.slack.streamed()
    assert message["recipient_user_id"] == HUMAN and harness.settled(message)
    assert WHOLE in message["text"]
    assert [status["status"] for status in harness.slack.statuses][-1] == ""  # the stopped one's, cleared
    assert not since.calls("chat.postMessage")


def test_a_stream_slack_ended_is_stopped_whoever_pressed_stop(harness: SlackHarness, thread: tuple[str, Since]) -> None:
    """Slack lists the streams it ended; each is stopped, even one streamed to someone else."""
    thread_ts, since = thread
    ask_as(harness, thread_ts, HUMAN)
    wait_for(lambda: since.calls("chat.startStream"))
    stopped = harness.slack.stop_in_thread(DIGEST_CHANNEL, thread_ts)
    press_stop(harness, thread_ts, OTHER, stopped)
    (message,) = harness.slack.streamed()
    assert message["ts"] in stopped and message["stream"] == "stopped_by_user"
    (log,) = harness.model.streams
    assert log.settled.wait(10) and log.cut  # the model call was closed once the mark was read
    # Nothing more shown: no reply, and the tidying stopStream (refused: Slack ended it) has no text.
    assert not since.calls("chat.update") and not any(c.get("markdown_text") for c in since.calls("chat.stopStream"))


def test_the_fake_ends_only_the_pressers_streams_when_told_whose(client: WebClient, slack: FakeSlack) -> None:
    def start(user: str) -> str:
        return str(
            client.chat_startStream(
                channel=CHANNEL, thread_ts=THREAD, markdown_text="One. ", recipient_user_id=user, recipient_team_id="T0"
            )["ts"]
        )

    mine, theirs = start(HUMAN), start(OTHER)
    assert slack.stop_in_thread(CHANNEL, THREAD, recipient=OTHER) == [theirs]
    assert error_of(lambda: client.chat_appendStream(channel=CHANNEL, ts=theirs, markdown_text="Two.")) == (
        "stopped_by_user"
    )
    client.chat_appendStream(channel=CHANNEL, ts=mine, markdown_text="Two.")
    assert slack.stop_in_thread(CHANNEL, THREAD) == [mine]  # without a recipient: every stream there
