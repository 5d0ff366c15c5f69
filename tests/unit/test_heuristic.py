"""Cards without a model: verdicts, points and headlines from a PR's title and file list.

These PRs have no description; test_heuristic_description.py has those that do."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

import pytest

from bot.cards.heuristic.cards import heuristic_card
from bot.core.heuristic.headlines import headline
from bot.core.prompting.context import NO_ROOM, build_context
from bot.models import Card, Coverage, Language, SkippedFile
from tests.unit.builders import FileSpec, make_file, make_snapshot

WRITE_PERMISSION_PATCH = "@@ -5,3 +5,3 @@ on:\n permissions:\n-  pull-requests: read\n+  pull-requests: write\n"


def card_for(
    files: Iterable[FileSpec] = (),
    *,
    language: Language = "en",
    coverage: Coverage | None = None,
    **fields: Any,
) -> Card:
    snapshot = make_snapshot(files, **fields)
    return heuristic_card(snapshot, coverage or build_context(snapshot, 12_000).coverage, language)


def texts(card: Card) -> list[str]:
    return [card.headline, *card.why, *card.caveats, *card.watch]


# -- verdicts -------------------------------------------------------------------------------------


def test_a_ci_only_change_is_skipped_and_a_widened_workflow_permission_is_a_caveat() -> None:
    workflow = make_file(".github/workflows/notify.yml", 1, 1, patch=WRITE_PERMISSION_PATCH)
    card = card_for([workflow], title="[ci] Update CI notify workflow with PR write permissions")
    assert (card.verdict, card.minutes) == ("skip", 1)
    assert card.why == ("Only CI files changed: .github/workflows/notify.yml",)
    assert "Workflow permissions changed: .github/workflows/notify.yml" in card.caveats


def test_a_large_ci_only_change_is_still_skipped() -> None:
    card = card_for([(".buildkite/test-pipeline.yaml", 400, 200), (".github/workflows/lint.yml", 30, 0)])
    assert card.verdict == "skip"


def test_a_docs_only_change_is_skipped() -> None:
    card = card_for([("docs/usage/guide.md", 300, 20), ("README.md", 4, 1)], title="[Doc] Rewrite the guide")
    assert (card.verdict, card.minutes) == ("skip", 1)
    assert card.why == ("Only docs changed: docs/usage/guide.md, README.md",)


def test_a_dependency_bump_is_skipped_with_the_files_named() -> None:
    card = card_for([("requirements/cuda.txt", 1, 1)], title="[CI/Build] Bump flashinfer to v0.6.8")
    assert card.verdict == "skip"
    assert card.headline == "[CI/Build] Bump flashinfer to v0.6.8"
    assert card.caveats == ("Dependency versions changed: requirements/cuda.txt",)


def test_a_lock_file_refresh_is_skipped() -> None:
    assert card_for([("uv.lock", 900, 850), ("requirements/common.txt", 2, 2)]).verdict == "skip"


def test_a_tiny_source_change_without_a_description_is_skipped() -> None:
    card = card_for([("vllm/models/kimi.py", 1, 0)], title="[MoE] Support SiTU activation for Kimi-K3")
    assert (card.verdict, card.minutes) == ("skip", 1)
    assert len(card.why) <= 1


def test_a_medium_source_change_is_skimmed() -> None:
    card = card_for([("vllm/v1/core/sched/scheduler.py", 80, 20), ("tests/v1/test_scheduler.py", 40, 0)])
    assert card.verdict == "skim"
    assert 2 <= card.minutes <= 10
    assert card.why[0] == "Most of the change is in vllm/v1/core/sched/scheduler.py (+80 -20)"
    assert "Updates tests: tests/v1/test_scheduler.py" in card.why


def test_a_large_source_change_is_a_read() -> None:
    card = card_for([("vllm/attention/backends/flydsl.py", 900, 10), ("tests/kernels/test_flydsl.py", 200, 0)])
    assert card.verdict == "read"
    assert 10 <= card.minutes <= 45


def test_a_cross_cutting_change_is_a_read_and_names_its_areas() -> None:
    files: list[FileSpec] = [
        ("vllm/model_executor/layers/linear.py", 80, 10),
        ("vllm/v1/core/kv_cache_manager.py", 60, 5),
        ("vllm/distributed/parallel_state.py", 50, 5),
        ("csrc/ops/cache.cu", 40, 0),
        make_file("tests/v1/test_cache.py", 30, 0, status="added"),
    ]
    card = card_for(files, title="Add NVFP4 KV scale search")
    assert card.verdict == "read"
    assert "Cross-cutting: source changes across vllm/model_executor, vllm/v1 and 2 more" in card.why
    assert "Adds tests: tests/v1/test_cache.py" in card.why


def test_a_perf_pr_with_real_source_changes_is_a_read() -> None:
    files = [("vllm/v1/sample/sampler.py", 120, 30)]
    assert card_for(files, title="[Perf] Avoid a sync in the sampler").verdict == "read"
    assert card_for(files, title="[Kimi K3 Perf] Avoid a sync in the sampler").verdict == "read"
    assert card_for(files, title="[Bugfix] Avoid a sync in the sampler").verdict == "skim"
    assert card_for([("vllm/v1/sample/sampler.py", 50, 10)], title="[Perf] Small tweak").verdict == "skim"


def test_a_revert_is_skipped_and_watched_for_a_re_land() -> None:
    card = card_for([("vllm/v1/core/sched.py", 400, 900)], title='Revert "[Perf] Faster scheduling" (#50123)')
    assert card.verdict == "skip"
    assert card.watch == ("Reverts #50123: watch for a re-land",)


def test_fixing_a_revert_path_is_not_a_revert() -> None:
    card = card_for([("vllm/v1/core/sched.py", 60, 9)], title="[Bugfix] Fix revert of preempted requests")
    assert card.verdict == "skim"
    assert card.watch == ()


@pytest.mark.parametrize(
    ("title", "verdict"),
    [
        ("[CI] Stabilize the GLM eval", "skip"),
        ("[Doc] Fix a broken link", "skip"),
        ("[Misc] Tidy imports", "skip"),
        ("Bump torch to 2.10", "skip"),
        ("Fix typo in scheduler", "skip"),
        ("[Perf] Faster top-k", "skim"),
        ("[Kernel] Fused MoE for SM100", "skim"),
        ("[Bugfix] Handle empty prompts", "skim"),
    ],
)
def test_an_incomplete_snapshot_is_judged_from_its_title_and_says_so(title: str, verdict: str) -> None:
    snapshot = make_snapshot(complete=False, title=title)
    coverage = build_context(snapshot, 4000).coverage
    card = heuristic_card(snapshot, coverage, "en")
    assert card.verdict == verdict
    assert card.caveats == ("Files not read: GitHub's rate limit ran out; verdict from the title only",)
    assert card.coverage.files_known is False


# -- caveats --------------------------------------------------------------------------------------


def test_code_without_tests_is_a_caveat() -> None:
    assert "Code changed, no test changed" in card_for([("vllm/engine/core.py", 60, 10)]).caveats
    with_tests = card_for([("vllm/engine/core.py", 60, 10), ("tests/engine/test_core.py", 5, 0)])
    assert "Code changed, no test changed" not in with_tests.caveats
    small = card_for([("vllm/engine/core.py", 10, 5)])
    assert "Code changed, no test changed" not in small.caveats


def test_a_docstring_pr_is_not_asked_for_tests() -> None:
    card = card_for([("vllm/engine/core.py", 30, 20)], title="[Docs] Fix docstrings in the engine")
    assert "Code changed, no test changed" not in card.caveats


def test_a_workflow_that_keeps_its_permissions_raises_no_caveat() -> None:
    patch = "@@ -1,2 +1,2 @@\n-  runs-on: ubuntu-22.04\n+  runs-on: ubuntu-24.04\n   permissions: {}\n"
    card = card_for([make_file(".github/workflows/ci.yml", 1, 1, patch=patch)])
    assert not any("permissions" in caveat for caveat in card.caveats)


def test_large_changes_and_binary_files_are_caveats() -> None:
    files: list[FileSpec] = [
        ("vllm/a.py", 1200, 100),
        ("tests/test_a.py", 300, 0),
        make_file("assets/plot.png", 0, 0, patch=None),
    ]
    card = card_for(files)
    assert "Large change: 3 files, +1500 -100" in card.caveats
    assert "Binary files changed: 1" in card.caveats


def test_a_partly_read_diff_is_a_caveat() -> None:
    partial = Coverage(files_total=2, files_read=1, skipped=(SkippedFile("vllm/b.py", NO_ROOM),))
    card = card_for([("vllm/a.py", 60, 0), ("vllm/b.py", 60, 0), ("tests/test_a.py", 9, 0)], coverage=partial)
    assert card.caveats[-1] == "Only part of the diff was read"
    assert card.coverage == partial


def test_at_most_three_caveats_three_whys_and_two_watches() -> None:
    files: list[FileSpec] = [
        make_file(".github/workflows/release.yml", 3, 0, patch="@@ -1 +1,3 @@\n+permissions:\n+  contents: write\n"),
        ("requirements/cuda.txt", 2, 2),
        ("vllm/a/b/c.py", 1500, 200),
        ("vllm/d/e.py", 300, 0),
        ("csrc/f.cu", 200, 0),
        ("cmake/g.cmake", 20, 0),
        make_file("vllm/new/module.py", 90, 0, status="added"),
        make_file("x.bin", 0, 0, patch=None),
    ]
    card = card_for(files, title='Revert "WIP: part 1 of the rewrite" (#4242)')
    assert len(card.why) <= 3
    assert len(card.caveats) == 3
    assert len(card.watch) == 2


# -- watch ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "word"),
    [
        ("[Core] Scheduler rework (1/3)", "(1/3)"),
        ("[Core] Scheduler rework, part 1", "part 1"),
        ("[WIP] Scheduler rework", "WIP"),
        ("Scheduler rework [2/N]", "[2/N]"),
    ],
)
def test_a_title_announcing_more_parts_is_watched(title: str, word: str) -> None:
    card = card_for([("vllm/a.py", 50, 0)], title=title)
    assert f"Follow-up likely: the title says “{word}”" in card.watch


def test_the_last_part_of_a_series_is_not_watched() -> None:
    assert card_for([("vllm/a.py", 50, 0)], title="Scheduler rework (3/3)").watch == ()


# -- zh-CN ----------------------------------------------------------------------------------------


def test_zh_cn_cards_are_written_in_chinese() -> None:
    workflow = make_file(".github/workflows/notify.yml", 1, 1, patch=WRITE_PERMISSION_PATCH)
    card = card_for([workflow], language="zh-CN", title="[ci] Update CI notify workflow")
    assert card.language == "zh-CN"
    assert card.why == ("只改了 CI 配置：.github/workflows/notify.yml",)
    assert card.caveats == ("工作流权限有改动：.github/workflows/notify.yml",)

    code = card_for([("vllm/engine/core.py", 60, 10)], language="zh-CN", title='Revert "Speed up" (#77)')
    assert code.caveats == ("改了代码，但没有改测试",)
    assert code.watch == ("回滚了 #77：留意之后是否重新合入",)


def test_zh_cn_incomplete_cards_say_the_files_were_not_read() -> None:
    snapshot = make_snapshot(complete=False, title="[Perf] Faster top-k")
    card = heuristic_card(snapshot, build_context(snapshot, 4000).coverage, "zh-CN")
    assert card.caveats == ("未读取文件：GitHub 速率限制已用完，结论仅依据标题",)


def test_zh_cn_path_lists_count_the_files_not_named() -> None:
    files = [(f"docs/page_{i}.md", 3, 1) for i in range(5)]
    card = card_for(files, language="zh-CN")
    assert card.why == ("只改了文档：docs/page_0.md、docs/page_1.md 及其他 3 个",)


# -- headline -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("[Bugfix][Kimi-K3] fix 2-6x throughput regression", "[Kimi-K3] Fix 2-6x throughput regression"),
        (
            "[Kimi K3 Perf] option to shard the shared expert, 16.98 GiB memory/GPU saved",
            "[Kimi K3 Perf] Option to shard the shared expert, 16.98 GiB memory/GPU saved",
        ),
        ("[CI] - stabilize GLM-5.2 PCP evaluation", "[CI] Stabilize GLM-5.2 PCP evaluation"),
        ("[CI]", "CI"),
        ("[Doc][Misc]", "Doc, Misc"),
        ("llmd+vllm wide-ep for 2p2d", "llmd+vllm wide-ep for 2p2d"),
        ("kimi_k3: O(delta) reasoning-end check", "kimi_k3: O(delta) reasoning-end check"),
        ("Fix<!-- hidden --> the\u200b sampler", "Fix the sampler"),
    ],
)
def test_headline_keeps_scope_tags_drops_kind_tags_and_keeps_figures(title: str, expected: str) -> None:
    assert headline(title) == expected


def test_a_long_headline_is_cut_between_words_at_120_characters() -> None:
    title = "[Perf] Speed up the scheduler " + "by batching the requests of every waiting queue " * 4
    cut = headline(title)
    assert len(cut) <= 120
    assert cut.endswith("…")
    assert cut[:-1] == cut[:-1].rstrip()
    assert ("[Perf] Speed up the scheduler " + "by batching the requests of every waiting queue " * 4).startswith(
        cut[:-1]
    )


def test_a_cut_never_splits_a_figure() -> None:
    title = "Improve " + "x" * 100 + " saving 16.98 GiB per GPU on the decode nodes"
    assert "16." not in headline(title).replace("16.98", "")


def test_a_mostly_cjk_headline_is_cut_at_60_characters() -> None:
    title = "[Perf] 新增非 MegaMoE 共享专家分片选项，单卡省 16.98 GiB 显存" + "，并且优化了调度器的批处理逻辑" * 4
    cut = headline(title)
    assert len(cut) <= 60
    assert cut.startswith("[Perf] 新增非 MegaMoE 共享专家分片选项，单卡省 16.98 GiB 显存")
    assert cut.endswith("…")


def test_an_empty_title_gets_a_placeholder_headline() -> None:
    assert card_for([("a.py", 1, 0)], title="").headline == "(untitled)"
    assert card_for([("a.py", 1, 0)], title=" ", language="zh-CN").headline == "（无标题）"


# -- grounding ------------------------------------------------------------------------------------


def _figures(text: str) -> set[str]:
    return set(re.findall(r"\d+(?:\.\d+)?", text))


def test_every_figure_in_a_card_comes_from_the_title_paths_or_counts() -> None:
    files: list[FileSpec] = [
        ("vllm/v2/core/sched_7.py", 913, 17),
        ("vllm/model_executor/layers/fp8.py", 211, 3),
        ("csrc/moe/kernel_sm90.cu", 88, 1),
        ("vllm/distributed/eplb.py", 61, 9),
        make_file("tests/v2/test_sched_7.py", 140, 0, status="added"),
        ("requirements/rocm.txt", 1, 1),
    ]
    snapshot = make_snapshot(files, title="[Perf] 2.5x faster prefill on H100 (part 1)")
    card = heuristic_card(snapshot, build_context(snapshot, 12_000).coverage, "en")
    allowed = _figures(snapshot.listing.title) | {
        figure for change in snapshot.files for figure in _figures(change.path)
    }
    # Counts of files ("4 more", "2 files"): at most the PR's own number of files.
    allowed |= {str(count) for count in range(1, len(snapshot.files) + 1)}
    # Line counts GitHub states, summed over any folder (the whole PR being the empty prefix).
    for prefix in {"/".join(change.path.split("/")[:depth]) for change in snapshot.files for depth in range(4)}:
        inside = [change for change in snapshot.files if change.path.startswith(prefix)]
        added, deleted = sum(change.additions for change in inside), sum(change.deletions for change in inside)
        allowed |= {str(added), str(deleted), str(added + deleted)}
    for text in texts(card):
        assert _figures(text) <= allowed, text


def test_the_card_is_marked_heuristic_and_carries_the_given_coverage() -> None:
    snapshot = make_snapshot([("vllm/a.py", 50, 0)])
    coverage = build_context(snapshot, 12_000).coverage
    card = heuristic_card(snapshot, coverage, "en")
    assert card.source == "heuristic"
    assert card.coverage is coverage


def test_an_empty_pr_is_skipped() -> None:
    card = card_for([])
    assert (card.verdict, card.why, card.caveats) == ("skip", (), ())


def test_any_shape_of_pr_gives_a_card_within_the_limits() -> None:
    shapes: list[list[FileSpec]] = [
        [("a.md", 1, 0)],
        [("vllm/x.py", 5000, 5000)],
        [(f"p{i}/q{i}/r.py", 30, 3) for i in range(40)],
    ]
    for files in shapes:
        snapshot = make_snapshot(files, title="[Perf] " + "word " * 60)
        card = heuristic_card(snapshot, build_context(snapshot, 2000).coverage, "zh-CN")
        assert 1 <= card.minutes <= 45
        assert len(card.headline) <= 120
        assert (len(card.why), len(card.caveats), len(card.watch)) <= (3, 3, 2)
