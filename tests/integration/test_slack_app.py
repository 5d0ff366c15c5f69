"""The served Slack app: signed requests in, Web API calls out, against loopback fakes."""

from __future__ import annotations

import json
import logging
import re
import threading
import time
from typing import Any

import pytest

from bot.errors import PublishError
from bot.models import DigestOptions, Filters, QuietDays, Window
from bot.slack.app import LISTENER_THREADS
from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import (
    DIGEST_CHANNEL,
    OTHER_CHANNEL,
    SlackHarness,
    wait_for,
)

WINDOW = Window(day(0), day(24))
DAY = "2026-08-05"
RAW_LINK = re.compile(r"<(?!https://github\.com/|#C)[^>]*>")


def add_prs(harness: SlackHarness, count: int) -> None:
    topics = ["scheduler", "kv-cache", "moe", "tokenizer", "sampler"]
    for number in range(1, count + 1):
        topic = topics[number % len(topics)]
        harness.github.add_pr(
            REPO,
            1000 + number,
            title=f"[Perf] Faster {topic} path number {number}",
            merged_at=day(number * 0.3),
            files=[{"path": f"vllm/{topic}/impl_{number}.py", "additions": 30 + number, "deletions": 2}],
        )


def card_answer(request: dict[str, Any]) -> dict[str, Any]:
    text = request["messages"][-1]["content"]
    number = re.search(r"PR: #(\d+)", text)
    return {
        "headline": f"Speeds up path {number.group(1) if number else 0}",
        "verdict": "read",
        "minutes": 10,
        "why": ["A pattern"],
        "caveats": [],
        "watch": [],
    }


def post_digest(harness: SlackHarness) -> str:
    result = harness.parts.digests.run(
        DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("en", Filters(), "note")
    )
    assert result is not None and result.thread_ts
    return result.thread_ts


def answers(harness: SlackHarness, channel: str, thread_ts: str) -> list[dict[str, Any]]:
    """Bot messages in a thread whose placeholder (or stream) has been replaced by an answer."""
    return [
        message
        for message in harness.slack.thread(channel, thread_ts)
        if message.get("bot_id")
        and harness.settled(message)
        and "Looking into it" not in (message.get("text") or "")
        and not (message.get("metadata") or {}).get("event_type")
    ]


def all_text(message: dict[str, Any]) -> str:
    return json.dumps(message.get("blocks", [])) + (message.get("text") or "")


def test_digest_of_65_prs_is_one_lead_and_valid_thread_messages(harness: SlackHarness) -> None:
    add_prs(harness, 65)
    harness.model.responder = card_answer
    thread_ts = post_digest(harness)
    (lead,) = harness.slack.messages(DIGEST_CHANNEL)
    assert lead["ts"] == thread_ts
    assert "65 merged" in lead["text"] or "65 merged" in json.dumps(lead["blocks"])
    thread = harness.slack.thread(DIGEST_CHANNEL, thread_ts)
    numbers = re.findall(r"#(\d{4})\b", " ".join(message["text"] for message in thread))
    assert sorted(set(numbers)) == sorted(str(1000 + n) for n in range(1, 66))
    assert len(numbers) == 65  # every card once
    assert harness.slack.rejections == [] and harness.slack.warnings == []
    for call in harness.slack.calls("chat.postMessage"):
        assert call["unfurl_links"] is False and call["unfurl_media"] is False


def test_second_run_posts_nothing_and_a_broken_run_is_finished_without_duplicates(harness: SlackHarness) -> None:
    add_prs(harness, 30)
    harness.model.responder = card_answer
    harness.slack.fail_next("chat.postMessage", error="internal_error", after=2)  # lead and one part go through
    with pytest.raises(PublishError, match="internal_error"):
        post_digest(harness)
    assert len(harness.slack.all_messages()) == 2
    thread_ts = post_digest(harness)
    thread = harness.slack.thread(DIGEST_CHANNEL, thread_ts)
    numbers = re.findall(r"#(\d{4})\b", " ".join(message["text"] for message in thread))
    assert len(numbers) == 30 and len(set(numbers)) == 30
    assert len(harness.slack.messages(DIGEST_CHANNEL)) == 1
    before = len(harness.slack.all_messages())
    post_digest(harness)
    assert len(harness.slack.all_messages()) == before


