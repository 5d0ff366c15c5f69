"""Every kind of reply has its words, in both languages (the renderer matches on the kind)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from bot.cards.heuristic.cards import heuristic_card
from bot.core.prompting.context import build_context
from bot.models import (
    CardReply,
    Choose,
    DigestAnswer,
    DigestMatches,
    Help,
    Language,
    NotAllowed,
    PRAnswer,
    PRNotFound,
    PRRef,
    Reply,
    Rule,
    Unavailable,
    Why,
    Window,
)
from bot.render.slack.replies import reply_message
from tests.unit.builders import make_listing, make_snapshot

LISTING = make_listing()
REF = PRRef("acme/widgets", 101)
WINDOW = Window(datetime(2026, 8, 4, tzinfo=UTC), datetime(2026, 8, 5, tzinfo=UTC))


def _card() -> CardReply:
    snapshot = make_snapshot()
    card = heuristic_card(snapshot, build_context(snapshot, 12_000).coverage, "en")
    return CardReply(snapshot.listing, card, ("a.py",), model_failed=True)


REPLIES: list[Reply] = [
    PRAnswer(LISTING, "It adds a cache in `a.py`.", _card().card, ("a.py",)),
    DigestAnswer("Two of them touch attention."),
    DigestMatches((LISTING,), model_failed=False),
    DigestMatches((), model_failed=True),
    Choose((LISTING, make_listing(number=102))),
    _card(),
    replace(_card(), unusable=True),
    NotAllowed(REF),
    NotAllowed(None),
    PRNotFound(REF),
    Unavailable(REF),
    Help(),
    Why(LISTING, (Rule("repo", True, "acme/widgets"), Rule("window", True, "2026-08-04 10:00")), True, WINDOW),
]


@pytest.mark.parametrize("language", ["en", "zh-CN"])
@pytest.mark.parametrize("reply", REPLIES, ids=lambda reply: f"{reply.kind}")
def test_every_reply_kind_is_worded(reply: Reply, language: Language) -> None:
    message = reply_message(reply, language, "/pr")
    assert message.text.strip()
    assert message.blocks


def test_a_refusal_names_only_what_was_asked() -> None:
    assert "acme/widgets" in reply_message(NotAllowed(REF, shown=REF.repo), "en", "/pr").text
    assert "acme/widgets" not in reply_message(NotAllowed(None), "en", "/pr").text


@pytest.mark.parametrize(
    ("reply", "intro"),
    [
        (replace(_card(), model_failed=False), "No model is configured"),
        (_card(), "The model is not answering right now"),
        (replace(_card(), unusable=True), "The model's answer was not usable"),
    ],
)
def test_a_card_in_place_of_an_answer_says_why(reply: CardReply, intro: str) -> None:
    message = reply_message(reply, "en", "/pr")
    assert message.text.startswith(intro)
    assert reply.card.headline in message.text


@pytest.mark.parametrize(
    ("up", "words"), [(True, "marked 3 `help wanted` PRs useful"), (False, "3 `help wanted` PRs not for us")]
)
def test_a_feedback_rule_names_its_count_and_area(up: bool, words: str) -> None:
    why = Why(LISTING, (Rule("feedback", up, prs=3, area="help wanted"),), True, WINDOW)
    assert words in reply_message(why, "en", "/pr").text
