"""A count of 1 in English: "1 of them has no card yet", not "1 of them have" (bot/words en.ONE,
picked by `text`); every other count keeps its sentence, and Chinese, with no plural, is untouched."""

from __future__ import annotations

import string

import pytest

from bot.models import Note
from bot.words import en, said, text, zh_cn


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


@pytest.mark.parametrize("key", sorted(en.ONE))
def test_each_singular_stands_for_a_sentence_and_uses_only_its_placeholders(key: str) -> None:
    counted, singular = en.ONE[key]
    assert key in en.WORDS
    assert _placeholders(singular) <= _placeholders(en.WORDS[key]), key  # "in the last day" needs no {n}
    assert counted in _placeholders(en.WORDS[key]), key


def test_one_of_them_has_and_two_of_them_have() -> None:
    assert text("en", "reply.across_title_only", n=1) == (
        "1 of them has no card yet, so it was matched on its title and labels only."
    )
    assert text("en", "reply.across_title_only", n=2) == (
        "2 of them have no card yet, so they were matched on their titles and labels only."
    )
    assert text("en", "reply.across_queued", n=1).startswith("1 of them has no card yet: it is being made now")


def test_one_of_sixty_prs_was_judged_from_its_title() -> None:
    note = Note("note.rate_limited_anonymous", {"count": 1, "shown": 60})
    assert said("en", note).startswith("GitHub's rate limit ran out: 1 of 60 PRs was judged from its title only.")
    assert said("zh-CN", note) == zh_cn.WORDS["note.rate_limited_anonymous"].format(count=1, shown=60)


def test_one_pr_matches_and_the_one_pr_merged_does_not_mention() -> None:
    values: dict[str, str | int] = {"merged": 92, "repo": "o/r", "span": "in the last 7 days", "topic": "“attention”"}
    assert text("en", "reply.across_found", count=1, **values).startswith("1 of the 92 PRs merged in o/r in the ")
    assert " matches “attention” " in text("en", "reply.across_found", count=1, **values)
    assert " match “attention” " in text("en", "reply.across_found", count=3, **values)
    none = text("en", "reply.across_none", **{**values, "merged": 1})
    assert none.startswith("The 1 PR merged in o/r in the last 7 days does not mention “attention” in its title")


def test_a_count_given_as_text_is_counted_too() -> None:
    assert text("en", "reply.feedback_in", n="1", area="docs") == "ranked up: this channel marked 1 `docs` PR useful"
