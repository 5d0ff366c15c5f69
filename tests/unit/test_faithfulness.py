"""The faithfulness check: whether the PR states a card's claims, and what is left once unsupported ones are cut."""

from __future__ import annotations

import pytest
from devkit.fakes import dataset
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.cards.heuristic.cards import heuristic_card
from bot.cards.writer import file_facts
from bot.core.checks.claims import extract_claims
from bot.core.checks.cutting import without_claims
from bot.core.checks.faithfulness import SourceText, check_card_text, grounded_in
from bot.core.prompting.context import build_context
from bot.models import Card, FileChange, Language, PRSnapshot
from tests.shared_data import shared_rows
from tests.unit.builders import make_comment, make_snapshot

SOURCE = SourceText.of(
    "Title: [Perf] Speed up decode by 2.5x\n"
    "PR: #49013\n"
    "## Description\n"
    "Shared-expert sharding saves 16.98 GiB per GPU; TTFT drops 30 % and ITL 12 percent.\n"
    "Memory went from 18.2 to 16.98 (GiB). Speed-ups of 2-6x on H100, 3x-4x on B200, 7.3× on MI300X.\n"
    "Kernel time is 1.6us per layer, handles 1,200 tokens/s and 8k contexts. Needs v0.11.2 and CUDA 12.9.\n"
    "Fixes #48000. See DeepSeek_V3 and Kimi-K2.5.\n"
    "## Review comments\n"
    "- bob on vllm/v1/attention/backends/flash.py: call `pad_cu_seqlens()` under VLLM_USE_FUSED_MOE, "
    "then torch.compile the FusedMoE layer with --max-model-len set.\n"
    "## Files (1 of 2 shown)\n"
    "### csrc/attention/decode.cu (modified, +120 -4)\n"
    "@@ -1,3 +1,4 @@\n+  int block_size = 128;\n",
    ["vllm/v1/attention/backends/flash.py", "csrc/attention/decode.cu", "tests/kernels/test_decode.py"],
)


def grounded(text: str, source: SourceText = SOURCE) -> list[bool]:
    return [grounded_in(claim, source) for claim in extract_claims(text)]


# -- grounding ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "saves 16.98 GiB",
        "saves 16.98 gib",
        "2.5x faster",
        "2.5× faster",
        "30% lower TTFT",
        "12% lower ITL",
        "18.2 GiB before",  # the unit follows the number within the window: "18.2 to 16.98 (GiB)"
        "7.3x on MI300X",
        "1.6 us per layer",
        "1200 tok/s",
        "8,000 tokens",
        "2-6x",
        "3-4x",
        "v0.11.2",
        "0.11.2",
        "CUDA 12.9",
        "#49013 and #48000",
        "128 blocks",
    ],
)
def test_figures_the_pr_states_are_grounded(text: str) -> None:
    assert all(grounded(text)), text


@pytest.mark.parametrize(
    "text",
    [
        "saves 16 GiB",  # rounding is not stating
        "16.98 MiB",  # the number, with another unit
        "18.2x",  # a ratio must be written next to its number
        "12x",
        "1.6 ms",
        "2-8x",  # only one end is stated
        "40%",
        "v0.11.3",
        "#4900",
        "2026",
        "11 files",
    ],
)
def test_figures_the_pr_does_not_state_are_not_grounded(text: str) -> None:
    assert not any(grounded(text)), text


def test_a_range_is_grounded_by_both_ends_written_apart() -> None:
    source = SourceText.of("2x at batch 1, 6x at batch 64")
    assert grounded("2-6x", source) == [True]
    assert grounded("2-7x", source) == [False]


def test_a_percentage_needs_its_number_beside_it() -> None:
    source = SourceText.of("2 of the 30% of runs")
    assert grounded("30%", source) == [True]
    assert grounded("2%", source) == [False]


