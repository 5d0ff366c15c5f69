"""Claims: which figures and identifiers a text states, and the key each is looked up by."""

from __future__ import annotations

import pytest

from bot.core.checks.claims import Claim, count_mentions, extract_claims, normalise, noun_key


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
        ("1,000 requests, 3k tokens, 1.5K more", ["1000 request", "3000 token", "1500"]),
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
        "Fixed in the 1st pass, step 2, and 3 more",  # bare numbers up to ten, counting nothing, are too weak to check
        "two kernels, ten files",
        "3 of the kernels, 4 new",
        "e.g. the I/O path, and/or memory/GPU",
        "The GPU and CUDA code, ROCm too",  # acronyms and capitalised words are words
        "It makes step 1 faster by caching",  # a comparison after the number, not what it counts
    ],
)
def test_plain_words_and_small_counts_are_not_claims(text: str) -> None:
    assert extract_claims(text) == []


def test_a_number_above_ten_is_a_claim() -> None:
    assert keys("Moves to 11") == ["11"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Removes 3 kernel launches per layer", [("3 kernel launches", "3", "launches")]),
        ("Touches 2 files and 4 more files", [("2 files", "2", "file"), ("4 more files", "4", "files")]),
        ("Splits decode over 8 warp-specialized kernels", [("8 warp-specialized kernels", "8", "kernel")]),
        ("Adds 2 tests covering MoE", [("2 tests", "2", "test")]),
        ("Runs on 1 GPU, not 8 GPUs", [("1 GPU", "1", "gpu"), ("8 GPUs", "8", "GPU")]),
        ("Caps it at 3k tokens", [("3k tokens", "3000", "token")]),
        ("Merges 12 entries", [("12 entries", "12", "entry")]),
        ("用 8 个 warps 并行", [("8 个 warps", "8", "warp")]),
        ("修复了 3 个文件中的问题", [("3 个文件", "3", "文件")]),
        ("减少了 4 次启动", [("4 次启动", "4", "启动")]),
    ],
)
def test_a_number_followed_by_what_it_counts_is_a_count(text: str, expected: list[tuple[str, str, str]]) -> None:
    counts = [claim for claim in extract_claims(text) if claim.kind == "count"]
    keys = [(written, f"{value} {noun_key(noun) if noun.isascii() else noun}") for written, value, noun in expected]
    assert [(claim.text, claim.key) for claim in counts] == keys


@pytest.mark.parametrize(
    "text",
    [
        "and 4 more",  # a qualifier alone
        "3 of the kernels",  # a stop word before any noun
        "第 3 步",  # an ordinal
        "其他 4 个",  # a classifier alone
        "2026-08-04 launches",  # a date
        "v2.3.1 kernels",  # a version
        "1/3 layers",  # a ratio
        "3 H100s",  # an identifier, not a word
    ],
)
def test_a_number_without_a_noun_of_its_own_is_no_count(text: str) -> None:
    assert [claim for claim in extract_claims(text) if claim.kind == "count"] == []


def test_numbers_with_units_stay_figures() -> None:
    assert [(claim.kind, claim.key) for claim in extract_claims("3 ms faster, 3x kernels, 30% launches")] == [
        ("figure", "3ms"),
        ("figure", "3x"),
        ("figure", "30%"),
    ]


@pytest.mark.parametrize(
    ("left", "right"),
    [("launch", "launches"), ("file", "files"), ("entry", "entries"), ("GPU", "GPUs"), ("cache", "caches")],
)
def test_a_noun_and_its_plural_have_one_key(left: str, right: str) -> None:
    assert noun_key(left) == noun_key(right)


def test_a_source_counts_with_nouns_before_and_after_within_three_words() -> None:
    mentions = set(count_mentions("3 kernel launches\nlaunches per layer: 4\nlaunches are a b c 5\n6. Launches"))
    assert {("3", "launch"), ("4", "launch")} <= mentions
    assert ("5", "launch") not in mentions  # four words away
    assert ("6", "launch") not in mentions  # a sentence ends between them


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
