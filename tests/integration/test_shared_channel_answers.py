"""Answers in a digest's thread apply the rule of `/pr`: a channel hears only about the
repositories it may see. Private titles and paths reach neither the channel nor the model once
the channel configured for them is shared with another organisation."""

from __future__ import annotations

import json
from typing import Any

from bot.models import DigestOptions, Filters, Window
from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import (
    DIGEST_CHANNEL,
    HUMAN,
    OTHER_CHANNEL,
    OTHER_REPO,
    SlackHarness,
    wait_for,
)

WINDOW = Window(day(0), day(24))
DAY = "2026-08-05"
PRIVATE_PRS = {
    7: ("Move billing invoices to the new ledger", "billing/invoices.py"),
    8: ("Billing: retry failed card charges", "billing/charges.py"),
    9: ("Rotate the internal signing keys", "keys/rotate.py"),
}
PRIVATE_HEADLINE = "Quietly reworks invoicing"
# What must not be told outside the channel's own organisation: titles, paths, card text.
SECRETS = [text for title, path in PRIVATE_PRS.values() for text in (title, path)] + [PRIVATE_HEADLINE]


def responder(answer: str) -> Any:
    def respond(request: dict[str, Any]) -> dict[str, Any] | str:
        if "response_format" in request:
            private = any(title in json.dumps(request) for title, _ in PRIVATE_PRS.values())
            headline = PRIVATE_HEADLINE if private else "Speeds things up"
            return {"headline": headline, "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}
        return answer

    return respond


def add_private_prs(harness: SlackHarness, *, private: bool) -> None:
    harness.github.add_repo(OTHER_REPO, private=private)
    for number, (title, path) in PRIVATE_PRS.items():
        harness.github.add_pr(
            OTHER_REPO,
            number,
            title=title,
            merged_at=day(number * 0.5),
            files=[{"path": path, "additions": 40, "deletions": 2}],
        )


def leaked(texts: list[str]) -> list[str]:
    joined = "\n".join(texts)
    return [secret for secret in SECRETS if secret in joined]


def posted_since(harness: SlackHarness, before: set[str]) -> list[str]:
    """Everything the bot told Slack since `before` (message ts): new messages, edits, ephemerals."""
    return [json.dumps(m) for m in bot_messages(harness) if m["ts"] not in before] + [
        json.dumps(e) for e in harness.slack.ephemeral
    ]


def bot_messages(harness: SlackHarness) -> list[dict[str, Any]]:
    return [m for m in harness.slack.all_messages() if m.get("bot_id")]


def sent_to_model(harness: SlackHarness, since: int) -> list[str]:
    return [json.dumps(request) for request in harness.model.chat_requests()[since:]]


def ask_in_thread(harness: SlackHarness, thread_ts: str, text: str) -> None:
    harness.thread_reply(OTHER_CHANNEL, thread_ts, text)


def mention_in_thread(harness: SlackHarness, thread_ts: str, text: str) -> None:
    ts = harness.slack.add_message(OTHER_CHANNEL, f"<@UBOT> {text}", thread_ts=thread_ts)
    event = {"type": "app_mention", "channel": OTHER_CHANNEL, "user": HUMAN, "text": f"<@UBOT> {text}", "ts": ts}
    harness.event({**event, "thread_ts": thread_ts})


def test_a_shared_channel_hears_nothing_of_its_private_digest_and_the_model_is_not_asked(
    harness: SlackHarness,
) -> None:
    add_private_prs(harness, private=True)
    harness.model.responder = responder("It moves invoices into `billing/invoices.py`.")
    result = harness.parts.digests.run(
        OTHER_CHANNEL, DAY, WINDOW, (OTHER_REPO,), options=DigestOptions("en", Filters(), "note")
    )
    assert result is not None and result.thread_ts
    thread_ts = result.thread_ts
    # While the channel is the organisation's own, its thread is answered, and the answer (which
    # names a private path) remembered.
    ask_in_thread(harness, thread_ts, "which of these touch billing?")
    wait_for(lambda: len(harness.slack.calls("chat.update")) == 1)
    assert harness.slack.ephemeral == []

    # The channel is shared with another organisation; the hour of remembered sharing is over.
    harness.slack.channel_info[OTHER_CHANNEL] = {"is_ext_shared": True, "is_shared": True}
    harness.services.kv.delete(f"sharing:{OTHER_CHANNEL}")
    before = {m["ts"] for m in harness.slack.all_messages()}
    updates, model_requests = len(harness.slack.calls("chat.update")), len(harness.model.chat_requests())

    questions = [
        "tell me about the billing one",  # several PRs fit: was a public list of private titles
        "which of these touch billing?",  # digest-wide: was private titles and paths sent to the model
        "why is #7 here?",
        "and what about its tests?",  # a follow-up naming no PR: was digest-wide, with the earlier answer
    ]
    for question in questions:
        ask_in_thread(harness, thread_ts, question)
    mention_in_thread(harness, thread_ts, "summarize the billing changes")
    # Each question is settled by a refusal to the asker or an answer in the thread (an edit).
    asked = len(questions) + 1
    wait_for(lambda: len(harness.slack.ephemeral) + len(harness.slack.calls("chat.update")) - updates == asked)

    assert leaked(posted_since(harness, before)) == []
    assert leaked(sent_to_model(harness, model_requests)) == []
    refusals = harness.slack.ephemeral
    assert len(refusals) == asked and {refusal["user"] for refusal in refusals} == {HUMAN}
    # "#7" is refused as the PR's, naming no private repository it did not type; everything else
    # as the digest's, naming nothing.
    said = sorted(refusal["text"] for refusal in refusals)
    assert said == sorted(
        ["This digest's repositories can't be discussed in this channel any more."] * 4
        + ["This channel is set up for other repositories, so I can't answer about a private repository here."]
    )
    assert len(harness.model.chat_requests()) == model_requests
    assert [m for m in bot_messages(harness) if m["ts"] not in before] == []
    assert len(harness.slack.calls("chat.update")) == updates


def test_a_thread_with_another_repositorys_prs_answers_only_about_its_own(harness: SlackHarness) -> None:
    """A digest posted (by `digest --post`) with a repository the channel is not configured for:
    its PRs are in the thread's cards, but no answer may name them or send them to the model."""
    add_private_prs(harness, private=False)
    harness.github.add_pr(
        REPO,
        1201,
        title="Billing meter for the API server",
        merged_at=day(2),
        files=[{"path": "vllm/billing/meter.py", "additions": 40, "deletions": 2}],
    )
    harness.github.add_pr(
        REPO, 1202, title="Faster sampler", merged_at=day(3), files=[{"path": "vllm/sampler.py", "additions": 9}]
    )
    harness.model.responder = responder("It adds a meter in `vllm/billing/meter.py`.")
    result = harness.parts.digests.run(
        DIGEST_CHANNEL, DAY, WINDOW, (REPO, OTHER_REPO), options=DigestOptions("en", Filters(), "note")
    )
    assert result is not None and result.thread_ts
    thread_ts = result.thread_ts
    harness.github.add_repo(OTHER_REPO, private=True)  # and it has since become private
    before = {m["ts"] for m in harness.slack.all_messages()}
    model_requests = len(harness.model.chat_requests())

    def ask(text: str, answered: int) -> str:
        harness.thread_reply(DIGEST_CHANNEL, thread_ts, text)
        wait_for(lambda: len(harness.slack.calls("chat.update")) == answered)
        return json.dumps(harness.slack.calls("chat.update")[-1])

    # Digest-wide (asked first, so the thread has no previous PR): the model's answer, then,
    # with the model down, the digest's PRs whose words match.
    ask("which of these touch the sampler or billing?", 1)
    harness.model.responder = responder(" ")  # an empty answer counts as the model failing
    matches = ask("which of these touch the sampler or billing?", 2)
    harness.model.responder = responder("It adds a meter in `vllm/billing/meter.py`.")
    assert "1201" in matches and "1202" in matches and "widgets" not in matches
    one = ask("tell me about the billing one", 3)  # several fit, but only #1201 of this channel's
    assert "1201" in one and "widgets" not in one

    assert leaked(posted_since(harness, before)) == []
    sent = sent_to_model(harness, model_requests)
    assert len(sent) >= 3 and leaked(sent) == []
    assert "Billing meter for the API server" in sent[0]  # the digest-wide request had this channel's PRs
    assert harness.slack.ephemeral == []
