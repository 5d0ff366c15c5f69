"""BREAKING in capitals, as a word of its own, marks a title (or a headline) a breaking change
(releases/upgrade_notes.py): wherever it stands in the title and whatever punctuation surrounds it.
In lower or mixed case it is an ordinary verb ("fix a bug breaking X"), and inside a longer word
(NONBREAKING, BREAKING_CHANGES.md) it is not the word."""

from __future__ import annotations

import pytest

from bot.models import UpgradeNote
from bot.releases.upgrade_notes import upgrade_notes


@pytest.mark.parametrize(
    "title",
    [
        "BREAKING: rename the KV connector options",
        "[V1] Rework the KV connector API (BREAKING)",
        "[Frontend] Rename the served-model flags - BREAKING",
        "[Core]BREAKING rework of the scheduler config",
        "Rework the scheduler config, BREAKING for plugins",
    ],
)
def test_breaking_in_capitals_anywhere_in_a_title_is_a_breaking_change(title: str) -> None:
    assert upgrade_notes([], title, ()) == [UpgradeNote("breaking", title)]


@pytest.mark.parametrize(
    "title",
    [
        "[Bugfix] Fix the tokenizer breaking on empty prompts",
        "Breaking up the scheduler into smaller modules",
        "[Bugfix] Stop Breaking the CUDA graph capture",
        "[CI] Mark the NONBREAKING checks optional",
        "[Doc] Fix the link to BREAKING_CHANGES.md",
        "[Misc] UNBREAKING the nightly build",
    ],
)
def test_breaking_in_lower_case_or_inside_a_word_is_no_upgrade_note(title: str) -> None:
    assert upgrade_notes([], title, ()) == []


def test_a_headline_in_capitals_counts_as_its_title_would() -> None:
    headline = "BREAKING: the v0 engine is gone"
    assert upgrade_notes([], "[Core] Clean up the engine", (), headline) == [UpgradeNote("breaking", headline)]
    assert upgrade_notes([], "[Core] Clean up the engine", (), "Stops breaking the v0 engine") == []
