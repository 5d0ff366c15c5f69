"""Heuristic cards that read the description: verdicts a reader would give, the key figure in the
headline, the author's own sentences as points, every claim grounded, and the rules that decided."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import get_args

import pytest

from bot.cards.heuristic.cards import heuristic_card
from bot.core.heuristic.description import read_description
from bot.core.heuristic.signals import verdict_rules
from bot.core.prompting.context import build_context
from bot.models import Audience, Card, DigestItem, DigestThread, Language, PRSnapshot, Rule, SignalKind, Why, Window
from bot.render.slack.replies import why_message
from bot.words import CATALOGUES
from tests.unit.builders import MERGED_AT, make_comment, make_snapshot
from tests.unit.descriptions import (
    ALL,
    BENCHMARK_TABLE,
    CHINESE_BODY,
    DEPENDABOT,
    DESIGN_NOTE,
    EMPTY_TEMPLATE,
    HOSTILE,
    LATENCY_PERCENT,
    MEMORY_SAVING,
    REVERT,
    ROOT_CAUSE_FIX,
    Example,
)
from tests.unit.test_catalogue import english_in
from tests.unit.test_faithfulness import _heuristic_check
from tests.unit.test_trust_services import services

# The labels of the description's points, as the catalogue writes them.
_QUOTE_LABEL = re.compile(r"^(?:Root cause|Why|Result|Design|Change|Summary|根因|原因|效果|设计|改动|概述)[:：] ?")


def card_of(example: Example | PRSnapshot, language: Language = "en") -> Card:
    snapshot = example.snapshot() if isinstance(example, Example) else example
    return heuristic_card(snapshot, build_context(snapshot, 12_000).coverage, language)


def quotes(card: Card) -> list[str]:
    """The points that quote the description, without their label."""
    return [_QUOTE_LABEL.sub("", point) for point in card.why if _QUOTE_LABEL.match(point)]


# -- verdicts a reader would give ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "verdict"),
    [
        ("root_cause_fix", "read"),  # a hang explained down to the race, with the decision taken
        ("benchmark_table", "read"),  # a kernel change with its measurements
        ("memory_saving", "read"),  # 42 lines that free 6 GiB: worth knowing how
        ("design_note", "read"),  # a new parser, its design argued and reviewed at length
        ("latency_percent", "read"),
        ("chinese_body", "read"),
        ("revert", "skim"),  # what broke is worth a minute; the code is going away
        ("empty_template", "skim"),  # nothing said: its size decides, as before
        ("hostile", "skim"),  # a claim alone does not make six lines a careful read
        ("dependabot", "skip"),  # generated, whatever its release notes boast
        ("renovate_lock", "skip"),
        ("docs_typo", "skip"),
        ("ci_one_line", "skip"),  # an explained one-line CI edit is still a one-line CI edit
    ],
)
def test_the_verdict_is_the_one_a_reader_would_give(name: str, verdict: str) -> None:
    assert card_of(ALL[name]).verdict == verdict


def test_a_tiny_change_with_an_explanation_is_worth_a_skim_and_without_one_is_skipped() -> None:
    files = [("vllm/model_executor/layers/fused_moe/humming.py", 1, 0)]
    body = "The backend's activation whitelist (`_supports_activation`) now includes SiTU, which Kimi-K3 uses."
    assert card_of(make_snapshot(files, title="[MoE] Support SiTU", body=body)).verdict == "skim"
    assert card_of(make_snapshot(files, title="[MoE] Support SiTU")).verdict == "skip"


def test_a_stated_result_raises_a_small_change_and_a_large_one_raises_it_further() -> None:
    files = [("vllm/v1/attention/backends/mla.py", 20, 5)]
    plain = card_of(make_snapshot(files, title="Use the fused path"))
    small = card_of(make_snapshot(files, title="Use the fused path", body="Decode gets 8% faster on H100."))
    large = card_of(make_snapshot(files, title="Use the fused path", body="The fused path makes `decode()` 3x faster."))
    assert (plain.verdict, small.verdict, large.verdict) == ("skip", "skim", "read")


def test_a_root_cause_section_on_a_small_fix_is_a_skim_and_on_a_real_one_a_read() -> None:
    body = "## Root cause\nThe pool frees a block twice when a request is aborted during eviction, so it is reused."
    small = card_of(make_snapshot([("vllm/v1/core/block_pool.py", 10, 2)], title="Fix double free", body=body))
    real = card_of(make_snapshot([("vllm/v1/core/block_pool.py", 50, 12)], title="Fix double free", body=body))
    assert (small.verdict, real.verdict) == ("skim", "read")


def test_a_long_review_thread_raises_the_verdict() -> None:
    files = [("vllm/v1/core/sched/scheduler.py", 20, 5)]
    people = [make_comment(f"This branch misses the preempted case {i}, does it not?") for i in range(25)]
    bots = [make_comment(f"Automated review {i}: consider renaming this.", author="gemini[bot]") for i in range(25)]
    assert card_of(make_snapshot(files)).verdict == "skip"
    assert card_of(make_snapshot(files, comments=people)).verdict == "skim"
    assert card_of(make_snapshot(files, comments=bots)).verdict == "skip"  # bots' reviews are no discussion


def test_a_bot_or_a_bump_is_skipped_whatever_its_description_claims() -> None:
    files = [("vllm/utils/helpers.py", 60, 10)]
    body = "## Root cause\nThe old version leaked memory because of a bug in the allocator, fixed upstream.\n"
    bot = make_snapshot(files, title="Refresh helpers", body=body, author="pre-commit-ci[bot]")
    assert card_of(bot).verdict == "skip"
    bump = make_snapshot([("requirements/cuda.txt", 1, 1)], title="Bump flashinfer from 0.6.7 to 0.6.8", body=body)
    assert card_of(bump).verdict == "skip"


def test_a_title_that_upgrades_and_does_more_is_not_a_bump() -> None:
    files = [("vllm/entrypoints/chat_utils.py", 30, 40)]
    card = card_of(make_snapshot(files, title="Upgrade MiniJinja to 2.22 & remove the method lookup workaround"))
    assert card.verdict == "skim"


def test_a_pr_whose_files_were_not_read_is_judged_from_its_title_and_description() -> None:
    body = "## Root cause\nThe sampler synchronises with the GPU on every step because of a `.item()` call.\n"
    body += "Top-k gets 2.4x faster."
    snapshot = make_snapshot(complete=False, title="[Perf] Faster top-k", body=body)
    card = card_of(snapshot)
    assert card.verdict == "read"
    assert card.caveats == ("Files not read: GitHub's rate limit ran out; verdict from the title and description",)
    assert card_of(make_snapshot(complete=False, title="[Perf] Faster top-k")).caveats == (
        "Files not read: GitHub's rate limit ran out; verdict from the title only",
    )


# -- headline ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("example", "headline"),
    [
        (
            BENCHMARK_TABLE,
            "[Perf] Use a persistent grid for the FP8 block-scaled GEMM on Hopper — up to 1.61x speedup (batch 1)",
        ),
        (
            MEMORY_SAVING,
            "[Core] Release the sampler's logits buffer before CUDA graph capture — "
            "reduces peak memory from 18.2 GiB to 12.1 GiB",
        ),
        (
            LATENCY_PERCENT,
            "[Perf] Overlap the scheduler with the model's forward pass — TTFT p50 drops 18% and TPOT p50 drops 7%",
        ),
        (CHINESE_BODY, "[Perf] 为 MoE 路由预先分配 workspace — 解码提速 1.8 倍"),
        (
            REVERT,
            'Revert "[Perf] Batch the detokenizer across requests" (#50123) — #50123 caused a 30% throughput '
            "regression on H100",
        ),
    ],
)
def test_the_headline_carries_the_descriptions_key_figure(example: Example, headline: str) -> None:
    assert card_of(example).headline == headline


def test_a_title_with_its_own_figure_gets_no_second_one() -> None:
    body = "Also 1.2x faster prefill on H100."
    card = card_of(make_snapshot([("vllm/a.py", 50, 1)], title="[Perf] 2x faster decode", body=body))
    assert card.headline == "[Perf] 2x faster decode"


def test_a_long_title_is_cut_to_leave_room_for_the_figure_and_the_limit_holds() -> None:
    title = "Restructure the prefix cache eviction path so that blocks freed by aborted requests are reused sooner"
    body = "Peak memory drops by 2.5 GiB on long-context workloads."
    card = card_of(make_snapshot([("vllm/a.py", 50, 1)], title=title, body=body))
    assert len(card.headline) <= 120
    # The figure keeps its words; the title gives way.
    assert card.headline.endswith("requests are… — Peak memory drops by 2.5 GiB")
    zh = card_of(
        make_snapshot([("vllm/a.py", 50, 1)], title="重写前缀缓存的淘汰路径" * 4, body="峰值显存降低 2.5 GiB。")
    )
    assert len(zh.headline) <= 60


def test_a_zh_card_words_the_join_in_chinese_and_keeps_the_prs_words() -> None:
    card = card_of(MEMORY_SAVING, "zh-CN")
    assert card.headline == (
        "[Core] Release the sampler's logits buffer before CUDA graph capture："
        "reduces peak memory from 18.2 GiB to 12.1 GiB"
    )
    assert card_of(BENCHMARK_TABLE, "zh-CN").headline.endswith("：最高 1.61x speedup（batch 1）")


# -- the description's own sentences as points ---------------------------------------------------


def test_why_points_quote_a_root_cause_a_decision_and_the_fix() -> None:
    card = card_of(ROOT_CAUSE_FIX)
    labels = [point.split(":")[0] for point in card.why]
    assert labels == ["Root cause", "Design", "Change"]
    assert card.why[1] == "Design: This keeps eviction O(1) per block instead of taking a lock on the free list."
    assert card.why[2].startswith("Change: Free aborted requests' blocks only after the eviction pass")


def test_a_design_note_gives_its_motivation_and_its_decision() -> None:
    card = card_of(DESIGN_NOTE)
    assert card.why[0] == "Why: Clients building agents want to show tool-call arguments as they are generated."
    assert card.why[1].startswith("Design: We chose a small hand-written scanner instead of a streaming JSON library")


@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_quoted_points_are_the_descriptions_words(name: str, language: Language) -> None:
    example = ALL[name]
    description = " ".join(sentence for _, sentence in read_description(example.body).sentences())
    for quote in quotes(card_of(example, language)):
        assert quote.removesuffix("…") in description, quote


def test_without_a_description_the_points_are_the_file_lists() -> None:
    card = card_of(EMPTY_TEMPLATE)
    assert card.why == (
        "Most of the change is in vllm/v1/engine/output_processor.py (+30 -14)",
        "Updates tests: tests/v1/engine/test_stop.py",
    )


def test_a_generated_description_is_neither_quoted_nor_used_for_the_headline() -> None:
    card = card_of(DEPENDABOT)
    assert card.headline == "Bump torch from 2.9.0 to 2.10.0"
    assert quotes(card) == []


def test_a_hostile_description_brings_no_mention_link_or_hidden_instruction() -> None:
    card = card_of(HOSTILE)
    shown = " ".join([card.headline, *card.why])
    assert "<!channel>" not in shown and "evil.example.com" not in shown and "previous instructions" not in shown


def test_zh_cards_word_their_own_sentences_in_chinese() -> None:
    card = card_of(ROOT_CAUSE_FIX, "zh-CN")
    assert [point.split("：")[0] for point in card.why] == ["根因", "设计", "改动"]
    ours = [_QUOTE_LABEL.match(point) for point in card.why]
    assert all(ours)
    # Without the PR's own words, nothing of our English catalogue is left.
    assert english_in(" ".join(match.group() for match in ours if match)) == []


# -- grounding -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_cards_that_read_the_description_state_only_what_the_pr_states(name: str, language: Language) -> None:
    card, unsupported = _heuristic_check(ALL[name].snapshot(), language)
    assert unsupported == [], card


# -- the rules that decided -----------------------------------------------------------------------


def _kinds(rules: tuple[Rule, ...]) -> list[tuple[str, bool]]:
    return [(rule.kind, rule.kept) for rule in rules]


def test_the_verdict_is_explained_by_its_rules() -> None:
    assert _kinds(verdict_rules(ROOT_CAUSE_FIX.snapshot())) == [
        ("size", True),
        ("root_cause", True),
        ("design", True),
        ("fixes", True),
        ("explains", True),
    ]
    assert ("figure", True) in _kinds(verdict_rules(BENCHMARK_TABLE.snapshot()))
    assert ("benchmark", True) in _kinds(verdict_rules(BENCHMARK_TABLE.snapshot()))
    assert _kinds(verdict_rules(DEPENDABOT.snapshot()))[1:3] == [("bot", False), ("dependencies", False)]
    assert ("revert", False) in _kinds(verdict_rules(REVERT.snapshot()))


def test_every_signal_has_words_for_what_it_does_in_both_languages() -> None:
    for kind in get_args(SignalKind):
        directions = ("in", "out") if kind in ("size", "unread") else ("in",) if kind in _RAISING else ("out",)
        for language, catalogue in CATALOGUES.items():
            for direction in directions:
                assert f"reply.{kind}_{direction}" in catalogue, (language, kind, direction)


_RAISING = frozenset(
    {"large", "cross_cutting", "tagged", "root_cause", "benchmark", "figure", "design", "reviews"}
    | {"fixes", "cause", "explains", "kernel", "api", "default"}
)


def test_a_why_question_about_a_heuristic_card_names_what_set_its_verdict() -> None:
    snapshot = ROOT_CAUSE_FIX.snapshot()
    wired = services(snapshot=snapshot)
    window = Window(MERGED_AT.replace(hour=0), MERGED_AT.replace(hour=23))

    def ask(card: Card) -> Why:
        item = DigestItem(snapshot.listing, card, size=151)
        thread = DigestThread("C1", "1.0", "2026-08-04", ("acme/widgets",), "en", (item,), window=window)
        reply = wired.qa.answer(
            "why is #101 here?",
            Audience(thread.channel, frozenset({"acme/widgets"}), "en", thread_ts=thread.thread_ts),
            thread,
        )
        assert isinstance(reply, Why)
        return reply

    heuristic = ask(wired.cards.fallback(snapshot, "en"))
    assert ("root_cause", True) in _kinds(heuristic.rules)
    shown = why_message(heuristic, "en").text
    assert "raises its verdict: its description has a root-cause section (Root cause)" in shown
    assert "raises its verdict: it says it fixes #48213" in shown
    zh = why_message(heuristic, "zh-CN").text
    assert "提高了评级：描述中有根因分析（Root cause）" in zh
    model = ask(replace(wired.cards.fallback(snapshot, "en"), source="llm"))
    assert [rule.kind for rule in model.rules] == ["repo", "window"]  # a model's verdict is its own
