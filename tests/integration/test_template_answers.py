"""A local model's chat template never reaches Slack: a digest thread's question answered with
template garbage gets the PR's card and a note, and a card written around template tokens is
posted without them. The served app, fake Slack, GitHub and model, real Redis."""

from __future__ import annotations

import json
import re
from typing import Any

from bot.models import DigestOptions, Filters, Window
from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import DIGEST_CHANNEL, SlackHarness, wait_for

WINDOW = Window(day(0), day(24))
NUMBER = 50911
HEADLINE = "Fuses the MoE dispatch kernels"
# What a Gemma 3 270M server answered to this question, as its server sent it.
GEMMA = "<s>[INST]I'll never want to have a conversation with the person in front of me…"
# Every spelling of a template token, as sent and as Slack would show it once escaped.
TEMPLATE = re.compile(
    r"(?:<|&lt;)/?(?:s|think|bos|eos|start_of_turn|end_of_turn)(?:>|&gt;)|\[/?INST\]|(?:<|&lt;)\|[a-z_]+\|(?:>|&gt;)"
)


def add_pr(harness: SlackHarness) -> None:
    harness.github.add_pr(
        REPO,
        NUMBER,
        title="[Perf] Fuse the MoE dispatch kernels",
        merged_at=day(2),
        files=[{"path": "vllm/moe/dispatch.py", "additions": 120, "deletions": 33}],
    )


def responder(answer: str) -> Any:
    """Cards and answers as a local server with the wrong chat template sends them."""

    def respond(request: dict[str, Any]) -> dict[str, Any] | str:
        if "response_format" in request:
            return {
                "headline": f"<start_of_turn>model\n{HEADLINE}<end_of_turn>",
                "verdict": "skim",
                "minutes": 5,
                "why": ["<|im_start|>assistant\nOne kernel launch per layer instead of several<|im_end|>"],
                "caveats": ["<think>the user wants caveats</think>No benchmark in the PR"],
                "watch": ["<s>[INST] what should I watch? [/INST]"],
            }
        return answer

    return respond


def post_digest(harness: SlackHarness) -> str:
    result = harness.parts.digests.run(
        DIGEST_CHANNEL, "2026-08-05", WINDOW, (REPO,), options=DigestOptions("en", Filters(), "note")
    )
    assert result is not None and result.thread_ts
    return result.thread_ts


def shown(message: dict[str, Any]) -> str:
    return json.dumps(message.get("blocks", [])) + (message.get("text") or "")


def replies(harness: SlackHarness, thread_ts: str) -> list[dict[str, Any]]:
    """The bot's answers in the thread: not the digest's parts, not the placeholder."""
    return [
        message
        for message in harness.slack.thread(DIGEST_CHANNEL, thread_ts)
        if message.get("bot_id")
        and harness.settled(message)
        and "Looking into it" not in (message.get("text") or "")
        and not (message.get("metadata") or {}).get("event_type")
    ]


def test_a_template_garbage_answer_is_replaced_by_the_card_and_a_note(harness: SlackHarness) -> None:
    add_pr(harness)
    harness.model.responder = responder(GEMMA)
    thread_ts = post_digest(harness)
    harness.thread_reply(DIGEST_CHANNEL, thread_ts, f"What does #{NUMBER} change?")
    (answer,) = wait_for(lambda: replies(harness, thread_ts))
    text = shown(answer)
    assert TEMPLATE.findall(text) == []
    assert "never want to have a conversation" not in text
    assert "The model's answer was not usable" in text
    assert HEADLINE in text and f"#{NUMBER}" in text


def test_a_card_written_around_template_tokens_is_posted_without_them(harness: SlackHarness) -> None:
    add_pr(harness)
    harness.model.responder = responder("<start_of_turn>model\nIt fuses the dispatch kernels.<end_of_turn>")
    thread_ts = post_digest(harness)
    digest = "\n".join(shown(message) for message in harness.slack.thread(DIGEST_CHANNEL, thread_ts))
    assert TEMPLATE.findall(digest) == []
    assert HEADLINE in digest and "No benchmark in the PR" in digest
    harness.thread_reply(DIGEST_CHANNEL, thread_ts, f"What does #{NUMBER} change?")
    (answer,) = wait_for(lambda: replies(harness, thread_ts))
    assert TEMPLATE.findall(shown(answer)) == []
    assert "It fuses the dispatch kernels." in shown(answer)


def test_an_answer_that_is_a_cards_json_is_replaced_by_the_card_and_a_note(harness: SlackHarness) -> None:
    """A model asked a question that answers with a card's JSON (the README's fake model did):
    nothing of the JSON is streamed or posted; the card comes with the line saying why."""
    add_pr(harness)
    card = json.dumps({"headline": "Fuses the dispatch kernels", "verdict": "skim", "minutes": 3, "why": []})
    harness.model.responder = responder(card)
    thread_ts = post_digest(harness)
    harness.thread_reply(DIGEST_CHANNEL, thread_ts, f"What does #{NUMBER} change?")
    (answer,) = wait_for(lambda: replies(harness, thread_ts))
    text = shown(answer)
    assert "The model's answer was not usable" in text
    assert HEADLINE in text and f"#{NUMBER}" in text
    sent = json.dumps(
        [args for method, args in harness.slack.all_calls() if method.startswith(("chat.", "assistant."))]
    )
    assert "headline" not in sent and "Fuses the dispatch kernels" not in sent
