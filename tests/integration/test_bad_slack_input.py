"""Whatever reaches POST /slack/events: the served app answers in time with a status that says
what happened (200 with a message, 400 for a body Slack would never send, 401 for a bad
signature), never a 500 or a traceback, and a request it refuses touches nothing."""

from __future__ import annotations

import json
import logging
import time
import urllib.parse
from typing import Any

import pytest
import redis
import requests
from devkit import slack_signing
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.models import DigestOptions, Filters, Window
from bot.render.slack.replies import say
from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import (
    DIGEST_CHANNEL,
    OTHER_CHANNEL,
    SECRET,
    SlackHarness,
    wait_for,
)

RANDOM_CHANNEL = "C0RANDOM01"
THINKING = say("en", "thinking")
JSON = "application/json"
FORM = "application/x-www-form-urlencoded"

# Each example is an HTTP round trip (often with GitHub and model calls behind it): a few dozen per
# property. A test's examples share one served app on purpose, as production's requests do, so
# the properties are written as inner functions over the test's harness.
SLACK_EXAMPLES = settings(max_examples=30, deadline=None)

FRAGMENTS = [
    REPO, f"{REPO}#1", "acme/widgets#5", "#1", "1", "help", "?", "<!channel>", "<!here>", "<@U123>", "<#C1|x>",
    "<https://evil.test|click>", "https://github.com/vllm-project/vllm/pull/1", "&amp;", "payload", "payload=x",
    "command=", "&", "=", "%", "+", " ", "\n", "\t", "\x00", "\u2028", "\u202e", "中文", "为什么", "🚀", "`", "*",
    "which",
]  # fmt: skip
TYPED = st.text(max_size=200) | st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=6), max_size=20).map("".join)


def card_answer(request: dict[str, Any]) -> dict[str, Any] | str:
    if "response_format" not in request:
        return "An answer about `vllm/core.py`."
    return {"headline": "Speeds things up", "verdict": "read", "minutes": 5, "why": ["A"], "caveats": [], "watch": []}


