"""A private repository's name counts as typed (access/disclosure.py `typed`) only as a whole
GitHub name: typed inside a longer one (another repository, a fork's owner, a dotted or dashed
name) it is not, and a reply in a shared channel still says "a private repository"."""

from __future__ import annotations

import pytest

from bot.access.disclosure import PRIVATE_REPO, Disclosure, typed
from bot.models import Note
from bot.words import said

PRIVATE = "initech/tps-reports"
SHARED = "C0CONNECT1"


def rule() -> Disclosure:
    return Disclosure(lambda repo: repo.lower() == PRIVATE, lambda channel: channel == SHARED)


@pytest.mark.parametrize(
    "question",
    [
        "is initech/tps-reports.old still built?",  # a repository whose name goes on after a dot
        "see initech/tps-reports.v2#3",
        "what about initech/tps-reports-archive?",
        "initech/tps-reports_2024#1",
        "and initech/tps-reports2?",
        "my-initech/tps-reports#4",  # another owner's fork
        "https://github.com/old.initech/tps-reports/pull/5",
        "xinitech/tps-reports",
    ],
)
def test_a_private_name_typed_only_inside_a_longer_one_is_still_concealed(question: str) -> None:
    assert not typed(PRIVATE, question)
    note = Note("reply.across_not_found", {"repo": PRIVATE})
    concealed = rule().conceal(note, SHARED, question)
    assert concealed == Note("reply.across_not_found", {"repo": PRIVATE_REPO})
    for language in ("en", "zh-CN"):
        assert PRIVATE not in said(language, concealed).lower()


@pytest.mark.parametrize(
    "question",
    [
        "is initech/tps-reports still built?",
        "(initech/tps-reports)",
        "initech/tps-reports, please.",
        "Initech/TPS-Reports#5",
    ],
)
def test_the_whole_name_typed_is_said_back(question: str) -> None:
    assert typed(PRIVATE, question)
    note = Note("reply.across_not_found", {"repo": PRIVATE})
    assert rule().conceal(note, SHARED, question) == note
