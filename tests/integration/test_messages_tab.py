"""The app's Messages tab through the real app: prompts that fit the person, and questions in the
DM answered under the same access rules as everywhere (signed events, fake Slack, real Redis)."""

from __future__ import annotations

import json
from typing import Any

from devkit.fakes.slack_agent import im_message, messages_tab_opened

from tests.integration.conftest import REPO
from tests.integration.slack_harness import (
    DIGEST_CHANNEL,
    OTHER_CHANNEL,
    OTHER_REPO,
    SlackHarness,
    secret_pr,
    wait_for,
)
from tests.integration.test_slack_app import add_prs, card_answer, post_digest

READER, NEWCOMER = "U0READER01", "U0NEWCOME1"
READER_DM, NEWCOMER_DM = "D0READER01", "D0NEWCOME1"


def model(request: dict[str, Any]) -> Any:
    """Cards for card requests; a plain answer for a question."""
    if "response_format" in request:
        return card_answer(request)
    return "It makes the scheduler path faster in `vllm/scheduler/impl_1.py`."


def ask_in_dm(harness: SlackHarness, user: str, dm: str, text: str) -> str:
    ts = harness.slack.add_message(dm, text, user=user)
    assert harness.event(im_message(user, dm, text, ts)).status_code == 200
    return ts


def replies(harness: SlackHarness, dm: str, ts: str) -> list[dict[str, Any]]:
    """The bot's replies in the question's thread, once the placeholder has been replaced and a
    streamed answer settled into its reply."""
    thread = [message for message in harness.slack.thread(dm, ts) if message.get("bot_id")]
    return [
        message
        for message in thread
        if "Looking into it" not in (message.get("text") or "") and harness.settled(message)
    ]


def test_opening_the_messages_tab_sets_prompts_that_fit_the_person(harness: SlackHarness) -> None:
    add_prs(harness, 6)
    harness.model.responder = card_answer
    post_digest(harness)
    harness.slack.members[DIGEST_CHANNEL] = [READER]
    harness.event(messages_tab_opened(READER, READER_DM))
    harness.event(messages_tab_opened(NEWCOMER, NEWCOMER_DM))
    harness.settle()
    by_channel = {call["channel_id"]: call for call in harness.slack.prompts}
    assert set(by_channel) == {READER_DM, NEWCOMER_DM}
    assert all("thread_ts" not in call for call in harness.slack.prompts)  # the tab's own prompts
    reader = [prompt["message"] for prompt in by_channel[READER_DM]["prompts"]]
    assert reader[0] == "What should I read from today's digest?"
    area = next(message for message in reader if message.startswith("What changed in"))
    assert area.endswith("this week?") and "`vllm`" not in area  # below the root every path shares
    explain = next(message for message in reader if message.startswith("Explain "))
    assert explain.startswith(f"Explain {REPO}#10")
    newcomer = by_channel[NEWCOMER_DM]["prompts"]
    assert [prompt["message"] for prompt in newcomer] == ["How do I look up a pull request?"]
    assert harness.slack.rejections == []


def test_the_prompts_are_set_once_however_often_the_tab_is_opened(harness: SlackHarness) -> None:
    for _ in range(3):
        harness.event(messages_tab_opened(NEWCOMER, NEWCOMER_DM))
        harness.settle()
    assert len(harness.slack.prompts) == 1


def test_a_dm_question_about_a_followed_public_pr_is_answered_in_its_thread(harness: SlackHarness) -> None:
    add_prs(harness, 3)
    harness.model.responder = model
    ts = ask_in_dm(harness, READER, READER_DM, f"what does {REPO}#1001 change?")
    (answer,) = wait_for(lambda: replies(harness, READER_DM, ts))
    assert "makes the scheduler path faster" in json.dumps(answer["blocks"])
    assert harness.slack.rejections == []


def test_a_dm_answer_shows_a_status_then_streams_to_the_person(harness: SlackHarness) -> None:
    add_prs(harness, 3)
    harness.model.responder = model
    ts = ask_in_dm(harness, READER, READER_DM, f"what does {REPO}#1001 change?")
    wait_for(lambda: replies(harness, READER_DM, ts))
    harness.settle()
    (status, *_) = harness.slack.calls("assistant.threads.setStatus")
    assert status["channel_id"] == READER_DM and status["thread_ts"] == ts and "#1001" in status["status"]
    (started,) = harness.slack.calls("chat.startStream")
    assert started["channel"] == READER_DM and started["thread_ts"] == ts
    assert started["recipient_user_id"] == READER
    assert harness.slack.calls("chat.stopStream")


def test_a_retried_dm_delivery_is_answered_once(harness: SlackHarness) -> None:
    add_prs(harness, 3)
    harness.model.responder = model
    ts = harness.slack.add_message(READER_DM, f"explain {REPO}#1002", user=READER)
    event = im_message(READER, READER_DM, f"explain {REPO}#1002", ts)
    harness.event(event, event_id="EvDM000001")
    harness.event(event, event_id="EvDM000001", retry=1)
    harness.settle()
    assert len(replies(harness, READER_DM, ts)) == 1


def test_a_dm_question_about_a_private_repo_outside_the_persons_channels_is_refused_naming_nothing(
    harness: SlackHarness,
) -> None:
    secret_pr(harness)
    harness.slack.members[OTHER_CHANNEL] = [READER]  # not the newcomer
    ts = ask_in_dm(harness, NEWCOMER, NEWCOMER_DM, f"what does {OTHER_REPO}#7 change?")
    (refusal,) = wait_for(lambda: replies(harness, NEWCOMER_DM, ts))
    said = json.dumps(refusal).lower()
    assert "channels you are in" in said
    assert "widgets" not in said and "acme" not in said and "rotate" not in said and "keys" not in said
    harness.settle()
    assert harness.model.calls == 0


