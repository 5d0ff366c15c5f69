"""The JSON object in a model's text answer: reasoning, fences and prose around it go; a line broken
inside a string is escaped; nothing else is repaired."""

from __future__ import annotations

import json

import pytest

from bot.llm.extract import MAX_STARTS, json_object_text, without_thinking

CARD = (
    '{"headline": "Decode 2.5x faster", "verdict": "skim", "minutes": 3, "why": ["a {b} c"], '
    '"caveats": [], "watch": []}'
)


@pytest.mark.parametrize(
    "answer",
    [
        CARD,
        f"  {CARD}\n",
        f"<think>\nThe card needs {{headline}} first.\n</think>\n{CARD}",
        f"<think>one</think><think>two {{ }}</think>{CARD}",
        f"<THINKING>plan</THINKING>\n{CARD}",
        f"```json\n{CARD}\n```",
        f"Here is the card:\n```json\n{CARD}\n```\nI hope it helps {{really}}.",
        f"<think>{{x}}</think>\nSure! ```\n{CARD}\n```",
        f"The card: {CARD} -- done.",
        f"I filled {{these}} fields: {CARD}",
    ],
)
def test_the_card_is_found_whatever_surrounds_it(answer: str) -> None:
    assert json.loads(json_object_text(answer)) == json.loads(CARD)


def test_the_outermost_object_is_taken_not_one_inside_it() -> None:
    nested = '{"headline": "x", "extra": {"inner": 1}}'
    assert json_object_text(f"text {nested} more") == nested


def test_an_answer_without_an_object_comes_back_stripped_for_the_schema_to_refuse() -> None:
    assert json_object_text("  I cannot write that card.  ") == "I cannot write that card."
    assert json_object_text('{"headline": "cut at the len') == '{"headline": "cut at the len'


def test_an_unfinished_thought_is_kept_since_no_answer_followed_it() -> None:
    assert without_thinking("<think>still thinking {") == "<think>still thinking {"
    assert json_object_text("<think>still thinking {") == "<think>still thinking {"


def test_prose_full_of_braces_is_searched_a_bounded_number_of_times() -> None:
    braces = "{ " * (MAX_STARTS * 10)
    assert json_object_text(braces + CARD) == (braces + CARD).strip()  # given up: the schema refuses it
    assert json_object_text("{ " * (MAX_STARTS - 1) + CARD) == CARD


def test_a_line_broken_inside_a_string_is_read_with_the_break_escaped() -> None:
    # What Gemma 3 270M wrote through llama-cpp-python: a raw newline in a point (JSON forbids it).
    broken = (
        '{"headline": "Fuse the shared expert", "verdict": "skim", "minutes": 3, "why": ["one\nline"], '
        '"caveats": [], "watch": []}'
    )
    text = json_object_text(broken)
    assert json.loads(text)["why"] == ["one\nline"]
    with pytest.raises(json.JSONDecodeError):
        json.loads(broken)  # strictly read, it is not JSON
