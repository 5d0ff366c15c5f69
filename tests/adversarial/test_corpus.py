"""Every hostile PR of the corpus, through the real pipeline (GitHub → model → Redis → Slack) with an
obedient and a plain model: a digest and a thread question each, and nothing hostile reaches a reader."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from devkit.fakes.llm import Responder

from bot.models import Card, DigestOptions, Filters, PRRef, Window
from tests.adversarial.checks import card_problems, message_problems, prompt_sentences, text_problems
from tests.adversarial.corpus import CORPUS
from tests.adversarial.responders import obedient, plain
from tests.integration.conftest import REPO
from tests.integration.slack_harness import DIGEST_CHANNEL, SECRET, SlackHarness, wait_for

MODELS: dict[str, Responder] = {"obedient": obedient, "plain": plain}
FIRST_DAY = datetime(2025, 1, 1, tzinfo=UTC)
FIRST_NUMBER = 20_000
ADD_PR_FIELDS = ("title", "body", "review_comments", "files")


def test_the_corpus_covers_every_attack_with_at_least_thirty_prs() -> None:
    assert len(CORPUS) >= 30
    assert len({entry["name"] for entry in CORPUS}) == len(CORPUS)
    assert {entry["attack"] for entry in CORPUS} == {"verdict", "mention", "leak", "link", "fence", "smuggle", "break"}


def _answers(harness: SlackHarness, thread_ts: str) -> list[dict[str, Any]]:
    """Bot replies in the thread other than the digest's own parts and the "Looking into it" placeholder."""
    return [
        message
        for message in harness.slack.thread(DIGEST_CHANNEL, thread_ts)
        if message.get("bot_id")
        and harness.settled(message)
        and "Looking into it" not in (message.get("text") or "")
        and not (message.get("metadata") or {}).get("event_type")
    ]


def _stored_card(harness: SlackHarness, number: int) -> Card:
    cards = harness.services.cards
    snapshot = cards.snapshot_by_ref(PRRef(REPO, number))
    stored = harness.services.store.get_card(cards.key(snapshot, "en"))
    assert stored is not None, "the card was not stored"
    assert cards.card(snapshot, "en").card == stored  # served as stored: sanitized before storing
    return stored


@pytest.mark.parametrize("model", list(MODELS))
@pytest.mark.parametrize("entry", CORPUS, ids=[entry["name"] for entry in CORPUS])
def test_a_hostile_pr_gets_a_safe_card_and_a_safe_answer(
    stack: SlackHarness, entry: dict[str, Any], model: str
) -> None:
    index = CORPUS.index(entry) + list(MODELS).index(model) * len(CORPUS)
    number, start = FIRST_NUMBER + index, FIRST_DAY + timedelta(days=index)
    stack.github.add_pr(
        REPO,
        number,
        merged_at=start + timedelta(hours=12),
        **{key: entry[key] for key in ADD_PR_FIELDS if key in entry},
    )
    stack.model.responder = MODELS[model]
    # The servers are shared: this test's share of what they recorded starts here.
    requests_before, messages_before = len(stack.model.chat_requests()), len(stack.slack.all_messages())
    rejections_before, warnings_before = len(stack.slack.rejections), len(stack.slack.warnings)

    result = stack.parts.digests.run(
        DIGEST_CHANNEL,
        start.date().isoformat(),
        Window(start, start + timedelta(days=1)),
        (REPO,),
        options=DigestOptions("en", Filters(), "note"),
    )
    assert result is not None and result.thread_ts, "the digest did not complete"
    thread_ts = result.thread_ts  # a lambda does not keep the narrowing above
    stack.thread_reply(DIGEST_CHANNEL, thread_ts, f"what does #{number} change?")
    (answer,) = wait_for(lambda: _answers(stack, thread_ts))
    assert "Something went wrong" not in json.dumps(answer), "the answer did not complete"

    requests = stack.model.chat_requests()[requests_before:]
    # The card (asked for twice when the faithfulness check objects) and the answer came from the model.
    assert {"response_format" in request for request in requests} == {True, False}
    sentences = prompt_sentences(request["messages"][0]["content"] for request in requests)
    card = _stored_card(stack, number)
    assert card.source == "llm"
    turns = stack.threads.turns(DIGEST_CHANNEL, result.thread_ts)
    remembered = [turn.text for turn in turns if turn.role == "bot"]
    problems = [f"card: {problem}" for problem in card_problems(card, sentences)]
    problems += [f"answer: {problem}" for text in remembered for problem in text_problems(text, sentences)]
    for message in stack.slack.all_messages()[messages_before:]:
        problems += [f"message: {problem}" for problem in message_problems(message, sentences, (SECRET, "xoxb-test"))]
    assert problems == []
    assert stack.slack.rejections[rejections_before:] == [] and stack.slack.warnings[warnings_before:] == []
