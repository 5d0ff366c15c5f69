"""A hostile answer's links, in every form Slack's Markdown could make one of, never reach a
streamed call (chat.startStream, appendStream, stopStream) nor the reply that ends it: in a
digest's thread, on an @mention and in the DM. The PR's body is the attacker's, so the model
writes what it says. Through the real app, signed events, the model streaming from its fake."""

from __future__ import annotations

import json
from typing import Any

import pytest
from devkit.fakes.markdown_links import links_in_markdown, shown_text
from devkit.fakes.slack_agent import im_message

from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import DIGEST_CHANNEL, SlackHarness, wait_for
from tests.integration.test_bad_slack_input import digest_thread_ts

NUMBER = 50911
STREAM_METHODS = ("chat.startStream", "chat.appendStream", "chat.stopStream")
READER, READER_DM = "U0READER01", "D0READER01"
FIRST = "It fuses the MoE dispatch kernels. "
# The four answers of issue 23 (item 3), each after a harmless first sentence, with the words
# that must still be shown once the link is gone.
HOSTILE = {
    "scheme without slashes": (
        FIRST + "[Share in channel](http:evil.example/share) to tell the team.",
        "Share in channel",
    ),
    "angle link": (FIRST + "Log in at <http:evil.example/login|github.com/acme/widgets> first.", "Log in at"),
    "reference definition": (FIRST + "See [docs][1] for more.\n\n[1]: http:evil.example/ref", "See"),
    "backslash host": (FIRST + "Read [x](\\\\evil.example/y) before upgrading.", "before upgrading"),
}


def hostile_model(answer: str) -> Any:
    def respond(request: dict[str, Any]) -> Any:
        if "response_format" in request:
            return {"headline": "Fuses the MoE dispatch kernels", "verdict": "read", "minutes": 5}
        return answer

    return respond


def add_pr(harness: SlackHarness, answer: str) -> None:
    harness.github.add_pr(
        REPO,
        NUMBER,
        title="[Perf] Fuse the MoE dispatch kernels",
        body=f"Fuses the MoE dispatch kernels.\n\n{answer}",  # the attacker's words: its figures are the PR's
        merged_at=day(1),
        files=[{"path": "vllm/moe/dispatch.py", "additions": 40, "deletions": 3}],
    )
    harness.model.responder = hostile_model(answer)


def calls_since(harness: SlackHarness, before: dict[str, int], method: str) -> list[dict[str, Any]]:
    return harness.slack.calls(method)[before.get(method, 0) :]


def counts(harness: SlackHarness) -> dict[str, int]:
    return {method: len(harness.slack.calls(method)) for method in (*STREAM_METHODS, "chat.update")}


def ask_in_thread(harness: SlackHarness) -> dict[str, int]:
    thread_ts = digest_thread_ts(harness)
    before = counts(harness)
    _, response = harness.thread_reply(DIGEST_CHANNEL, thread_ts, f"what does #{NUMBER} change?")
    assert response.status_code == 200
    return before


def ask_on_mention(harness: SlackHarness) -> dict[str, int]:
    before = counts(harness)
    _, response = harness.mention(DIGEST_CHANNEL, f"what does {REPO}#{NUMBER} change?")
    assert response.status_code == 200
    return before


def ask_in_dm(harness: SlackHarness) -> dict[str, int]:
    before = counts(harness)
    text = f"what does {REPO}#{NUMBER} change?"
    ts = harness.slack.add_message(READER_DM, text, user=READER)
    assert harness.event(im_message(READER, READER_DM, text, ts)).status_code == 200
    return before


SURFACES = {"digest thread": ask_in_thread, "mention": ask_on_mention, "dm": ask_in_dm}


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize("form", HOSTILE)
def test_no_streamed_call_carries_a_link_the_reply_would_not(harness: SlackHarness, surface: str, form: str) -> None:
    answer, kept = HOSTILE[form]
    add_pr(harness, answer)
    before = SURFACES[surface](harness)
    (update,) = wait_for(lambda: calls_since(harness, before, "chat.update"))
    streamed = [args for method in STREAM_METHODS for args in calls_since(harness, before, method)]
    assert streamed, "the answer was streamed"
    for args in streamed:
        markdown = str(args.get("markdown_text") or "")
        assert links_in_markdown(markdown) == [], markdown
        assert "evil" not in shown_text(markdown)
    shown = shown_text("".join(str(args.get("markdown_text") or "") for args in streamed))
    assert shown.startswith(FIRST.strip()) and kept in shown  # the words stay; only the link goes
    assert "evil" not in json.dumps(update)
