"""Which PRs a model's prose cites, and what is kept of it when it may cite only some (pure)."""

from __future__ import annotations

import pytest

from bot.core.checks.citations import Citable, cited, cites_only, keep_cited

SHOWN = Citable.of([("vllm-project/vllm", 50294), ("Vllm-Project/VLLM", 50911)])


@pytest.mark.parametrize(
    ("prose", "refs"),
    [
        ("Read #50294 first.", [(None, 50294)]),
        ("See vllm-project/vllm#912345.", [("vllm-project/vllm", 912345)]),
        ("PR 50911 and pull request #7.", [(None, 50911), (None, 7)]),
        ("https://github.com/vllm-project/vllm/pull/50911", [("vllm-project/vllm", 50911)]),
        ("<https://ghe.example/acme/w/issues/3|the issue>", [("acme/w", 3)]),
        ("[#12](https://github.com/a/b/pull/12)", [("a/b", 12), (None, 12)]),
        ("it&#39;s fine, no `#include` here, colour #fff", []),
    ],
)
def test_every_form_of_a_citation_is_read(prose: str, refs: list[tuple[str | None, int]]) -> None:
    assert cited(prose) == refs


def test_a_bare_number_may_be_any_shown_pr_a_named_repository_must_be_its_own() -> None:
    assert cites_only("Read #50294 and vllm-project/vllm#50911.", SHOWN)
    assert not cites_only("other/repo#50294 is it.", SHOWN)
    assert not cites_only("Read #50295.", SHOWN)


def test_a_sentence_citing_a_pr_not_shown_goes_whole_and_the_rest_stays() -> None:
    prose = (
        "The key change is #912345, which is large. Start with #50294; the rest are routine.\n"
        "- #50911 fixes the build\n- #7 adds docs\nThat is all."
    )
    assert (
        keep_cited(prose, SHOWN) == "Start with #50294; the rest are routine.\n- #50911 fixes the build\nThat is all."
    )
    assert keep_cited("Only #1 and #2 matter.", SHOWN) == ""
