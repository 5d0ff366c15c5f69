"""FakeSlack's chat.*Stream methods, driven by the real slack_sdk WebClient: Slack's rules
(slack-platform.md §7) as its errors."""

from __future__ import annotations

from typing import Any

from devkit.fakes.slack import FakeSlack
from slack_sdk import WebClient

from tests.integration import fake_slack_server
from tests.integration.fake_slack_server import error_of

server, slack, client = fake_slack_server.server, fake_slack_server.slack, fake_slack_server.client

CHANNEL = "C0DIGEST"
THREAD = "1700000000.000001"
RECIPIENT: dict[str, Any] = {"recipient_user_id": "U0HUMAN001", "recipient_team_id": "T0TEST"}


def test_a_stream_in_a_channel_needs_its_recipient(client: WebClient) -> None:
    assert error_of(lambda: client.chat_startStream(channel=CHANNEL, thread_ts=THREAD, markdown_text="Hi")) == (
        "missing_recipient_user_id"
    )
    started = client.chat_startStream(channel=CHANNEL, thread_ts=THREAD, markdown_text="Hi", **RECIPIENT)
    assert started["ts"]


def test_a_stream_grows_then_stops_and_takes_no_more(client: WebClient, slack: FakeSlack) -> None:
    ts = str(client.chat_startStream(channel=CHANNEL, thread_ts=THREAD, markdown_text="One. ", **RECIPIENT)["ts"])
    client.chat_appendStream(channel=CHANNEL, ts=ts, markdown_text="Two.")
    assert error_of(lambda: client.chat_update(channel=CHANNEL, ts=ts, text="edit")) == "streaming_state_conflict"
    client.chat_stopStream(channel=CHANNEL, ts=ts)
    assert slack.message(CHANNEL, ts)["text"] == "One. Two."
    assert error_of(lambda: client.chat_appendStream(channel=CHANNEL, ts=ts, markdown_text="Three.")) == (
        "message_not_in_streaming_state"
    )
    client.chat_update(channel=CHANNEL, ts=ts, text="settled")  # a stopped stream is a message like any other


def test_the_sdks_chat_stream_helper_is_understood(client: WebClient, slack: FakeSlack) -> None:
    streamer = client.chat_stream(channel=CHANNEL, thread_ts=THREAD, buffer_size=1, **RECIPIENT)
    streamer.append(markdown_text="Hello ")
    streamer.append(markdown_text="world.")
    streamer.stop()
    (message,) = slack.streamed()
    assert message["text"] == "Hello world." and message["stream"] == "stopped"


def test_pressing_stop_refuses_appends_with_stopped_by_user(client: WebClient, slack: FakeSlack) -> None:
    ts = str(client.chat_startStream(channel=CHANNEL, thread_ts=THREAD, markdown_text="One. ", **RECIPIENT)["ts"])
    slack.press_stop()
    assert error_of(lambda: client.chat_appendStream(channel=CHANNEL, ts=ts, markdown_text="Two.")) == (
        "stopped_by_user"
    )


def test_markdown_text_is_capped_at_12000_characters(client: WebClient) -> None:
    long = "x" * 12_001
    assert error_of(
        lambda: client.chat_startStream(channel=CHANNEL, thread_ts=THREAD, markdown_text=long, **RECIPIENT)
    ) == ("msg_too_long")