@pytest.mark.parametrize(
    "text",
    [
        "PAD_CU_SEQLENS()",
        "`pad_cu_seqlens`",
        "vllm_use_fused_moe",
        "TORCH.COMPILE",
        "fusedmoe",
        "--max-model-len",
        "vllm/v1/attention/backends/flash.py",
        "flash.py",  # a bare file name: its basename is enough
        "backends/flash.py",
        "test_decode.py",  # a path of the PR the model was not shown
        "deepseek-v3",
        "Kimi K2.5",
        "h100 and B200",
    ],
)
def test_identifiers_the_pr_states_are_grounded_whatever_their_case(text: str) -> None:
    assert all(grounded(text)), text


@pytest.mark.parametrize(
    "text",
    [
        "pad_cu_seq()",
        "models/flash.py",  # a directory the file is not in
        "lash.py",
        "--max-model",
        "FusedMoEv2",
        "VLLM_USE",
        "H200",
        "Kimi-K3",
    ],
)
def test_identifiers_the_pr_does_not_state_are_not_grounded(text: str) -> None:
    assert not any(grounded(text)), text


def test_check_reports_unsupported_claims_per_field() -> None:
    check = check_card_text(
        "Decode 2.5x faster, saves 16 GiB",
        ["`pad_cu_seqlens()` pads once", "Cuts 40% of launches in FusedMoE", "No tests"],
        SOURCE,
    )
    assert [claim.text for claim in check.headline.unsupported] == ["16 GiB"]
    assert [[claim.text for claim in field.unsupported] for field in check.points] == [[], ["40%"], []]
    assert check.checked == 5 and len(check.unsupported) == 2 and not check.ok


# -- counts: a number and its noun ------------------------------------------------------------------

# A real PR's description is full of small numbers that count nothing said next to them: a
# version, a date, table cells, line counts, numbered steps, hunk headers, array sizes.
RICH = SourceText.of(
    "Title: [Perf] Fuse the MoE dispatch kernels\n"
    "PR: #51234\n"
    "## Description\n"
    "Tested on vLLM 2.3.1 with CUDA 12.4, nightly of 2026-03-03, TP=8 and PP=2.\n\n"
    "| model | batch | before (ms) | after (ms) |\n"
    "| --- | --- | --- | --- |\n"
    "| Llama-3.1-8B | 3 | 12.3 | 10.1 |\n"
    "| Qwen3-30B-A3B | 8 | 21.7 | 18.2 |\n\n"
    "Changes 3 files; 33 lines of glue removed. Steps: 1. build 2. run 3. compare.\n"
    "Now one kernel launch per layer instead of several, with 8 warps per block.\n"
    "## Review comments\n"
    "- bob on vllm/moe/dispatch.py: line 3 looks odd, and 4 tests still skip.\n"
    "## Files (3 of 3 shown)\n"
    "### vllm/moe/dispatch.py (modified, +120 -33)\n"
    "@@ -3,7 +3,9 @@ def dispatch(x):\n"
    "-    launch(kernel_a); launch(kernel_b)\n"
    "+    launch(fused)  # shape [3, 4096]\n",
    ["vllm/moe/dispatch.py", "tests/moe/test_dispatch.py", "docs/moe.md"],
)


@pytest.mark.parametrize(
    "text",
    [
        "Removes 3 kernel launches per layer",  # a "3" is everywhere, never next to launches
        "Fuses 2 kernels",
        "Runs 3 batches",  # a table's cell is not read by its column
        "Skips 8 tests",
        "Adds 4 files",
        "用 8 个线程束",  # a Chinese noun for what the PR calls warps
        "改动了 3 个文件",
    ],
)
def test_a_count_is_not_grounded_by_a_stray_number(text: str) -> None:
    assert grounded(text, RICH) == [False], text


