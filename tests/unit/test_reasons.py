"""A card made without a model never gives a reason that argues the other way from its verdict
(core/heuristic/reasons.py defines it, cards/heuristic/cards.py and core/heuristic/signals.py keep
to it, `prdigest eval` counts it: cards/heuristic/point_names.py): a skip says nothing worth
reading, a read is not all reasons to skip. A diff of comments, docstrings or strings says so, and
is weighed as docs are."""

from __future__ import annotations

import itertools
from typing import get_args

import pytest

from bot.cards.heuristic.cards import heuristic_card
from bot.cards.heuristic.point_names import card_contradicts, point_name
from bot.core.eval_scores import CardRun, score_cards
from bot.core.heuristic.reasons import READING, SKIPPING, contradicts
from bot.core.heuristic.signals import WORTH_A_LOOK, verdict_rules
from bot.core.prompting.context import build_context
from bot.models import Card, Coverage, Language, PRSnapshot, Verdict
from bot.words import CATALOGUES
from tests.unit.builders import FileSpec, make_file, make_snapshot
from tests.unit.test_wording import MXFP6_DOCSTRING

LANGUAGES: tuple[Language, ...] = get_args(Language)
DOCS = ("docs/design/moe_kernel_features.md", 1, 1)
MXFP6 = "vllm/model_executor/kernels/linear/mxfp6/base.py"


def card_for(snapshot: PRSnapshot, language: Language = "en") -> Card:
    return heuristic_card(snapshot, build_context(snapshot, 12_000).coverage, language)


def names(card: Card) -> list[str | None]:
    return [point_name(text, card.language) for text in card.why]


def test_the_docs_pr_whose_code_diff_is_a_docstring_is_a_skip_that_says_so() -> None:
    # vllm-project/vllm#51014 as GitHub sends it: a docs page and one docstring line of a kernel file.
    snapshot = make_snapshot(
        [DOCS, make_file(MXFP6, 1, 1, patch=MXFP6_DOCSTRING)], title="[Docs] Fix two docs build warnings"
    )
    card = card_for(snapshot)
    assert card.verdict == "skip"
    assert card.why == (
        "Only docs, comments, docstrings or strings changed, no code: "
        "docs/design/moe_kernel_features.md, vllm/model_executor/kernels/linear/mxfp6/base.py",
    )
    assert not card_contradicts(card)
    assert [rule.kind for rule in verdict_rules(snapshot) if not rule.kept] == ["size", "wording", "no_source"]


def test_a_code_diff_of_the_same_files_is_kernel_code_and_a_skim() -> None:
    snapshot = make_snapshot([DOCS, (MXFP6, 1, 1)], title="[Docs] Fix two docs build warnings")
    card = card_for(snapshot)
    assert (card.verdict, card.why) == ("skim", (f"Kernel code changed: {MXFP6}",))
    assert [(rule.kind, rule.kept) for rule in verdict_rules(snapshot) if rule.kind == "kernel"] == [("kernel", True)]


def test_only_docstrings_in_code_is_weighed_as_docs_and_not_asked_for_tests() -> None:
    patch = '@@ -1,3 +1,3 @@ def free():\n     """Free the\n-    blocks.\n+    blocks, newest first.\n     """'
    card = card_for(make_snapshot([make_file("vllm/v1/core/block_pool.py", 1, 1, patch=patch)], title="Tidy"))
    assert card.verdict == "skip"
    assert card.why == ("Only comments, docstrings or strings changed, no code: vllm/v1/core/block_pool.py",)
    assert card.caveats == ()


def test_a_docstring_beside_real_code_leaves_the_code_to_be_judged() -> None:
    patch = '@@ -1,3 +1,3 @@\n     """Doc.\n-    old\n+    new\n     """'
    files: list[FileSpec] = [
        make_file("vllm/v1/core/block_pool.py", 1, 1, patch=patch),
        ("vllm/v1/core/sched.py", 30, 20),
    ]
    card = card_for(make_snapshot(files, title="Tidy the scheduler"))
    assert card.why[0] == "Most of the change is in vllm/v1/core/sched.py (+30 -20)"


