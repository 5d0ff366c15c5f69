"""Claims: which figures and identifiers a text states, and the key each is looked up by."""

from __future__ import annotations

import pytest

from bot.core.claims import Claim, extract_claims, normalise


def keys(text: str) -> list[str]:
    return [claim.key for claim in extract_claims(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("saves 16.98 GiB", ["16.98gib"]),
        ("7.3x and 7.3× faster", ["7.3x", "7.3x"]),
        ("1.6us or 1.6 us or 1.6 µs", ["1.6us", "1.6us", "1.6us"]),
        ("a 2-6x speed-up, 2x–6x elsewhere", ["2-6x", "2-6x"]),
        ("30% less, 30 % less, 30 percent less", ["30%", "30%", "30%"]),
        ("1,000 requests, 3k tokens, 1.5K more", ["1000", "3000", "1500"]),
        ("needs v0.11.2 since 2026", ["0.11.2", "2026"]),
        ("单步提速2.5倍，节省16GiB显存", ["2.5x", "16gib"]),
    ],
)
def test_figures_are_extracted_with_their_units(text: str, expected: list[str]) -> None:
    assert keys(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Fixes #49013", ["#49013"]),
        ("calls pad_cu_seqlens() first", ["pad_cu_seqlens"]),
        ("set VLLM_FOO_BAR=1", ["vllm_foo_bar"]),
        ("moves vllm/v1/x.py and csrc/a.cu", ["vllm/v1/x.py", "csrc/a.cu"]),
        ("adds --max-model-len", ["--max-model-len"]),
        ("the `foo_bar` helper and `Block size`", ["foo_bar", "block size"]),
        ("wraps torch.compile", ["torch.compile"]),
        ("FusedMoE and kimi_k3 on H100 in FP8", ["fusedmoe", "kimi_k3", "h100", "fp8"]),
        ("Llama-3.1-8B and DeepSeek-V3.", ["llama-3.1-8b", "deepseek-v3"]),
        ("vllm/v1/core/ was split", ["vllm/v1/core/"]),
    ],
)
def test_identifiers_are_extracted(text: str, expected: list[str]) -> None:
    assert keys(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Decode is faster and uses less memory",
        "Touches 2 files and fixes 3 kernels in the 1st pass",  # bare counts up to ten are too weak to check
        "two kernels, ten files",
        "e.g. the I/O path, and/or memory/GPU",
        "The GPU and CUDA code, ROCm too",  # acronyms and capitalised words are words
    ],
)
def test_plain_words_and_small_counts_are_not_claims(text: str) -> None:
    assert extract_claims(text) == []


def test_a_count_above_ten_is_a_claim() -> None:
    assert keys("Touches 11 files") == ["11"]


def test_claims_keep_the_text_as_written() -> None:
    (claim,) = extract_claims("Decode is 7.3× faster")
    assert claim == Claim("7.3×", "figure", "7.3x", claim.figures)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("1.6 us", "1.6us"),
        ("7.3×", "7.3x"),
        ("1,000", "1000"),
        ("1k", "1000"),
        ("2.50x", "2.5x"),
        ("PAD_CU_SEQLENS()", "pad_cu_seqlens"),
        ("`pad_cu_seqlens()`", "pad_cu_seqlens"),
        ("30 percent", "30%"),
        ("DeepSeek_V3-Base", "deepseek-v3-base"),
    ],
)
def test_normalise_makes_spellings_of_one_claim_equal(left: str, right: str) -> None:
    assert normalise(left) == normalise(right)
