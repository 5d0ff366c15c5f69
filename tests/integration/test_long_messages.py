"""Messages built to stall the process: Python's `re` holds the GIL while it backtracks, so one
slow parse froze every thread of the server (a 40,000-character mention for 9 s, `"why " * 10000`
for 22 s, a 10 MB mention for ever). While such a message is handled, a signed `/pr` and
`/healthz` still answer within Slack's 3 seconds, and the message gets its answer — or, past
Slack's own limit of 40,000 characters, a note to the asker alone that it is too long."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest
import requests

from bot.core.refs import MAX_MESSAGE_CHARS
from bot.render.slack.replies import say
from tests.integration.conftest import REPO
from tests.integration.slack_harness import DIGEST_CHANNEL, HUMAN, SlackHarness, wait_for
from tests.integration.test_bad_slack_input import card_answer, post_digest

# Slack gives up on an acknowledgement after 3 seconds (and shows the user an error).
SLACK_ACK_SECONDS = 3.0
TOO_LONG = say("en", "too_long", limit=f"{MAX_MESSAGE_CHARS:,}")
MENTION = "<@UBOT> "


def health_url(harness: SlackHarness) -> str:
    return harness.events_url.replace("/slack/events", "/healthz")


def probe_until(harness: SlackHarness, handled: Callable[[], bool]) -> list[float]:
    """A signed /pr and a GET /healthz, one after the other, until the message is handled; how
    long each took. They start while the message is being parsed, as Slack's requests would."""
    waits: list[float] = []
    hooks: list[str] = []

    def command() -> requests.Response:
        hook, response = harness.command(f"{REPO}#1001")
        hooks.append(hook)
        return response

    probes: list[Callable[[], requests.Response]] = [
        command,
        lambda: requests.get(health_url(harness), timeout=SLACK_ACK_SECONDS * 2),
    ]
    deadline = time.monotonic() + 60
    while not waits or not handled():
        assert time.monotonic() < deadline, "the message was never answered"
        for probe in probes:
            started = time.monotonic()
            response = probe()
            waits.append(time.monotonic() - started)
            assert response.status_code == 200
    wait_for(lambda: all(harness.slack.responses[hook] for hook in hooks))  # every /pr answered too
    return waits


def answered(harness: SlackHarness, before: int) -> Callable[[], bool]:
    """True once the placeholder of one more answer has been replaced by the answer."""
    return lambda: len(harness.slack.calls("chat.update")) > before


def told_too_long(harness: SlackHarness) -> Callable[[], bool]:
    return lambda: any(message["text"] == TOO_LONG for message in harness.slack.ephemeral)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("x" * (MAX_MESSAGE_CHARS - len(MENTION)), id="mention-of-40000-x"),
        pytest.param("<@U|" * ((MAX_MESSAGE_CHARS - len(MENTION)) // 4), id="mention-of-unclosed-mentions"),
    ],
)
def test_a_mention_at_slacks_limit_is_answered_while_acks_stay_in_time(harness: SlackHarness, text: str) -> None:
    harness.model.responder = card_answer
    before = len(harness.slack.calls("chat.update"))
    _, response = harness.mention(DIGEST_CHANNEL, text)
    assert response.status_code == 200
    waits = probe_until(harness, answered(harness, before))
    assert max(waits) < SLACK_ACK_SECONDS
    assert harness.slack.ephemeral == []  # parsed and answered, not refused


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("why " * (MAX_MESSAGE_CHARS // 4), id="why-10000-times"),
        pytest.param("<@U|" * (MAX_MESSAGE_CHARS // 4), id="unclosed-mention-10000-times"),
    ],
)
def test_a_thread_reply_at_slacks_limit_is_answered_while_acks_stay_in_time(harness: SlackHarness, text: str) -> None:
    harness.model.responder = card_answer
    thread_ts = post_digest(harness)
    before = len(harness.slack.calls("chat.update"))
    assert len(text) <= MAX_MESSAGE_CHARS
    _, response = harness.thread_reply(DIGEST_CHANNEL, thread_ts, text)
    assert response.status_code == 200
    waits = probe_until(harness, answered(harness, before))
    assert max(waits) < SLACK_ACK_SECONDS
    assert harness.slack.ephemeral == []


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("x" * MAX_MESSAGE_CHARS, id="one-character-over"),  # with the mention: 40,008
        pytest.param("x" * 10_000_000, id="10-MB"),
    ],
)
def test_a_mention_over_slacks_limit_is_refused_to_the_asker_unread(harness: SlackHarness, text: str) -> None:
    posts = len(harness.slack.calls("chat.postMessage"))
    _, response = harness.mention(DIGEST_CHANNEL, text)
    if response.status_code == 413:
        return  # refused at the door, unread (the server caps request bodies)
    assert response.status_code == 200
    waits = probe_until(harness, told_too_long(harness))
    assert max(waits) < SLACK_ACK_SECONDS
    (refusal,) = harness.slack.ephemeral
    assert refusal["user"] == HUMAN and refusal["channel"] == DIGEST_CHANNEL
    assert len(harness.slack.calls("chat.postMessage")) == posts  # no placeholder, no answer in public
    assert harness.model.calls == 0


def test_a_thread_reply_over_slacks_limit_is_refused_in_the_thread_to_the_asker(harness: SlackHarness) -> None:
    harness.model.responder = card_answer
    thread_ts = post_digest(harness)
    model_calls = harness.model.calls
    _, response = harness.thread_reply(DIGEST_CHANNEL, thread_ts, "why " * 10_001)
    assert response.status_code == 200
    waits = probe_until(harness, told_too_long(harness))
    assert max(waits) < SLACK_ACK_SECONDS
    (refusal,) = harness.slack.ephemeral
    assert (refusal["user"], refusal["thread_ts"]) == (HUMAN, thread_ts)
    assert harness.model.calls == model_calls


def test_a_slash_command_over_slacks_limit_is_refused_in_the_ack(harness: SlackHarness) -> None:
    hook, response = harness.command("a/b#1 " + "x" * MAX_MESSAGE_CHARS)
    assert response.status_code == 200
    assert TOO_LONG in response.text
    assert harness.slack.responses[hook] == []


def test_the_attacks_together_leave_acks_in_time(harness: SlackHarness) -> None:
    """Several at once, as an attacker would send them: the acks still come in time."""
    harness.model.responder = card_answer
    thread_ts = post_digest(harness)
    before = len(harness.slack.calls("chat.update"))
    senders = [
        threading.Thread(target=harness.mention, args=(DIGEST_CHANNEL, "x" * (MAX_MESSAGE_CHARS - len(MENTION)))),
        threading.Thread(target=harness.thread_reply, args=(DIGEST_CHANNEL, thread_ts, "why " * 10_000)),
        threading.Thread(target=harness.thread_reply, args=(DIGEST_CHANNEL, thread_ts, "<@U|" * 10_000)),
    ]
    for sender in senders:
        sender.start()
    waits = probe_until(harness, lambda: len(harness.slack.calls("chat.update")) >= before + len(senders))
    for sender in senders:
        sender.join()
    assert max(waits) < SLACK_ACK_SECONDS
