"""FakeSlack driven by the real slack_sdk WebClient, WebhookClient and Bolt App (127.0.0.1 only)."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from devkit.fakes.slack import BOT_ID, BOT_USER_ID, FakeSlack, Problem
from slack_bolt import App
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler
from slack_sdk.webhook import WebhookClient

from tests.integration import fake_slack_server

# The module's one fake Slack, reset before each test.
server, slack, client = fake_slack_server.server, fake_slack_server.slack, fake_slack_server.client

CHANNEL = "C0DIGEST"


def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def error_of(call: Any) -> SlackApiError:
    with pytest.raises(SlackApiError) as caught:
        call()
    return caught.value


# -- identity and auth -------------------------------------------------------------------------


def test_bolt_app_learns_the_bot_identity_from_auth_test(slack: FakeSlack, client: WebClient) -> None:
    App(client=client, signing_secret="secret")  # verifies the token at construction

    assert len(slack.calls("auth.test")) == 1
    answer = client.auth_test()
    assert (answer["team_id"], answer["user_id"], answer["bot_id"]) == ("T0TEST", BOT_USER_ID, BOT_ID)


def test_a_wrong_token_is_invalid_auth_and_a_missing_one_not_authed(slack: FakeSlack) -> None:
    wrong = WebClient(token="xoxb-wrong", base_url=slack.api_url)
    anonymous = WebClient(base_url=slack.api_url)

    assert error_of(lambda: wrong.chat_postMessage(channel=CHANNEL, text="hi")).response["error"] == "invalid_auth"
    assert error_of(anonymous.auth_test).response["error"] == "not_authed"
    assert slack.all_messages() == []


# -- messages and threads ----------------------------------------------------------------------


def test_replies_are_stored_in_the_thread_of_their_parent(slack: FakeSlack, client: WebClient) -> None:
    metadata = {"event_type": "prdigest_digest", "event_payload": {"day": "2026-08-05"}}
    parent = client.chat_postMessage(
        channel=CHANNEL, text="Digest", blocks=[section("*Digest*")], metadata=metadata, unfurl_links=False
    )
    first = client.chat_postMessage(channel=CHANNEL, thread_ts=parent["ts"], text="PR 1")
    second = client.chat_postMessage(channel=CHANNEL, thread_ts=parent["ts"], text="PR 2")

    assert parent["ts"] == "1700000000.000100"
    assert parent["ts"] < first["ts"] < second["ts"]
    assert parent["message"]["bot_id"] == BOT_ID
    [top] = slack.messages(CHANNEL)
    assert top["blocks"] == [section("*Digest*")]
    assert top["metadata"] == metadata
    assert top["thread_ts"] is None
    assert [m["text"] for m in slack.thread(CHANNEL, parent["ts"])] == ["PR 1", "PR 2"]
    assert slack.calls("chat.postMessage")[0]["unfurl_links"] is False
    assert slack.rejections == []
    assert slack.warnings == []


def test_replying_to_a_reply_lands_in_the_parent_thread_with_a_warning(slack: FakeSlack, client: WebClient) -> None:
    parent = client.chat_postMessage(channel=CHANNEL, text="Digest")
    reply = client.chat_postMessage(channel=CHANNEL, thread_ts=parent["ts"], text="PR 1")

    client.chat_postMessage(channel=CHANNEL, thread_ts=reply["ts"], text="answer")

    assert [m["text"] for m in slack.thread(CHANNEL, parent["ts"])] == ["PR 1", "answer"]
    assert [w.error for w in slack.warnings] == ["reply_ts_as_thread_ts"]


def test_conversations_replies_pages_fifteen_messages_at_a_time(slack: FakeSlack, client: WebClient) -> None:
    parent = client.chat_postMessage(channel=CHANNEL, text="Digest")["ts"]
    for n in range(19):
        client.chat_postMessage(channel=CHANNEL, thread_ts=parent, text=f"reply {n}")
    slack.add_message(CHANNEL, "a question", thread_ts=parent)

    first = client.conversations_replies(channel=CHANNEL, ts=parent, limit=100)
    # slack_sdk follows next_cursor, but yields one SlackResponse mutated in place: read each page as it comes.
    pages = [page["messages"] for page in client.conversations_replies(channel=CHANNEL, ts=parent)]

    assert len(first["messages"]) == 15
    assert first["has_more"] is True
    assert first["messages"][0]["reply_count"] == 20
    assert [len(page) for page in pages] == [15, 6]
    last = pages[-1][-1]
    assert (last["text"], last["user"], last["parent_user_id"]) == ("a question", "UHUMAN", BOT_USER_ID)
    assert "bot_id" not in last


def test_update_replaces_text_and_blocks(slack: FakeSlack, client: WebClient) -> None:
    ts = client.chat_postMessage(channel=CHANNEL, text="Working…")["ts"]

    client.chat_update(channel=CHANNEL, ts=ts, text="Done", blocks=[section("*Done*")])

    message = slack.message(CHANNEL, ts)
    assert (message["text"], message["blocks"]) == ("Done", [section("*Done*")])


def test_an_argument_chat_update_does_not_take_is_accepted_with_a_warning(slack: FakeSlack, client: WebClient) -> None:
    ts = client.chat_postMessage(channel=CHANNEL, text="Working…")["ts"]

    client.chat_update(channel=CHANNEL, ts=ts, text="Done", unfurl_links=False, unfurl_media=False)

    assert slack.message(CHANNEL, ts)["text"] == "Done"
    assert slack.warnings == [Problem("chat.update", "unknown_argument", "unfurl_links, unfurl_media")]


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"ts": "1.000000", "text": "x"}, "message_not_found"),
        ({"text": "x" * 4001}, "msg_too_long"),  # chat.update's 4,000-character cap
    ],
)
def test_update_errors(slack: FakeSlack, client: WebClient, kwargs: dict[str, Any], error: str) -> None:
    ts = client.chat_postMessage(channel=CHANNEL, text="original")["ts"]

    raised = error_of(lambda: client.chat_update(**{"channel": CHANNEL, "ts": ts, **kwargs}))

    assert raised.response["error"] == error
    assert slack.message(CHANNEL, ts)["text"] == "original"


def test_form_encoded_blocks_and_metadata_are_decoded(slack: FakeSlack, client: WebClient) -> None:
    metadata = {"event_type": "x", "event_payload": {"n": 1}}
    client.api_call(
        "chat.postMessage",
        params={
            "channel": CHANNEL,
            "text": "hi",
            "blocks": json.dumps([section("hi")]),
            "metadata": json.dumps(metadata),
        },
    )

    [message] = slack.messages(CHANNEL)
    assert (message["blocks"], message["metadata"]) == ([section("hi")], metadata)


def test_other_methods_answer_like_slack(slack: FakeSlack, client: WebClient) -> None:
    ts = client.chat_postMessage(channel=CHANNEL, text="Digest")["ts"]

    permalink = client.chat_getPermalink(channel=CHANNEL, message_ts=ts)["permalink"]
    ephemeral = client.chat_postEphemeral(channel=CHANNEL, user="U1", text="only you")
    client.assistant_threads_setStatus(channel_id=CHANNEL, thread_ts=ts, status="is thinking…")
    client.reactions_add(channel=CHANNEL, timestamp=ts, name="eyes")
    client.views_publish(user_id="U1", view={"type": "home", "blocks": [section("home")]})
    slack.channel_info[CHANNEL] = {"is_ext_shared": True}
    info = client.conversations_info(channel=CHANNEL)["channel"]
    client.chat_delete(channel=CHANNEL, ts=ts)

    assert permalink == f"https://fake.slack/archives/{CHANNEL}/p1700000000000100"
    assert slack.ephemeral[0]["text"] == "only you"
    assert slack.ephemeral[0]["message_ts"] == ephemeral["message_ts"]
    assert slack.statuses[0]["status"] == "is thinking…"
    assert slack.calls("reactions.add") == [{"channel": CHANNEL, "timestamp": ts, "name": "eyes"}]
    assert slack.home_views["U1"]["blocks"] == [section("home")]
    assert (info["id"], info["is_ext_shared"], info["is_private"]) == (CHANNEL, True, False)
    assert slack.messages(CHANNEL) == []
    assert error_of(lambda: client.api_call("chat.nope")).response["error"] == "unknown_method"


def test_many_threads_posting_at_once_get_distinct_ts(slack: FakeSlack, client: WebClient) -> None:
    # 4 workers: LoopbackServer keeps socketserver's listen backlog of 5, and slack_sdk opens a new
    # connection per call, so more concurrent callers get a dropped SYN and a 1 s retransmit.
    with ThreadPoolExecutor(max_workers=4) as pool:
        answers = list(pool.map(lambda n: client.chat_postMessage(channel=CHANNEL, text=str(n)), range(40)))

    assert len({answer["ts"] for answer in answers}) == 40
    assert len(slack.messages(CHANNEL)) == 40


# -- validation --------------------------------------------------------------------------------


def button(**overrides: Any) -> dict[str, Any]:
    return {"type": "button", "text": {"type": "plain_text", "text": "Open"}, "action_id": "open", **overrides}


@pytest.mark.parametrize(
    ("blocks", "error"),
    [
        ([section("x")] * 51, "invalid_blocks"),  # 50 blocks per message
        ([section("x" * 3001)], "invalid_blocks"),  # section text 3,000
        ([section("")], "invalid_blocks"),  # text objects need at least one character
        ([{"type": "section", "fields": [{"type": "mrkdwn", "text": "f"}] * 11}], "invalid_blocks"),  # fields 10
        ([{"type": "section", "fields": [{"type": "mrkdwn", "text": "f" * 2001}]}], "invalid_blocks"),  # field 2,000
        ([{"type": "header", "text": {"type": "mrkdwn", "text": "x"}}], "invalid_blocks"),  # plain_text only
        ([{"type": "header", "text": {"type": "plain_text", "text": "x" * 151}}], "invalid_blocks"),
        ([{"type": "context", "elements": [{"type": "mrkdwn", "text": "c"}] * 11}], "invalid_blocks"),
        ([{"type": "actions", "elements": [button()] * 26}], "invalid_blocks"),
        ([{"type": "actions", "elements": [button(text={"type": "plain_text", "text": "b" * 76})]}], "invalid_blocks"),
        ([{"type": "actions", "elements": [button(value="v" * 2001)]}], "invalid_blocks"),
        ([{"type": "actions", "elements": [button(action_id="a" * 256)]}], "invalid_blocks"),
        ([{**section("x"), "block_id": "b" * 256}], "invalid_blocks"),
        ([{"type": "secton", "text": {"type": "mrkdwn", "text": "typo"}}], "invalid_blocks"),
        ([section("y" * 2500)] * 5, "msg_blocks_too_long"),  # ~12,000 characters in all
        ("not json", "invalid_blocks_format"),
    ],
)
def test_blocks_slack_would_refuse_raise_and_are_recorded(
    slack: FakeSlack, client: WebClient, blocks: Any, error: str
) -> None:
    raised = error_of(lambda: client.chat_postMessage(channel=CHANNEL, text="fallback", blocks=blocks))

    assert raised.response["error"] == error
    assert [(r.method, r.error) for r in slack.rejections] == [("chat.postMessage", error)]
    assert slack.all_messages() == []


def test_blocks_at_the_limits_are_accepted(slack: FakeSlack, client: WebClient) -> None:
    blocks = [{"type": "header", "text": {"type": "plain_text", "text": "h" * 150}}, section("x" * 3000)]
    blocks += [{"type": "divider"}] * 48

    client.chat_postMessage(channel=CHANNEL, text="fallback", blocks=blocks)

    assert slack.rejections == []


def test_blocks_without_text_are_accepted_with_a_warning(slack: FakeSlack, client: WebClient) -> None:
    with pytest.warns(UserWarning, match="top-level `text`"):  # slack_sdk warns on the client side too
        client.chat_postMessage(channel=CHANNEL, blocks=[section("no fallback")])

    assert len(slack.messages(CHANNEL)) == 1
    assert slack.warnings == [Problem("chat.postMessage", "missing_text", "blocks without a top-level text fallback")]


def test_a_message_with_neither_text_nor_blocks_is_no_text(slack: FakeSlack, client: WebClient) -> None:
    with pytest.warns(UserWarning):
        raised = error_of(lambda: client.chat_postMessage(channel=CHANNEL, text=""))

    assert raised.response["error"] == "no_text"


def test_home_views_hold_up_to_100_blocks(slack: FakeSlack, client: WebClient) -> None:
    client.views_publish(user_id="U1", view={"type": "home", "blocks": [section("x")] * 100})
    raised = error_of(lambda: client.views_publish(user_id="U1", view={"type": "home", "blocks": [section("x")] * 101}))

    assert raised.response["error"] == "invalid_blocks"
    assert len(slack.home_views["U1"]["blocks"]) == 100


def test_channel_membership_errors(slack: FakeSlack, client: WebClient) -> None:
    slack.channels = {CHANNEL, "C0OTHER"}
    slack.not_in_channel = {"C0OTHER"}

    unknown = error_of(lambda: client.chat_postMessage(channel="C0UNKNOWN", text="hi"))
    outside = error_of(lambda: client.chat_postMessage(channel="C0OTHER", text="hi"))

    assert (unknown.response["error"], outside.response["error"]) == ("channel_not_found", "not_in_channel")
    assert [r.error for r in slack.rejections] == ["channel_not_found", "not_in_channel"]


# -- rate limits and faults --------------------------------------------------------------------


def test_a_forced_429_carries_retry_after(slack: FakeSlack, client: WebClient) -> None:
    slack.rate_limit_next("chat.postMessage")

    raised = error_of(lambda: client.chat_postMessage(channel=CHANNEL, text="hi"))

    assert raised.response.status_code == 429
    assert raised.response["error"] == "ratelimited"
    assert raised.response.headers["Retry-After"] == "1"
    assert slack.rejections == []  # injected by the test, not the bot's fault


@pytest.mark.slow
def test_rate_limit_retry_handler_succeeds_on_the_retry(slack: FakeSlack) -> None:
    retrying = WebClient(
        token="xoxb-test", base_url=slack.api_url, retry_handlers=[RateLimitErrorRetryHandler(max_retry_count=1)]
    )
    slack.rate_limit_next("chat.postMessage")

    retrying.chat_postMessage(channel=CHANNEL, text="hi")  # sleeps Retry-After (1 s) + jitter (< 1 s)

    assert len(slack.calls("chat.postMessage")) == 2
    assert len(slack.messages(CHANNEL)) == 1


def test_pacing_refuses_a_second_post_to_a_channel_within_min_interval(slack: FakeSlack, client: WebClient) -> None:
    slack.enforce_pacing, slack.min_interval = True, 0.2
    client.chat_postMessage(channel=CHANNEL, text="one")

    too_soon = error_of(lambda: client.chat_postMessage(channel=CHANNEL, text="two"))
    client.chat_postMessage(channel="C0OTHER", text="elsewhere")  # pacing is per channel
    time.sleep(0.25)
    client.chat_postMessage(channel=CHANNEL, text="three")

    assert (too_soon.response.status_code, too_soon.response.headers["Retry-After"]) == (429, "1")
    assert [m["text"] for m in slack.messages(CHANNEL)] == ["one", "three"]
    assert [r.error for r in slack.rejections] == ["ratelimited"]


def test_fail_next_answers_the_error_then_recovers(slack: FakeSlack, client: WebClient) -> None:
    slack.fail_next("chat.postMessage", "not_in_channel")
    slack.fail_next("chat.update", status=500)

    refused = error_of(lambda: client.chat_postMessage(channel=CHANNEL, text="hi"))
    ts = client.chat_postMessage(channel=CHANNEL, text="hi")["ts"]
    broken = error_of(lambda: client.chat_update(channel=CHANNEL, ts=ts, text="edit"))

    assert refused.response["error"] == "not_in_channel"
    assert (broken.response.status_code, broken.response["error"]) == (500, "internal_error")
    assert len(slack.messages(CHANNEL)) == 1


def test_fail_next_after_lets_calls_through_first(slack: FakeSlack, client: WebClient) -> None:
    slack.fail_next("chat.postMessage", after=2)

    for text in ("lead", "part 1"):
        client.chat_postMessage(channel=CHANNEL, text=text)
    refused = error_of(lambda: client.chat_postMessage(channel=CHANNEL, text="part 2"))
    client.chat_postMessage(channel=CHANNEL, text="part 2")

    assert refused.response["error"] == "internal_error"
    assert [m["text"] for m in slack.messages(CHANNEL)] == ["lead", "part 1", "part 2"]


def test_method_latency_delays_only_that_method(slack: FakeSlack, client: WebClient) -> None:
    slack.method_latency["conversations.info"] = 0.2

    started = time.monotonic()
    client.chat_postMessage(channel=CHANNEL, text="hi")
    fast = time.monotonic() - started
    client.conversations_info(channel=CHANNEL)
    slow = time.monotonic() - started - fast

    assert slow >= 0.2
    assert fast < slow


# -- response_url ------------------------------------------------------------------------------


def test_response_url_takes_five_posts_then_answers_used_url(slack: FakeSlack) -> None:
    url = slack.new_response_url()
    hook = WebhookClient(url, timeout=5)

    answers = [hook.send(text=f"update {n}", response_type="ephemeral") for n in range(6)]

    assert [(a.status_code, a.body) for a in answers] == [(200, "ok")] * 5 + [(404, "used_url")]
    hook_id = url.rsplit("/", 1)[1]
    assert [p["text"] for p in slack.responses[hook_id]] == [f"update {n}" for n in range(5)]
    assert slack.responses[hook_id][0]["response_type"] == "ephemeral"
    assert [r.error for r in slack.rejections] == ["used_url"]


def test_response_url_checks_blocks_like_chat_post_message(slack: FakeSlack) -> None:
    hook = WebhookClient(slack.new_response_url(), timeout=5)

    answer = hook.send(text="fallback", blocks=[section("x" * 3001)], replace_original=True)

    assert (answer.status_code, answer.body) == (400, "invalid_blocks")
    assert slack.rejections[0].error == "invalid_blocks"