@pytest.mark.parametrize(
    "text",
    [
        "Changes 3 files",  # "Changes 3 files"
        "Touches 3 files",  # "## Files (3 of 3 shown)": the noun, then the number within three words
        "Removes 33 lines of glue",
        "8 warps per block",
        "4 tests still skip",
        "用 8 个 warps",  # the PR's own word for the noun
        "Needs CUDA 12.4",  # numbers with units or decimals keep the figures' rules
        "Needs 2.3.1",
    ],
)
def test_a_count_the_pr_states_with_its_noun_is_grounded(text: str) -> None:
    assert all(grounded(text, RICH)), text


def test_a_count_is_grounded_by_code_that_states_it() -> None:
    source = SourceText.of("+NUM_KERNEL_LAUNCHES = 3\n+MAX_LAUNCHES = 1\n")
    assert grounded("Removes 3 kernel launches", source) == [True]
    assert grounded("Allows 1 kernel launch", source) == [True]  # singular and plural are one noun
    assert grounded("Removes 4 kernel launches", source) == [False]


def test_the_contexts_file_header_states_the_number_of_files() -> None:
    source = SourceText.of("## Files (3 of 24 shown)\n### a.py (modified, +1 -1)\n")
    assert grounded("Touches 24 files", source) == [True]
    assert grounded("Touches 3 files", source) == [True]  # "3 of 24 shown": read as the PR's files too
    assert grounded("Touches 25 files", source) == [False]


def test_a_count_four_words_from_its_noun_is_not_grounded() -> None:
    assert grounded("3 launches", SourceText.of("3 of the many launches")) == [False]
    assert grounded("3 launches", SourceText.of("3 of the launches")) == [True]


@pytest.mark.parametrize(
    ("headline", "expected"),
    [
        ("Removes 3 kernel launches per layer", "Removes kernel launches per layer"),
        ("Fuses the dispatch kernels, removing 3 kernel launches", "Fuses the dispatch kernels"),
        ("Fuses the dispatch kernels (up to 3 fewer launches)", "Fuses the dispatch kernels"),
        ("合并了调度内核，减少了 3 次内核启动", "合并了调度内核，减少了内核启动"),
        ("用 8 个线程束并行处理", "用线程束并行处理"),
    ],
)
def test_an_unsupported_count_loses_its_number_and_keeps_its_noun(headline: str, expected: str) -> None:
    check = check_card_text(headline, [], RICH)
    assert [claim.kind for claim in check.headline.unsupported] == ["count"]
    assert without_claims(headline, check.headline.unsupported) == expected
    assert check_card_text(expected, [], RICH).ok


# -- cutting claims out ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("headline", "expected"),
    [
        ("Decode is 9.1x faster", "Decode is faster"),
        ("Speeds up decode by 9.1x", "Speeds up decode"),
        ("Decode 2.5x faster, saves 16 GiB", "Decode 2.5x faster"),
        ("Saves 16 GiB of memory per GPU", "Saves memory per GPU"),
        ("Decode faster (saves 16 GiB)", "Decode faster"),
        ("Cuts TTFT by ~40% on H200", "Cuts TTFT"),
        ("Cuts TTFT on H200 by 30%", "Cuts TTFT by 30%"),
        ("Saves 16 GiB", ""),
    ],
)
def test_without_claims_cuts_the_claim_and_what_only_led_to_it(headline: str, expected: str) -> None:
    check = check_card_text(headline, [], SOURCE)
    assert without_claims(headline, check.headline.unsupported) == expected
    assert check_card_text(expected, [], SOURCE).ok


def test_without_claims_leaves_a_figure_inside_a_bigger_one() -> None:
    claims = extract_claims("2.5x")
    assert (
        without_claims("Cuts memory 2.5x where 12.5x was hoped for", claims) == "Cuts memory where 12.5x was hoped for"
    )
    assert without_claims("Calls 2.5x ahead of a step", claims) == "Calls ahead of a step"


# -- properties -----------------------------------------------------------------------------------

# Single characters that border or join claims, and pieces of claims to glue together.
_PIECES = ("GiB", "us", "x", "k", " 16.98 ", "1,000", "v0.11", "--", "foo_bar", "Kimi-K", "e.g.", "2-6x", "12.9.1")
_ALPHABET = st.sampled_from([*"abcXYZ_019.,-/#`()%×~ \n\tµ倍", *_PIECES])
_TEXT = st.lists(_ALPHABET, max_size=60).map("".join)


