"""Answers in threads: a status at once, the model's answer streamed sentence by sentence once
each sentence is checked, and today's placeholder + update where Slack refuses streaming.
Through the real app, signed events, the real openai client streaming from the fake model."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from devkit.fakes.markdown_links import shown_text
from devkit.fakes.slack_agent import agent_session_stopped

from bot.core.checks.prompt_echoes import echoes_prompt
from bot.core.prompting.prompts import answer_prompt
from bot.models import DigestOptions, Filters, Window
from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import DIGEST_CHANNEL, HUMAN, SlackHarness, wait_for

WINDOW = Window(day(0), day(24))
DAY = "2026-08-05"
NUMBER = 50911
BODY = "Fuses the MoE dispatch kernels. Decode is 12% faster on H100 (from 41 ms to 36 ms)."
STREAM_METHODS = ("chat.startStream", "chat.appendStream", "chat.stopStream")
# What a prompt injection could make the model write; none of it may ever be shown.
INJECTED = [
    "It fuses the MoE dispatch kernels. ",
    "Heads up <!chan",
    "nel> and @he",
    "re, read <https://evil.example/pwn|this>. ",
    "Decode is 12% faster. ",
    "It also cuts memory by 37.5 GiB. ",
    "Latency drops from 41 ms to 36 ms.",
]
FORBIDDEN = ("<!channel>", "@here", "!chan", "evil.example", "37.5")


def card(request: dict[str, Any]) -> dict[str, Any]:
    return {
        "headline": "Fuses the MoE dispatch kernels",
        "verdict": "read",
        "minutes": 5,
        "why": [],
        "caveats": [],
        "watch": [],
    }


def setup_thread(harness: SlackHarness) -> tuple[str, Since]:
    harness.github.add_pr(
        REPO,
        NUMBER,
        title="[Perf] Fuse the MoE dispatch kernels",
        body=BODY,
        merged_at=day(1),
        files=[{"path": "vllm/moe/dispatch.py", "additions": 40, "deletions": 3}],
    )
    harness.model.responder = lambda request: card(request) if "response_format" in request else "unused"
    result = harness.parts.digests.run(
        DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("en", Filters(), "note")
    )
    assert result is not None and result.thread_ts
    methods = ("chat.postMessage", "chat.update", *STREAM_METHODS)
    return result.thread_ts, Since(harness, {method: len(harness.slack.calls(method)) for method in methods})


@dataclass
class Since:
    """The fake Slack's calls made after the digest was posted: the question's."""

    harness: SlackHarness
    counts: dict[str, int]

    def calls(self, method: str) -> list[dict[str, Any]]:
        return self.harness.slack.calls(method)[self.counts.get(method, 0) :]


def stream_calls(since: Since) -> list[tuple[str, dict[str, Any]]]:
    return [(method, args) for method in STREAM_METHODS for args in since.calls(method)]


def streamed_text(since: Since) -> str:
    """The words streamed, as Slack shows them (markdown_text's backslash escapes undone)."""
    return shown_text("".join(str(args.get("markdown_text") or "") for _, args in stream_calls(since)))


def everything_shown(since: Since) -> str:
    """Every word the app sent Slack for the answer: streams, posts and edits."""
    sent = [args for _, args in stream_calls(since)]
    sent += since.calls("chat.update") + since.calls("chat.postMessage")
    return json.dumps(sent)


def ask(harness: SlackHarness, thread_ts: str) -> None:
    _, response = harness.thread_reply(DIGEST_CHANNEL, thread_ts, f"what does #{NUMBER} change?")
    assert response.status_code == 200


def test_status_comes_first_then_the_streamed_text_is_the_answer(harness: SlackHarness) -> None:
    thread_ts, since = setup_thread(harness)
    harness.model.stream_script = ["It fuses the MoE ", "dispatch kernels. ", "Decode is 12% faster on H100."]
    ask(harness, thread_ts)
    wait_for(lambda: since.calls("chat.update"))  # the stream settled into the reply
    (status,) = harness.slack.statuses
    assert status == {**status, "channel_id": DIGEST_CHANNEL, "thread_ts": thread_ts, "status": f"Reading #{NUMBER}…"}
    (started,) = since.calls("chat.startStream")
    assert started["thread_ts"] == thread_ts
    assert started["recipient_user_id"] == HUMAN and started["recipient_team_id"] == "T0TEST"
    assert status["posted_at"] < harness.slack.streamed()[0]["posted_at"]
    assert streamed_text(since) == "It fuses the MoE dispatch kernels. Decode is 12% faster on H100."
    assert len(since.calls("chat.stopStream")) == 1
    (message,) = harness.slack.streamed()
    assert message["stream"] == "stopped" and message["thread_ts"] == thread_ts
    # Settled into the usual reply: the same words, under the header naming the PR.
    assert "It fuses the MoE dispatch kernels. Decode is 12% faster on H100." in message["text"]
    assert f"#{NUMBER}" in message["text"]
    assert not harness.slack.rejections and not since.calls("chat.postMessage")  # no placeholder
    assert harness.model.streams[0].finished and harness.model.chat_requests()[-1]["stream"] is True


def test_injected_mentions_links_and_figures_never_reach_slack(harness: SlackHarness) -> None:
    thread_ts, since = setup_thread(harness)
    harness.model.stream_script = INJECTED
    ask(harness, thread_ts)
    wait_for(lambda: since.calls("chat.update"))
    shown = everything_shown(since)
    for forbidden in FORBIDDEN:
        assert forbidden not in shown
    assert streamed_text(since) == (
        "It fuses the MoE dispatch kernels. Heads up and, read this. Decode is 12% faster. "
        "Latency drops from 41 ms to 36 ms."
    )


def test_refused_streaming_falls_back_to_the_placeholder_and_its_update(harness: SlackHarness) -> None:
    thread_ts, since = setup_thread(harness)
    harness.slack.fail_next("chat.startStream", "not_allowed", times=5)
    harness.model.stream_script = INJECTED
    ask(harness, thread_ts)
    (update,) = wait_for(lambda: since.calls("chat.update"))
    (placeholder,) = since.calls("chat.postMessage")
    assert "Looking into it" in placeholder["text"] and placeholder["thread_ts"] == thread_ts
    assert "It fuses the MoE dispatch kernels." in update["text"]
    assert "Latency drops from 41 ms to 36 ms." in update["text"]
    shown = everything_shown(since)
    for forbidden in FORBIDDEN:
        assert forbidden not in shown
    assert not since.calls("chat.appendStream") and not since.calls("chat.stopStream")


def test_stopped_by_user_closes_the_model_stream_and_posts_nothing_more(harness: SlackHarness) -> None:
    thread_ts, since = setup_thread(harness)
    harness.model.chunk_delay = 0.05
    harness.model.stream_script = [f"Sentence {word} of the answer. " for word in "abcdefghijklmnopqrstuvwxyz" * 4]
    ask(harness, thread_ts)
    wait_for(lambda: since.calls("chat.startStream"))
    harness.slack.press_stop()
    stream = wait_for(lambda: harness.model.streams)[0]
    assert stream.settled.wait(10)
    assert stream.cut and len(stream.pieces) < 104  # the model call was closed part-way
    wait_for(lambda: any(error.error == "stopped_by_user" for error in harness.slack.rejections))
    appends = len(since.calls("chat.appendStream"))
    # Nothing after the stop: no stopStream, no update, no other post.
    assert since.calls("chat.stopStream") == []
    assert since.calls("chat.update") == [] and since.calls("chat.postMessage") == []
    assert len(since.calls("chat.appendStream")) == appends


def test_stop_pressed_while_the_model_is_streaming_ends_it_on_any_replica(harness: SlackHarness) -> None:
    """Slack's Stop: the streams in the thread end on Slack's side and agent_session_stopped comes
    (to any replica: only the mark in Redis tells the one answering)."""
    thread_ts, since = setup_thread(harness)
    harness.model.chunk_delay = 0.05
    harness.model.stream_script = [f"Sentence {word} of the answer. " for word in "abcdefghijklmnopqrstuvwxyz" * 4]
    ask(harness, thread_ts)
    wait_for(lambda: since.calls("chat.startStream"))
    stopped = harness.slack.stop_in_thread(DIGEST_CHANNEL, thread_ts)
    assert harness.event(agent_session_stopped(HUMAN, DIGEST_CHANNEL, thread_ts, stopped)).status_code == 200
    stream = wait_for(lambda: harness.model.streams)[0]
    assert stream.settled.wait(10)
    assert stream.cut and len(stream.pieces) < 104
    harness.settle()
    assert since.calls("chat.update") == [] and since.calls("chat.postMessage") == []
    (message,) = harness.slack.streamed()
    assert message["ts"] in stopped and message["stream"] == "stopped_by_user"


def test_stop_pressed_before_any_words_ends_the_model_call_and_clears_the_status(harness: SlackHarness) -> None:
    thread_ts, since = setup_thread(harness)
    harness.model.chunk_delay = 0.4  # the model is slow to begin: only the status shows
    harness.model.stream_script = ["It fuses ", "the MoE ", "dispatch kernels. ", *["More words. "] * 20]
    ask(harness, thread_ts)
    wait_for(lambda: harness.slack.statuses)
    assert harness.event(agent_session_stopped(HUMAN, DIGEST_CHANNEL, thread_ts, [])).status_code == 200
    stream = wait_for(lambda: harness.model.streams)[0]
    assert stream.settled.wait(10)
    assert stream.cut and len(stream.pieces) < 6  # closed within a poll of the mark, not at the end
    harness.settle()
    # Nothing was shown, nothing is: the status is cleared, no stream, no placeholder, no post.
    assert [status["status"] for status in harness.slack.statuses] == ["Reading #50911…", ""]
    assert stream_calls(since) == []
    assert since.calls("chat.postMessage") == [] and since.calls("chat.update") == []


def test_a_stop_is_for_the_answer_in_progress_not_the_threads_next_one(harness: SlackHarness) -> None:
    """Slack sends the Stop's own time (event_ts); a Stop pressed before a question was asked,
    however late it arrives, is an earlier answer's."""
    thread_ts, since = setup_thread(harness)
    harness.model.chunk_delay = 0.4
    harness.model.stream_script = ["It fuses ", "the MoE ", "dispatch kernels. ", *["More words. "] * 20]
    first, _ = harness.thread_reply(DIGEST_CHANNEL, thread_ts, f"what does #{NUMBER} change?")
    wait_for(lambda: harness.slack.statuses)
    pressed = float(first)  # Slack's clock, as the question's ts is
    harness.event(agent_session_stopped(HUMAN, DIGEST_CHANNEL, thread_ts, [], at=pressed))
    assert wait_for(lambda: harness.model.streams)[0].settled.wait(10)
    harness.settle()
    harness.model.chunk_delay = 0.2
    harness.model.stream_script = ["It fuses the MoE dispatch kernels. ", "Decode is 12% faster."]
    ask(harness, thread_ts)
    wait_for(lambda: since.calls("chat.startStream"))
    # The first answer's Stop delivered again (a retry), while the second answer streams.
    harness.event(agent_session_stopped(HUMAN, DIGEST_CHANNEL, thread_ts, [], at=pressed))
    (ended,) = wait_for(lambda: since.calls("chat.stopStream"))
    assert streamed_text(since) == "It fuses the MoE dispatch kernels. Decode is 12% faster."
    assert ended["channel"] == DIGEST_CHANNEL


def test_a_recital_of_our_prompt_spread_over_sentences_is_cut_and_replaced(harness: SlackHarness) -> None:
    """Each sentence alone passes; together they recite the prompt. Once that shows, nothing more
    is streamed, the model call is closed, and the message ends as the reply, without it."""
    thread_ts, since = setup_thread(harness)
    words = answer_prompt("DATA", "en").system.split()[:80]
    harness.model.chunk_delay = 0.05  # the model is still writing when the recital shows
    harness.model.stream_script = [
        "It fuses the MoE dispatch kernels. ",
        *(" ".join(words[i : i + 4]).rstrip(".") + ". " for i in range(0, len(words), 4)),
    ]
    ask(harness, thread_ts)
    wait_for(lambda: since.calls("chat.stopStream"))
    (update,) = wait_for(lambda: since.calls("chat.update"))
    stream = harness.model.streams[0]
    assert stream.settled.wait(10) and stream.cut  # closed once the recital showed
    (message,) = harness.slack.streamed()
    assert not echoes_prompt(message["text"]) and not echoes_prompt(json.dumps(update))
    assert not echoes_prompt(streamed_text(since))


def test_a_fast_models_short_sentences_go_out_together_not_one_call_each(harness: SlackHarness) -> None:
    thread_ts, since = setup_thread(harness)
    harness.model.stream_script = ["It fuses the MoE dispatch kernels. "] * 30
    ask(harness, thread_ts)
    wait_for(lambda: since.calls("chat.update"))
    # The first sentence at once, then ~256 characters a call: 30 sentences in a handful of calls.
    assert len(since.calls("chat.startStream")) == 1
    assert len(since.calls("chat.appendStream")) <= 5
    assert streamed_text(since).strip() == ("It fuses the MoE dispatch kernels. " * 30).strip()


def test_a_reply_that_is_not_the_models_keeps_the_placeholder_path(harness: SlackHarness) -> None:
    thread_ts, since = setup_thread(harness)
    _, response = harness.thread_reply(DIGEST_CHANNEL, thread_ts, "what about #1 and #2?")
    assert response.status_code == 200
    (update,) = wait_for(lambda: since.calls("chat.update"))
    (status,) = harness.slack.statuses
    assert re.fullmatch(r"Reading #1…", status["status"])
    assert since.calls("chat.postMessage") and not stream_calls(since)
    assert "Which one do you mean" in update["text"]


def test_a_mention_is_answered_with_a_status_and_a_stream_in_its_thread(harness: SlackHarness) -> None:
    _, since = setup_thread(harness)
    harness.model.stream_script = ["It fuses the MoE dispatch kernels."]
    ts, response = harness.mention(DIGEST_CHANNEL, f"what does {REPO}#{NUMBER} change?")
    assert response.status_code == 200
    wait_for(lambda: since.calls("chat.update"))
    (status,) = harness.slack.statuses
    assert status["thread_ts"] == ts and status["status"] == f"Reading #{NUMBER}…"
    (started,) = since.calls("chat.startStream")
    assert started["thread_ts"] == ts and started["recipient_user_id"] == HUMAN
    assert streamed_text(since) == "It fuses the MoE dispatch kernels."


def test_a_stream_slack_breaks_part_way_is_replaced_by_the_whole_answer(harness: SlackHarness) -> None:
    thread_ts, since = setup_thread(harness)
    harness.slack.fail_next("chat.appendStream", "internal_error")
    harness.model.stream_script = ["It fuses the MoE dispatch kernels. ", "Decode is 12% faster. ", "On H100."]
    ask(harness, thread_ts)
    (update,) = wait_for(lambda: since.calls("chat.update"))
    assert "It fuses the MoE dispatch kernels. Decode is 12% faster. On H100." in update["text"]
    (message,) = harness.slack.streamed()
    assert message["stream"] == "stopped" and message["ts"] == update["ts"]
    assert not [problem for problem in harness.slack.rejections if problem.error == "streaming_state_conflict"]
