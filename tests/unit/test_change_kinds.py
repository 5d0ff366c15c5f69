"""A card without a model says what kind of change a PR is, from what the PR shows (its title and
file list), and where: a reader learns from its first "why" point what the title does not say."""

from __future__ import annotations

import pytest

from bot.cards.heuristic.cards import heuristic_card
from bot.cards.writer import file_facts
from bot.core.checks.faithfulness import SourceText, check_card_text
from bot.core.prompting.context import build_context
from bot.models import Card, Language
from tests.unit.builders import FileSpec, make_file, make_snapshot

DEFAULT_PATCH = "@@ -10,3 +10,3 @@ class SchedulerConfig:\n-    max_num_seqs: int = 128\n+    max_num_seqs: int = 256\n"


def card_for(files: list[FileSpec], title: str, language: Language = "en") -> Card:
    snapshot = make_snapshot(files, title=title)
    return heuristic_card(snapshot, build_context(snapshot, 12_000).coverage, language)


@pytest.mark.parametrize(
    ("title", "files", "first"),
    [
        (
            'Revert "[Perf] Dual-stream decode" (#50001)',
            [("vllm/model_executor/layers/fused_moe/runner/moe_runner.py", 18, 16)],
            "A revert, in vllm/model_executor/layers/fused_moe/runner/moe_runner.py",
        ),
        (
            "[ROCm] Relax MLA rope test tolerances",
            [("tests/kernels/core/test_rope.py", 4, 4)],
            "Tests only, no code changed: tests/kernels/core/test_rope.py",
        ),
        (
            "[CI] Prune compilation tests",
            [("tests/compile/test_a.py", 3, 40), (".buildkite/test_areas/compile.yaml", 1, 9)],
            "Tests and CI only, no code changed: tests/compile/test_a.py, .buildkite/test_areas/compile.yaml",
        ),
        (
            "[ROCm]: Bump torch 2.12, triton 3.7",
            [("docker/Dockerfile.rocm_base", 10, 11), ("vllm/compilation/caching.py", 11, 3)],
            "A version bump in docker/Dockerfile.rocm_base, with code changes in vllm/compilation/caching.py",
        ),
        (
            "[Kernel] Batch invariant NVFP4 MoE",
            [("csrc/quantization/fp4/moe_kernel.cu", 18, 0), ("tests/v1/test_moe.py", 30, 0)],
            "Kernel code changed: csrc/quantization/fp4/moe_kernel.cu",
        ),
        (
            "[ROCm][Perf] Fused kernel for KDA decode",
            [make_file("csrc/kimi_k3/fused_kda_decode.cu", 800, 0, status="added"), ("vllm/models/k3/kda.py", 89, 9)],
            "A new kernel: csrc/kimi_k3/fused_kda_decode.cu",
        ),
        (
            "Raise the default batch",
            [make_file("vllm/config/scheduler.py", 1, 1, patch=DEFAULT_PATCH), ("vllm/v1/core/sched/s.py", 1, 0)],
            "Changes a setting's default in vllm/config/scheduler.py",
        ),
        (
            "[Kimi][MM] disable dynamic torch.compile for TPU",
            [("vllm/model_executor/models/kimi_k25_vit.py", 1, 1)],
            "A one-line change in vllm/model_executor/models/kimi_k25_vit.py",
        ),
        (
            "Remove the XPU branch of topk_softplus_sqrt",
            [("vllm/model_executor/layers/fused_moe/router/fused_topk_bias_router.py", 0, 62)],
            "Mostly removes code: vllm/model_executor/layers/fused_moe/router/fused_topk_bias_router.py",
        ),
        (
            "[Bugfix] Skip Qwen3 deepstack buffers without vision",
            [
                ("vllm/model_executor/models/qwen3_vl.py", 23, 21),
                ("vllm/model_executor/models/qwen3_vl_moe.py", 20, 19),
            ],
            "Model-specific: changes only vllm/model_executor/models/qwen3_vl.py, "
            "vllm/model_executor/models/qwen3_vl_moe.py",
        ),
    ],
)
def test_the_first_why_point_names_the_kind_of_change_and_where(title: str, files: list[FileSpec], first: str) -> None:
    assert card_for(files, title).why[0] == first


def test_a_kind_point_names_two_files_and_counts_none_it_does_not_name() -> None:
    files: list[FileSpec] = [(f"vllm/model_executor/models/model_{i}.py", 3, 4) for i in range(56)]
    for language in ("en", "zh-CN"):
        card = card_for(files, "Standardise weight tying", language)
        snapshot = make_snapshot(files, title="Standardise weight tying")
        paths = [change.path for change in snapshot.files]
        source = SourceText.of(build_context(snapshot, 12_000).text, paths, file_facts(56, language))
        assert check_card_text(card.headline, card.why, source).unsupported == ()
    assert card_for(files, "Standardise weight tying").why[0].endswith(" and others")


def test_the_kind_point_is_not_followed_by_the_same_place_again() -> None:
    card = card_for([("vllm/models/kimi_k3/nvidia/model.py", 21, 15)], "[K3 Perf] Combine all-gathers, 1.5~3x")
    assert card.why == ("Model-specific: changes only vllm/models/kimi_k3/nvidia/model.py",)


def test_a_large_single_file_is_one_file() -> None:
    card = card_for([("vllm/model_executor/models/kimi_k25.py", 1800, 1)], "[MM] ViT CUDA graph")
    assert "Large change: one file, +1800 -1" in card.caveats