def errors_logged(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [f"{r.name}: {r.getMessage()}" for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]


def ack_text(response: requests.Response) -> str:
    """An ack's text: Bolt answers `ack(text=…)` in plain text, and `ack(text=…, blocks=…)` in JSON."""
    if response.headers["content-type"].startswith(JSON):
        return str(response.json()["text"])
    return response.text


# -- what people type ------------------------------------------------------------------------------


def test_any_slash_command_text_is_answered_in_time(harness: SlackHarness, caplog: pytest.LogCaptureFixture) -> None:
    # The help is the one long answer of our own words (an empty command gets it too).
    helps = {ack_text(harness.command("help", channel=channel)[1]) for channel in (DIGEST_CHANNEL, OTHER_CHANNEL)}

    @SLACK_EXAMPLES
    @given(text=TYPED, channel=st.sampled_from([DIGEST_CHANNEL, OTHER_CHANNEL, RANDOM_CHANNEL]))
    @example(text="what is the payload?", channel=DIGEST_CHANNEL)  # Bolt read such a form as {}: no answer
    @example(text="a/b#" + "1" * 5000, channel=DIGEST_CHANNEL)  # int() of 5,000 digits raised in the ack
    @example(text="x\n" * 3000, channel=DIGEST_CHANNEL)
    @example(text="12", channel=DIGEST_CHANNEL)  # the channel's repository: the card comes by response_url
    def command(text: str, channel: str) -> None:
        caplog.clear()
        hook, response = harness.command(text, channel=channel)
        assert response.status_code == 200  # Bolt answers 404 to a command not acked in 3 s
        ack = ack_text(response)
        assert ack and "<!" not in ack and "<@" not in ack
        assert len(ack) < 1000 or ack in helps  # the command's text is quoted, not pasted back whole
        if ack == THINKING:
            (payload,) = wait_for(lambda: harness.slack.responses[hook])
            assert payload["text"] and payload["response_type"] == "ephemeral"
        else:
            assert harness.slack.responses[hook] == []
        assert errors_logged(caplog) == []

    command()


def post_digest(harness: SlackHarness) -> str:
    for number in (1001, 1002):
        harness.github.add_pr(
            REPO,
            number,
            title=f"Faster path {number}",
            merged_at=day(number - 1000),
            files=[{"path": "vllm/core.py", "additions": 40, "deletions": 2}],
        )
    return digest_thread_ts(harness)


def digest_thread_ts(harness: SlackHarness) -> str:
    """The day's digest of REPO (the PRs the test added) posted in DIGEST_CHANNEL: its thread's ts."""
    result = harness.parts.digests.run(
        DIGEST_CHANNEL,
        "2026-08-05",
        Window(day(0), day(24)),
        (REPO,),
        options=DigestOptions("en", Filters(), "note"),
    )
    assert result is not None and result.thread_ts
    return result.thread_ts


def replies(harness: SlackHarness, channel: str, thread_ts: str) -> tuple[int, bool]:
    """How many bot replies and ephemerals there are in the thread, and whether one still says "Looking into it"."""
    bot = [message for message in harness.slack.thread(channel, thread_ts) if message.get("bot_id")]
    ephemeral = [message for message in harness.slack.ephemeral if message["thread_ts"] == thread_ts]
    return len(bot) + len(ephemeral), any(message.get("text") == THINKING for message in bot)


def one_reply(harness: SlackHarness, channel: str, thread_ts: str, before: int) -> None:
    """Wait until the reply is there and final, then check there is exactly one."""

    def settled() -> bool:
        count, pending = replies(harness, channel, thread_ts)
        return count > before and not pending

    wait_for(settled)
    harness.settle()  # a second reply, if there were one, has been posted by now
    assert replies(harness, channel, thread_ts)[0] == before + 1


def test_any_reply_in_a_digest_thread_gets_one_answer(harness: SlackHarness, caplog: pytest.LogCaptureFixture) -> None:
    harness.model.responder = card_answer
    thread_ts = post_digest(harness)

    @SLACK_EXAMPLES
    @given(text=TYPED)
    @example(text="a/b#" + "1" * 5000)
    @example(text="这个vllm-project/vllm#1001怎么样")  # the repository starts after the Chinese
    def reply(text: str) -> None:
        caplog.clear()
        before = replies(harness, DIGEST_CHANNEL, thread_ts)[0]
        _, response = harness.thread_reply(DIGEST_CHANNEL, thread_ts, text)
        assert response.status_code == 200  # Bolt answers 404 to a command not acked in 3 s
        one_reply(harness, DIGEST_CHANNEL, thread_ts, before)
        assert errors_logged(caplog) == []

    reply()


def test_any_mention_is_acknowledged_and_answered_once(harness: SlackHarness, caplog: pytest.LogCaptureFixture) -> None:
    harness.model.responder = card_answer

    @SLACK_EXAMPLES
    @given(text=TYPED)
    def mention(text: str) -> None:
        caplog.clear()
        ts, response = harness.mention(RANDOM_CHANNEL, text)
        assert response.status_code == 200  # Bolt answers 404 to a command not acked in 3 s
        one_reply(harness, RANDOM_CHANNEL, ts, 0)
        assert errors_logged(caplog) == []

    mention()


# -- bodies Slack would never send -----------------------------------------------------------------


def form(**fields: str) -> bytes:
    return urllib.parse.urlencode(fields).encode()


def envelope(**fields: Any) -> bytes:
    return json.dumps({"type": "event_callback", "team_id": "T0TEST", "event_id": "EvBAD", **fields}).encode()


MENTION = {"type": "app_mention", "channel": RANDOM_CHANNEL, "user": "U1", "text": "<@UBOT> #1", "ts": "1.0"}
ACTION = {"type": "block_actions", "user": {"id": "U1"}, "channel": {"id": DIGEST_CHANNEL}, "response_url": "x"}


@pytest.mark.parametrize(
    ("body", "content_type", "status"),
    [
        pytest.param(b"{not json", JSON, 400, id="invalid JSON"),
        pytest.param(b"[1, 2]", JSON, 400, id="JSON that is not an object"),
        pytest.param(b'{"a":' + b"[" * 50_000 + b"}", JSON, 400, id="JSON nested past the recursion limit"),
        pytest.param(b"", JSON, 400, id="empty body"),
        pytest.param(b"", FORM, 400, id="empty form"),
        pytest.param(form(text="#1", channel_id=DIGEST_CHANNEL), FORM, 400, id="form without command"),
        pytest.param(b"hello", "text/plain", 400, id="plain text"),
        pytest.param(form(payload="not json"), FORM, 400, id="payload that is not JSON"),
        pytest.param(form(payload="[1]"), FORM, 400, id="payload that is not an object"),
        pytest.param(envelope(), JSON, 400, id="event_callback without event"),
        pytest.param(envelope(event=None), JSON, 400, id="event that is null"),
        pytest.param(envelope(event="app_mention"), JSON, 400, id="event that is a string"),
        pytest.param(envelope(event=MENTION, team=5), JSON, 400, id="team of the wrong type"),
        pytest.param(envelope(event={"type": "no_such_event"}), JSON, 200, id="unknown event type"),
        pytest.param(envelope(event={"type": "app_mention", "text": "#1"}), JSON, 200, id="mention without channel"),
        pytest.param(envelope(event={"type": "message", "thread_ts": "1.0"}), JSON, 200, id="reply without channel"),
        pytest.param(envelope(event={"type": "app_home_opened"}), JSON, 200, id="home without user"),
        pytest.param(
            form(payload=json.dumps({**ACTION, "actions": [{"action_id": "no_such_action", "value": "x"}]})),
            FORM,
            200,
            id="unknown action_id",
        ),
        pytest.param(form(ssl_check="1", token="x"), FORM, 200, id="ssl_check"),
    ],
)
def test_a_body_slack_would_not_send_is_refused_without_side_effects(
    harness: SlackHarness, redis_url: str, caplog: pytest.LogCaptureFixture, body: bytes, content_type: str, status: int
) -> None:
    before = effects(harness, redis_url)
    response = harness.signed(body, content_type)
    assert response.status_code == status, response.text
    if status == 400:
        assert response.text and len(response.text) < 100  # a short reason, in plain text
    assert harness.signed(body, content_type, secret="wrong").status_code == 401  # the signature comes first
    harness.settle()  # events are handled after the answer: let every listener finish
    assert effects(harness, redis_url) == before
    assert errors_logged(caplog) == []


def test_a_body_that_is_not_utf8_is_401_even_when_signed(harness: SlackHarness, redis_url: str) -> None:
    # Slack signs UTF-8 text and slack_sdk's verifier decodes the body before hashing it, so such
    # a body cannot carry a signature we can check.
    before = effects(harness, redis_url)
    response = post_raw(harness, b'{"type": "\xff"}', JSON, *raw_signature(b'{"type": "\xff"}'))
    assert response.status_code == 401
    assert effects(harness, redis_url) == before


def test_a_slash_command_that_says_payload_is_answered(harness: SlackHarness) -> None:
    # Bolt reads any form body that mentions "payload" as interactivity: the command vanished.
    _, response = harness.command("what is the payload", channel=DIGEST_CHANNEL)
    assert response.status_code == 200
    assert "is not a pull request reference" in ack_text(response)


# -- bad signatures ----------------------------------------------------------------------------------

HEADER_TEXT = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=40)
BODIES = (
    st.binary(max_size=300)
    | st.text(max_size=300).map(str.encode)
    | st.just(envelope(event=MENTION))
    | st.just(form(command="/pr", text="#1", channel_id=DIGEST_CHANNEL, user_id="U1", response_url="x"))
)