def test_a_member_of_the_private_repos_channel_is_answered_in_the_dm(harness: SlackHarness) -> None:
    secret_pr(harness)
    harness.slack.members[OTHER_CHANNEL] = [READER]
    ts = ask_in_dm(harness, READER, READER_DM, f"what does {OTHER_REPO}#7 change?")
    (answer,) = wait_for(lambda: replies(harness, READER_DM, ts))
    assert "rotates keys" in json.dumps(answer["blocks"])


def test_edits_and_bots_in_the_dm_are_not_answered(harness: SlackHarness) -> None:
    ts = harness.slack.add_message(READER_DM, "hello", user=READER)
    harness.event(im_message(READER, READER_DM, "hello", ts, subtype="message_changed"))
    harness.event(im_message(READER, READER_DM, "hello", ts, bot_id="B0OTHER"))
    harness.settle()
    assert harness.slack.thread(READER_DM, ts) == []


def test_prompts_refused_by_slack_are_tried_again_on_the_next_visit(harness: SlackHarness) -> None:
    harness.slack.fail_next("assistant.threads.setSuggestedPrompts", error="not_agent_app")
    harness.event(messages_tab_opened(NEWCOMER, NEWCOMER_DM))
    harness.settle()
    assert harness.slack.prompts == []
    harness.event(messages_tab_opened(NEWCOMER, NEWCOMER_DM))
    harness.settle()
    assert len(harness.slack.prompts) == 1


def test_prompts_are_in_the_persons_language(harness: SlackHarness) -> None:
    harness.slack.locales[NEWCOMER] = "zh-CN"
    harness.event(messages_tab_opened(NEWCOMER, NEWCOMER_DM))
    harness.settle()
    (call,) = harness.slack.prompts
    assert call["prompts"] == [{"title": "如何查询 PR", "message": "如何查询一个拉取请求？"}]


def test_a_chinese_speakers_dm_refusal_is_in_chinese(harness: SlackHarness) -> None:
    secret_pr(harness)
    harness.slack.locales[NEWCOMER] = "zh-CN"
    ts = ask_in_dm(harness, NEWCOMER, NEWCOMER_DM, f"{OTHER_REPO}#7 改了什么？")
    (refusal,) = wait_for(lambda: replies(harness, NEWCOMER_DM, ts))
    assert "你所在频道" in refusal["text"] and "widgets" not in json.dumps(refusal)


def test_the_lookup_prompt_is_answered_with_how_to_look_up_a_pr(harness: SlackHarness) -> None:
    ts = ask_in_dm(harness, NEWCOMER, NEWCOMER_DM, "How do I look up a pull request?")
    (answer,) = wait_for(lambda: replies(harness, NEWCOMER_DM, ts))
    assert "/pr" in answer["text"]


def test_a_bare_number_in_the_dm_means_the_repository_of_the_persons_channels(harness: SlackHarness) -> None:
    add_prs(harness, 3)
    harness.model.responder = model
    harness.slack.members[DIGEST_CHANNEL] = [READER]
    ts = ask_in_dm(harness, READER, READER_DM, "what does #1001 change?")
    (answer,) = wait_for(lambda: replies(harness, READER_DM, ts))
    assert "makes the scheduler path faster" in json.dumps(answer["blocks"])
    (status, *_) = harness.slack.calls("assistant.threads.setStatus")
    assert "#1001" in status["status"]


def test_a_bare_number_that_could_be_several_repositories_is_asked_about_not_guessed(harness: SlackHarness) -> None:
    add_prs(harness, 3)
    secret_pr(harness)
    harness.slack.members[DIGEST_CHANNEL] = [READER]
    harness.slack.members[OTHER_CHANNEL] = [READER]
    ts = ask_in_dm(harness, READER, READER_DM, "what does #7 change?")
    (asked,) = wait_for(lambda: replies(harness, READER_DM, ts))
    assert asked["text"] == f"Which repository is #7 in? Ask again with its name, such as `{REPO}#7`, `{OTHER_REPO}#7`."
    # Someone in no channel is not shown the workspace's repositories: only how to write one.
    ts = ask_in_dm(harness, NEWCOMER, NEWCOMER_DM, "what does #7 change?")
    (told,) = wait_for(lambda: replies(harness, NEWCOMER_DM, ts))
    assert "does not say which repository" in told["text"] and REPO not in told["text"]
    harness.settle()
    assert harness.model.calls == 0


def test_a_dm_question_across_days_about_a_private_repo_outside_the_persons_channels_names_nothing(
    harness: SlackHarness,
) -> None:
    secret_pr(harness)
    harness.slack.members[OTHER_CHANNEL] = [READER]  # not the newcomer
    harness.github.reset_requests()
    ts = ask_in_dm(harness, NEWCOMER, NEWCOMER_DM, f"what merged in {OTHER_REPO} this week?")
    (refusal,) = wait_for(lambda: replies(harness, NEWCOMER_DM, ts))
    said = json.dumps(refusal).lower()
    assert "channels you are in" in said and OTHER_REPO.lower() not in said
    # Its visibility may be read (whether it is private); its pull requests are not.
    assert not [request.path for request in harness.github.requests if f"{OTHER_REPO}/pulls" in request.path]