def test_a_message_that_reached_slack_but_not_the_ledger_is_not_posted_again(
    harness: SlackHarness, redis_url: str
) -> None:
    import redis

    add_prs(harness, 30)
    harness.model.responder = card_answer
    post_digest(harness)
    before = len(harness.slack.all_messages())
    raw = redis.Redis.from_url(redis_url)
    key = f"prdigest:v1:ledger:{{{DIGEST_CHANNEL}}}:{DAY}"
    raw.hdel(key, "part:0", "part:2", "done")  # as if the process died between Slack's answers and the ledger
    raw.close()
    post_digest(harness)
    assert len(harness.slack.all_messages()) == before


def test_two_concurrent_posts_make_one_digest(harness: SlackHarness) -> None:
    add_prs(harness, 10)
    harness.model.responder = card_answer
    harness.model.latency = 0.2
    results: list[Any] = []

    def run() -> None:
        results.append(
            harness.parts.digests.run(
                DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("en", Filters(), "note")
            )
        )

    threads = [threading.Thread(target=run) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(result is None for result in results) == [False, True]
    assert len(harness.slack.messages(DIGEST_CHANNEL)) == 1
    assert harness.model.calls == 10


def test_slack_429_is_waited_out_and_retried(harness: SlackHarness) -> None:
    add_prs(harness, 3)
    harness.model.responder = card_answer
    harness.slack.rate_limit_next("chat.postMessage", retry_after=1)
    started = time.monotonic()
    post_digest(harness)
    assert time.monotonic() - started >= 1.0
    assert len(harness.slack.messages(DIGEST_CHANNEL)) == 1
    assert harness.slack.rejections == []


def qa_responder(answer: str) -> Any:
    def respond(request: dict[str, Any]) -> dict[str, Any] | str:
        if "response_format" in request:
            return card_answer(request)
        return answer

    return respond


def test_thread_question_is_answered_about_the_right_pr(harness: SlackHarness) -> None:
    add_prs(harness, 5)
    harness.model.responder = qa_responder("It moves the MoE routing into `vllm/moe/impl_2.py`.")
    thread_ts = post_digest(harness)
    _, response = harness.thread_reply(DIGEST_CHANNEL, thread_ts, "what does the moe change do?")
    assert response.status_code == 200
    (answer,) = wait_for(lambda: answers(harness, DIGEST_CHANNEL, thread_ts))
    text = all_text(answer)
    assert "#1002" in text  # "Faster moe path number 2"
    assert "https://github.com/vllm-project/vllm/pull/1002/files#diff-" in text
    question = harness.model.chat_requests()[-1]
    assert "vllm/moe/impl_2.py" in question["messages"][1]["content"]


def test_ambiguous_question_asks_which(harness: SlackHarness) -> None:
    add_prs(harness, 10)  # two PRs each about moe, scheduler, ...
    harness.model.responder = qa_responder("unused")
    thread_ts = post_digest(harness)
    calls = harness.model.calls
    harness.thread_reply(DIGEST_CHANNEL, thread_ts, "tell me about the faster sampler path")
    (answer,) = wait_for(lambda: answers(harness, DIGEST_CHANNEL, thread_ts))
    text = all_text(answer)
    assert "Which one" in text and "#1004" in text and "#1009" in text
    assert harness.model.calls == calls  # no model call to ask which


def test_follow_up_uses_the_earlier_turn(harness: SlackHarness) -> None:
    add_prs(harness, 5)
    harness.model.responder = qa_responder("It adds a cache in `vllm/kv-cache/impl_1.py`.")
    thread_ts = post_digest(harness)
    harness.thread_reply(DIGEST_CHANNEL, thread_ts, "what does #1001 change?")
    wait_for(lambda: len(answers(harness, DIGEST_CHANNEL, thread_ts)) == 1)
    harness.thread_reply(DIGEST_CHANNEL, thread_ts, "and is it tested?")
    wait_for(lambda: len(answers(harness, DIGEST_CHANNEL, thread_ts)) == 2)
    last = harness.model.chat_requests()[-1]["messages"]
    contents = [message["content"] for message in last]
    assert "what does #1001 change?" in contents
    assert "It adds a cache in `vllm/kv-cache/impl_1.py`." in contents
    assert contents[-1] == "and is it tested?"
    assert "PR: #1001" in last[1]["content"]


def test_mention_is_answered_in_a_thread_on_that_message(harness: SlackHarness) -> None:
    add_prs(harness, 2)
    harness.model.responder = qa_responder("It speeds up the scheduler.")
    ts, _ = harness.mention("C0RANDOM01", f"what does {REPO}#1001 change?")
    (answer,) = wait_for(lambda: answers(harness, "C0RANDOM01", ts))
    assert answer["thread_ts"] == ts
    assert "It speeds up the scheduler." in all_text(answer)


def test_mention_without_a_pr_gets_help(harness: SlackHarness) -> None:
    ts, _ = harness.mention("C0RANDOM01", "hello there")
    (answer,) = wait_for(lambda: answers(harness, "C0RANDOM01", ts))
    assert "/pr" in all_text(answer)
    assert harness.model.calls == 0


def test_retried_event_is_answered_once(harness: SlackHarness) -> None:
    add_prs(harness, 2)
    harness.model.responder = qa_responder("Once.")
    thread_ts = post_digest(harness)
    ts = harness.slack.add_message(DIGEST_CHANNEL, "what does #1001 change?", thread_ts=thread_ts)
    event = {
        "type": "message",
        "channel": DIGEST_CHANNEL,
        "user": "U1",
        "text": "what does #1001 change?",
        "ts": ts,
        "thread_ts": thread_ts,
    }
    assert harness.event(event, event_id="EvSAME").status_code == 200
    assert harness.event(event, event_id="EvSAME", retry=1).status_code == 200
    # The same message as an app_mention (another event id) is the same question too.
    assert harness.event({**event, "type": "app_mention"}, event_id="EvOTHER").status_code == 200
    wait_for(lambda: answers(harness, DIGEST_CHANNEL, thread_ts))
    harness.settle()
    assert len(answers(harness, DIGEST_CHANNEL, thread_ts)) == 1


def test_mass_mentions_in_titles_and_answers_are_escaped(harness: SlackHarness) -> None:
    harness.github.add_pr(
        REPO,
        1001,
        title="Fix <!channel> ping & <@U123> <https://evil.test|click>",
        merged_at=day(2),
        files=[{"path": "vllm/x.py", "additions": 50, "deletions": 1}],
    )
    harness.model.responder = qa_responder("<!channel> see <https://evil.test|here> and <@U999>")
    thread_ts = post_digest(harness)
    harness.thread_reply(DIGEST_CHANNEL, thread_ts, "what does #1001 change?")
    wait_for(lambda: answers(harness, DIGEST_CHANNEL, thread_ts))
    for message in harness.slack.all_messages():
        text = all_text(message)
        assert not RAW_LINK.search(json.loads(json.dumps(text))), text
        assert "<!channel>" not in text and "<@U" not in text


def test_bad_or_stale_signature_is_401_and_nothing_happens(harness: SlackHarness) -> None:
    body = json.dumps(
        {
            "type": "event_callback",
            "event_id": "Ev1",
            "event": {"type": "app_mention", "channel": "C0RANDOM01", "user": "U1", "text": "<@UBOT> #1", "ts": "1.0"},
        }
    ).encode()
    assert harness.signed(body, "application/json", secret="wrong").status_code == 401
    assert harness.signed(body, "application/json", age=400).status_code == 401
    harness.settle()
    assert harness.slack.calls("chat.postMessage") == []


def test_unhandled_events_get_200(harness: SlackHarness) -> None:
    response = harness.event({"type": "reaction_added", "user": "U1", "reaction": "eyes", "item": {}})
    assert response.status_code == 200


def test_slash_command_is_acked_at_once_while_the_model_is_slow(harness: SlackHarness) -> None:
    add_prs(harness, 1)
    harness.model.responder = card_answer
    harness.model.latency = 3.0
    hook, response = harness.command(f"{REPO}#1001")
    assert response.status_code == 200
    assert "Looking into it" in response.text
    assert harness.slack.responses[hook] == []  # acknowledged before the model (3 s) answered
    (payload,) = wait_for(lambda: harness.slack.responses[hook], timeout=15)
    assert payload["response_type"] == "ephemeral" and payload["replace_original"] is True
    blocks = json.dumps(payload["blocks"])
    assert "Speeds up path 1001" in blocks and "share_card" in blocks


def test_share_posts_the_same_card_for_everyone(harness: SlackHarness) -> None:
    add_prs(harness, 1)
    harness.model.responder = card_answer
    hook, _ = harness.command(f"{REPO}#1001")
    (card,) = wait_for(lambda: harness.slack.responses[hook], timeout=15)
    (button,) = [element for block in card["blocks"] if block["type"] == "actions" for element in block["elements"]]
    share_hook, response = harness.action(button["value"])  # what Slack sends back on the asker's click
    assert response.status_code == 200
    (shared,) = wait_for(lambda: harness.slack.messages(DIGEST_CHANNEL))
    assert "Speeds up path 1001" in all_text(shared)
    assert wait_for(lambda: harness.slack.responses[share_hook])[0].get("delete_original") is True
    assert harness.model.calls == 1  # the same cached card


def test_slash_command_about_another_repo_is_refused_to_the_asker(harness: SlackHarness) -> None:
    hook, response = harness.command(f"{REPO}#1001", channel=OTHER_CHANNEL)
    assert response.status_code == 200
    (payload,) = wait_for(lambda: harness.slack.responses[hook])
    assert "set up for other repositories" in payload["text"] and payload["response_type"] == "ephemeral"
    assert harness.model.calls == 0


@pytest.mark.parametrize(
    ("text", "channel", "expected"),
    [
        ("not a ref", DIGEST_CHANNEL, "is not a pull request reference"),
        ("help", DIGEST_CHANNEL, "/pr owner/repo#123"),
    ],
)
def test_slash_command_refusals_and_help(harness: SlackHarness, text: str, channel: str, expected: str) -> None:
    _, response = harness.command(text, channel=channel)
    assert response.status_code == 200
    assert expected in response.text
    assert harness.model.calls == 0


def test_thread_question_about_another_repo_is_refused(harness: SlackHarness) -> None:
    add_prs(harness, 2)
    harness.model.responder = card_answer
    thread_ts = post_digest(harness)
    harness.thread_reply(DIGEST_CHANNEL, thread_ts, "what about acme/widgets#5?")
    (refusal,) = wait_for(lambda: harness.slack.ephemeral)
    assert "set up for other repositories" in all_text(refusal)
    assert answers(harness, DIGEST_CHANNEL, thread_ts) == []


def test_app_home_lists_channels_and_last_run(harness: SlackHarness) -> None:
    add_prs(harness, 2)
    harness.model.responder = card_answer
    post_digest(harness)
    harness.slack.members[DIGEST_CHANNEL] = ["U0HUMAN001"]  # the Home shows a person's own channels
    harness.event({"type": "app_home_opened", "user": "U0HUMAN001", "channel": "D1", "tab": "home"})
    view = wait_for(lambda: harness.slack.home_views.get("U0HUMAN001"))
    text = json.dumps(view)
    assert DIGEST_CHANNEL in text and REPO in text and DAY in text


def test_why_questions_name_the_rule(harness: SlackHarness) -> None:
    add_prs(harness, 3)
    harness.github.add_pr(
        REPO,
        1099,
        title="Internal bookkeeping",
        merged_at=day(5),
        labels=["no-digest"],
        files=[{"path": "vllm/books.py", "additions": 40, "deletions": 1}],
    )
    harness.model.responder = qa_responder("unused")
    result = harness.parts.digests.run(
        DIGEST_CHANNEL,
        DAY,
        WINDOW,
        (REPO,),
        options=DigestOptions("en", Filters(labels_exclude=("no-digest",)), "note"),
    )
    assert result is not None and result.thread_ts
    thread_ts = result.thread_ts
    calls = harness.model.calls
    harness.thread_reply(DIGEST_CHANNEL, thread_ts, "why is #1002 here?")
    wait_for(lambda: len(answers(harness, DIGEST_CHANNEL, thread_ts)) == 1)
    harness.thread_reply(DIGEST_CHANNEL, thread_ts, "why isn't #1099 in the digest?")
    wait_for(lambda: len(answers(harness, DIGEST_CHANNEL, thread_ts)) == 2)
    first, second = (all_text(message) for message in answers(harness, DIGEST_CHANNEL, thread_ts))
    assert "is in this digest" in first and "inside the digest's window" in first
    assert "is not in this digest" in second and "no-digest, which this channel leaves out" in second
    assert harness.model.calls == calls  # the rules are ours to state, not the model's


def test_tokens_never_reach_the_logs(harness: SlackHarness, caplog: pytest.LogCaptureFixture) -> None:
    add_prs(harness, 2)
    harness.model.responder = qa_responder("It changes the scheduler.")
    with caplog.at_level(logging.DEBUG):
        thread_ts = post_digest(harness)
        harness.thread_reply(DIGEST_CHANNEL, thread_ts, "what does #1001 change?")
        wait_for(lambda: answers(harness, DIGEST_CHANNEL, thread_ts))
        harness.command(f"{REPO}#1002")
        harness.signed(b"{}", "application/json", secret="wrong")
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert logged  # the libraries did log at DEBUG
    for secret in (harness.slack.bot_token, "test-signing-secret"):
        assert secret not in logged


@pytest.mark.parametrize(("quiet_days", "posted"), [("note", 1), ("silent", 0)])
def test_a_quiet_day_posts_a_note_or_nothing(harness: SlackHarness, quiet_days: QuietDays, posted: int) -> None:
    result = harness.parts.digests.run(
        DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("en", Filters(), quiet_days)
    )
    assert result is not None and result.posted == posted
    messages = harness.slack.messages(DIGEST_CHANNEL)
    assert len(messages) == posted
    if posted:
        assert "No PR was merged" in all_text(messages[0])
    again = harness.parts.digests.run(
        DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("en", Filters(), quiet_days)
    )
    assert again is not None and again.posted == 0  # the day is done either way


def test_commands_and_buttons_are_acked_in_the_request_thread_while_listener_threads_are_busy(
    harness: SlackHarness,
) -> None:
    """Listeners that call ack() themselves run where the request is served (slack/executor.py):
    with every listener thread held, a command and a button are still acknowledged at once."""
    add_prs(harness, 1)
    harness.model.responder = card_answer
    hook, _ = harness.command(f"{REPO}#1001")
    (card,) = wait_for(lambda: harness.slack.responses[hook], timeout=15)
    (button,) = [element for block in card["blocks"] if block["type"] == "actions" for element in block["elements"]]
    harness.settle()
    release = threading.Event()
    held = [harness.parts.listeners.submit(release.wait) for _ in range(LISTENER_THREADS)]
    try:
        started = time.monotonic()
        _, help_response = harness.command("help")
        again, card_response = harness.command(f"{REPO}#1001")
        share_hook, share_response = harness.action(button["value"])
        assert time.monotonic() - started < 2.0  # Bolt waits up to 3 s for an ack it is not given
        assert help_response.status_code == 200 and "/pr" in help_response.text
        assert card_response.status_code == 200 and "Looking into it" in card_response.text
        assert share_response.status_code == 200
        (payload,) = wait_for(lambda: harness.slack.responses[again], timeout=15)
        assert "Speeds up path 1001" in json.dumps(payload["blocks"])
        assert wait_for(lambda: harness.slack.responses[share_hook])[0].get("delete_original") is True
    finally:
        release.set()
        for future in held:
            future.result(timeout=5)