@st.composite
def unsigned(draw: st.DrawFn) -> tuple[bytes, str | None, str | None]:
    """A body with timestamp and signature headers that do not sign it now with our secret."""
    body = draw(BODIES)
    now = int(time.time())
    kind = draw(st.sampled_from(["random", "wrong secret", "stale", "other body", "missing"]))
    if kind == "random":
        timestamp = draw(st.none() | HEADER_TEXT | st.integers(-(10**400), 10**400).map(str))
        return body, timestamp, draw(st.none() | HEADER_TEXT)
    if kind == "missing":
        return body, *draw(st.sampled_from([(None, None), (str(now), None), (None, "v0=00")]))
    signed_at = now - 400 if kind == "stale" else now  # Slack's verification allows 5 minutes
    signed = body + b"x" if kind == "other body" else body
    return body, *raw_signature(signed, secret="wrong" if kind == "wrong secret" else SECRET, now=signed_at)


def test_a_request_without_a_valid_signature_is_401_and_touches_nothing(harness: SlackHarness, redis_url: str) -> None:
    @SLACK_EXAMPLES
    @given(case=unsigned(), content_type=st.sampled_from([JSON, FORM, "text/plain", ""]))
    @example(case=(envelope(event=MENTION), "9" * 5000, "v0=00"), content_type=JSON)  # int() refuses 5,000 digits
    @example(case=(envelope(event=MENTION), "9" * 400, "v0=00"), content_type=JSON)  # now - 10**400: OverflowError
    @example(case=(b"{not json", None, None), content_type=JSON)  # Bolt parsed it before verifying: 500
    def request(case: tuple[bytes, str | None, str | None], content_type: str) -> None:
        body, timestamp, signature = case
        before = effects(harness, redis_url)
        response = post_raw(harness, body, content_type, timestamp, signature)
        assert response.status_code == 401, (timestamp, signature, response.text)
        assert effects(harness, redis_url) == before

    request()


# -- helpers -------------------------------------------------------------------------------------------


def effects(harness: SlackHarness, redis_url: str) -> tuple[int, int, list[bytes | str]]:
    """Slack API calls, model calls and Redis keys: what a refused request must leave alone."""
    client = redis.Redis.from_url(redis_url)
    try:
        keys = sorted(client.keys("*"))
    finally:
        client.close()
    return len(harness.slack.requests), harness.model.calls, keys


def raw_signature(body: bytes, *, secret: str = SECRET, now: int | None = None) -> tuple[str, str]:
    """Slack's v0 signature over raw bytes (slack_sdk's generator only takes UTF-8)."""
    timestamp = str(int(time.time()) if now is None else now)
    return timestamp, slack_signing.signature(secret, timestamp, body)


def post_raw(
    harness: SlackHarness, body: bytes, content_type: str, timestamp: str | None, signature: str | None
) -> requests.Response:
    headers = {"Content-Type": content_type}
    if timestamp is not None:
        headers["X-Slack-Request-Timestamp"] = timestamp
    if signature is not None:
        headers["X-Slack-Signature"] = signature
    return requests.post(harness.events_url, data=body, headers=headers, timeout=10)
