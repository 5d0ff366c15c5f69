"""The rule of access/disclosure.py: in a channel shared with another organisation, a reply
names nothing private the asker did not type."""

from __future__ import annotations

import pytest

from bot.access.disclosure import PRIVATE_REPO, Disclosure, typed
from bot.models import Note
from bot.words import said

SECRET, PUBLIC = "acme/secret", "acme/widgets"
SHARED, OWN = "C0SHARED01", "C0OWN00001"


def disclosure(asked: list[str] | None = None) -> Disclosure:
    def shared(channel: str) -> bool:
        if asked is not None:
            asked.append(channel)
        return channel == SHARED

    return Disclosure(lambda repo: repo.lower() == SECRET, shared)  # GitHub ignores case in names


def test_a_private_repository_is_unnamed_only_in_a_shared_channel() -> None:
    rule = disclosure()
    assert rule.name(SHARED, SECRET) is None
    assert rule.name(OWN, SECRET) == SECRET
    assert rule.name(SHARED, PUBLIC) == PUBLIC
    assert rule.hidden(SHARED, ["ACME/Secret", PUBLIC]) == {SECRET}
    assert rule.hidden(OWN, [SECRET, PUBLIC]) == frozenset()


def test_a_public_repository_costs_no_question_about_the_channel() -> None:
    asked: list[str] = []
    assert disclosure(asked).name(SHARED, PUBLIC) == PUBLIC
    assert asked == []


@pytest.mark.parametrize(
    "question",
    [
        "what merged in acme/secret this week?",
        "ACME/Secret#7",
        "https://github.com/acme/secret/pull/7",
        "tell me about acme/secret.",
    ],
)
def test_a_name_the_asker_typed_is_named_back(question: str) -> None:
    assert typed(SECRET, question)
    assert disclosure().name(SHARED, SECRET, question) == SECRET


@pytest.mark.parametrize("question", ["#7", "what merged this week?", "acme/secrets#7", "xacme/secret#7"])
def test_a_name_only_inside_another_is_not_typed(question: str) -> None:
    assert not typed(SECRET, question)
    assert disclosure().name(SHARED, SECRET, question) is None


def test_a_refusal_in_a_shared_channel_is_told_without_the_name() -> None:
    refusal = Note("refusal.shared", {"repo": SECRET, "channel": SHARED})
    nothing = Note("error.nothing_to_post", {"channel": SHARED, "reasons": (refusal,)})
    concealed = disclosure().conceal(nothing, SHARED)
    assert concealed == Note(
        "error.nothing_to_post", {"channel": SHARED, "reasons": (Note("refusal.shared_unnamed", {"channel": SHARED}),)}
    )
    for language in ("en", "zh-CN"):
        assert SECRET not in said(language, concealed)
    assert disclosure().conceal(nothing, OWN) == nothing


def test_another_note_says_a_private_repository_for_the_name() -> None:
    note = Note("reply.across_not_found", {"repo": SECRET})
    assert disclosure().conceal(note, SHARED) == Note("reply.across_not_found", {"repo": PRIVATE_REPO})
    assert said("en", disclosure().conceal(note, SHARED)) == (
        "I can't find a private repository on GitHub (or I am not allowed to see it)."
    )