@pytest.mark.parametrize(
    ("files", "first"),
    [
        ([("csrc/attention/paged.cu", 2, 1)], "Kernel code changed: csrc/attention/paged.cu"),
        ([("vllm/entrypoints/openai/cli_args.py", 2, 1)], "Changes what users call"),
        ([("vllm/v1/attention/ops/triton_decode.py", 3, 3), ("docs/a.md", 1, 1)], "Kernel code changed"),
    ],
)
def test_a_small_change_worth_a_look_is_a_skim_not_a_skip_that_argues_for_reading(
    files: list[FileSpec], first: str
) -> None:
    card = card_for(make_snapshot(files, title="[Docs] Fix a warning"))
    assert card.verdict == "skim"
    assert card.why[0].startswith(first)
    assert not card_contradicts(card)


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_bots_kernel_change_stays_a_skip_and_gives_no_reason_to_read(language: Language) -> None:
    snapshot = make_snapshot([("csrc/attention/paged.cu", 2, 1)], title="Apply the formatter", author="fmt[bot]")
    card = card_for(snapshot, language)
    assert card.verdict == "skip"
    # Where the change is, not "kernel code changed": a cap, not the change, made it a skip.
    assert card.why and not any(name in READING for name in names(card)), card.why
    assert not card_contradicts(card)


SHAPES: list[list[FileSpec]] = [
    [],
    [("csrc/a.cu", 1, 1)],
    [make_file("csrc/new_kernel.cu", 300, 0, status="added")],
    [("vllm/entrypoints/api_server.py", 5, 5)],
    [make_file("vllm/config/cache.py", 2, 2, patch="@@ -1,2 +1,2 @@\n-a = 1\n-b = 2\n+a = True\n+b = 3")],
    [(f"{area}/impl.py", 90, 10) for area in ("vllm/v1", "vllm/model_executor", "vllm/entrypoints", "csrc/moe")],
    [("docs/a.md", 40, 2)],
    [("tests/test_a.py", 40, 2)],
    [(".github/workflows/ci.yml", 3, 1)],
    [("requirements/cuda.txt", 1, 1)],
    [("vllm/v1/a.py", 1, 0)],
    [("vllm/v1/a.py", 900, 10), ("tests/test_a.py", 50, 0)],
]
TITLES = ["Tidy", "[Kernel] Fuse the path", 'Revert "Tidy"', "Bump torch from 2.9.0 to 2.10.0", "Fix typo"]
BODIES = ["", "## Root cause\nThe pool frees a block twice when a request is aborted during eviction, so it is reused."]
AUTHORS = ["alice", "renovate[bot]"]


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_shape_of_pr_gets_a_card_whose_reasons_contradict_its_verdict(language: Language) -> None:
    for files, title, body, author in itertools.product(SHAPES, TITLES, BODIES, AUTHORS):
        card = card_for(make_snapshot(files, title=title, body=body, author=author), language)
        assert not card_contradicts(card), (files, title, body, author, card.verdict, card.why)


@pytest.mark.parametrize(
    ("verdict", "reasons", "contradicted"),
    [
        ("skip", ["kind_kernel"], True),
        ("skip", ["most_in", "new_kernel"], True),
        ("skip", ["only_docs"], False),
        ("skip", [None], False),
        ("skim", ["kind_kernel", "only_tests"], False),
        ("read", ["only_tests"], True),
        ("read", ["kind_one_line", "only_wording"], True),
        ("read", ["point_cause", "only_tests"], False),
        ("read", ["kind_one_line", None], False),
        ("read", [], False),
    ],
)
def test_reasons_contradict_a_skip_that_argues_for_reading_or_a_read_that_argues_only_for_skipping(
    verdict: Verdict, reasons: list[str | None], contradicted: bool
) -> None:
    assert contradicts(verdict, reasons) == contradicted


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_leaning_sentence_is_told_back_from_its_words(language: Language) -> None:
    values = {"paths": "vllm/a.py, vllm/b.py", "path": "vllm/a.py", "code": "vllm/c.py", "count": 4, "text": "Why."}
    for name in READING | SKIPPING:
        shown = CATALOGUES[language][f"heuristic.{name}"].format(**values)
        assert point_name(shown, language) == name
    assert point_name(CATALOGUES[language]["heuristic.most_in"].format(area="vllm/v1", size=""), language) is None


def test_the_kinds_worth_a_look_are_the_change_kinds_that_argue_for_reading() -> None:
    assert set(WORTH_A_LOOK) == {name for name in READING if name.startswith(("kind_", "new_"))}


def test_the_eval_counts_a_heuristic_card_whose_reasons_contradict_its_verdict_and_no_models() -> None:
    def run(verdict: Verdict, why: str, source: str) -> CardRun:
        card = Card("Fix two docs build warnings", verdict, 1, (why,), (), (), source, Coverage(2, 2))  # type: ignore[arg-type]
        contradicted = card_contradicts(card)
        return CardRun("eval/vllm.jsonl:7", "vllm-project/vllm#51014", "skip", (), card, 0.1, None, (), contradicted)

    kernel = f"Kernel code changed: {MXFP6}"
    runs = [run("skip", kernel, "heuristic"), run("skim", kernel, "heuristic"), run("skip", kernel, "llm")]
    score = score_cards(runs)
    assert (score.reasoned, score.contradicted) == (2, 1)