@given(text=_TEXT)
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_every_claim_of_a_text_is_grounded_in_that_text(text: str) -> None:
    source = SourceText.of(text)
    assert [claim.text for claim in extract_claims(text) if not grounded_in(claim, source)] == []


@given(text=_TEXT, before=_TEXT, after=_TEXT)
@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
def test_a_claim_stays_grounded_when_its_text_is_part_of_a_larger_source(text: str, before: str, after: str) -> None:
    source = SourceText.of(f"{before}\n\n{text}\n\n{after}")
    assert [claim.text for claim in extract_claims(text) if not grounded_in(claim, source)] == []


@given(number=st.decimals(min_value=11, max_value=100_000, places=2), unit=st.sampled_from(["x", "%", " GiB", "us"]))
def test_a_figure_is_never_grounded_by_a_different_number(number: object, unit: str) -> None:
    source = SourceText.of(f"speed-up of {number}{unit}")
    assert grounded(f"{number}1{unit}", source) == [False]


# -- heuristic cards ------------------------------------------------------------------------------


def _snapshot(row: dict[str, object]) -> PRSnapshot:
    files = [
        FileChange(
            entry["path"],
            "modified",
            entry["additions"],
            entry["deletions"],
            None if entry.get("binary") else dataset.synth_patch(entry["path"], entry["additions"], entry["deletions"]),
        )
        for entry in dataset.row_files(row)  # type: ignore[arg-type]
    ]
    return make_snapshot(files, title=str(row["title"]), number=int(str(row["number"])))


def _heuristic_check(snapshot: PRSnapshot, language: Language) -> tuple[Card, list[tuple[str, str]]]:
    card = heuristic_card(snapshot, build_context(snapshot, 10_000_000).coverage, language)
    paths = (change.path for change in snapshot.files)
    source = SourceText.of(build_context(snapshot, 12_000).text, paths, file_facts(snapshot.files_total, language))
    check = check_card_text(card.headline, (*card.why, *card.caveats, *card.watch), source)
    return card, [(field.text, claim.text) for field in check.fields for claim in field.unsupported]


@pytest.mark.parametrize("language", ["en", "zh-CN"])
@pytest.mark.parametrize(
    "snapshot",
    [
        make_snapshot(
            [("vllm/v1/worker/gpu_model_runner.py", 300, 20), ("tests/v1/test_runner.py", 80, 0)],
            title="[Kimi K3 Perf] shard the shared expert, 16.98 GiB memory/GPU saved (part 1)",
        ),
        make_snapshot([("requirements/cuda.txt", 1, 1)], title="[CI/Build] Bump flashinfer to v0.6.8"),
        make_snapshot([(".github/workflows/ci.yml", 4, 1)], title="Revert #50111: 2-6x speed-up of `pad_cu_seqlens()`"),
        make_snapshot(
            [("csrc/attention/decode.cu", 1700, 20), ("docs/decode.md", 10, 0)],
            title="[Kernel] Fuse decode kernels for 1.6us per layer on H100",
            comments=[make_comment("LGTM")],
        ),
    ],
    ids=["perf", "bump", "revert", "kernel"],
)
def test_heuristic_cards_state_only_what_the_pr_states(snapshot: PRSnapshot, language: Language) -> None:
    card, unsupported = _heuristic_check(snapshot, language)
    assert unsupported == [], card


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_heuristic_cards_of_the_data_set_state_only_grounded_figures(language: Language) -> None:
    """Every figure and identifier of a heuristic card is in what the PR states (its title,
    paths and GitHub's per-file counts): a folder's summed line count would not be."""
    rows = shared_rows()
    for row in rows:
        _, unsupported = _heuristic_check(_snapshot(row), language)
        assert unsupported == [], (row["number"], unsupported)
