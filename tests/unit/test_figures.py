"""Result figures: which numbers of a PR are results, how large, and the words a headline takes from it."""

from __future__ import annotations

import pytest

from bot.core.heuristic.description import Table, read_description
from bot.core.heuristic.figures import description_figures, is_benchmark, key_figure, table_figures, text_figures


def figures(text: str) -> list[tuple[str, str]]:
    return [(figure.text, figure.kind) for figure in text_figures(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Draft attention is up to 7.3x faster.", [("7.3x", "ratio")]),
        ("Speed-ups of 2.3×–7.3× on decode.", [("2.3×–7.3×", "ratio")]),
        ("fix 2-6x throughput regression", [("2-6x", "ratio")]),
        ("16.98 GiB memory/GPU saved", [("16.98 GiB", "memory")]),
        ("saving about 1.6 microseconds per layer", [("1.6 microseconds", "time")]),
        ("TTFT p50 drops 18% and TPOT p50 drops 7%", [("18%", "percent"), ("7%", "percent")]),
        ("throughput improves from 3,950 to 4,310 tok/s", [("3,950 to 4,310 tok/s", "throughput")]),
        ("解码提速 1.8 倍", [("1.8 倍", "ratio")]),
        ("提速1.8倍", [("1.8倍", "ratio")]),
        ("ITL p99: 45 ms → 38 ms", [("45 ms", "time"), ("38 ms", "time")]),
    ],
)
def test_results_with_units_are_figures(text: str, expected: list[tuple[str, str]]) -> None:
    assert figures(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Tested on 4x H100 and 8x A100 GPUs.",  # devices, not a speed-up
        "All 100% of the tests pass.",  # no change stated
        "The API server times out after 600 s.",  # a setting
        "Supports Kimi-K2.5 and GLM-5.2 with 128k context.",  # names and a size
        "Prefill is unchanged (within 1%).",
        "Bumps torch from 2.9.0 to 2.10.0.",
        "Use a 0x1F mask and a 4x4 tile.",
        "Run with 90% GPU memory utilization and 16 GiB of swap.",  # settings
        "More than 50% of requests hit the cache.",  # a share, not a change
    ],
)
def test_numbers_that_are_no_result_are_not_figures(text: str) -> None:
    assert figures(text) == []


def test_large_results_are_half_again_a_fifth_or_a_gib() -> None:
    large = {figure.text: figure.large for figure in text_figures("1.2x faster; 1.5x faster; saves 12% memory")}
    assert large == {"1.2x": False, "1.5x": True, "12%": False}
    assert text_figures("reduces TTFT by 30%")[0].large
    assert text_figures("saves 16.98 GiB")[0].large
    assert not text_figures("saves 512 MiB of memory")[0].large
    assert not text_figures("saving 1.6 microseconds per layer")[0].large  # no baseline: size unknown


def test_the_key_figure_is_a_speed_up_before_memory_before_a_percentage_and_the_largest_of_its_kind() -> None:
    found = text_figures("Saves 3 GiB of memory; decode is 1.4x faster; prefill is 2.1x faster; TTFT drops 40%.")
    key = key_figure(found)
    assert key is not None and key.text == "2.1x"
    memory_and_percent = key_figure(text_figures("Saves 3 GiB of memory; TTFT drops 40%."))
    assert memory_and_percent is not None and memory_and_percent.text == "3 GiB"
    assert key_figure([]) is None


@pytest.mark.parametrize(
    ("sentence", "room", "phrase"),
    [
        ("The seed reports draft attention up to 7.3x faster.", 72, "draft attention up to 7.3x faster"),
        (
            "Workers now manage threads, fixing the 2-6x structured-output decode throughput regression "
            "reported in issue #49013.",
            72,
            "fixing the 2-6x structured-output decode throughput regression",
        ),
        (
            "Releasing it before capture reduces peak memory from 18.2 GiB to 12.1 GiB on Qwen3-235B with a "
            "256k vocabulary.",
            56,
            "reduces peak memory from 18.2 GiB to 12.1 GiB",
        ),
        (
            "It is faster, which leaves room for about 9% more KV cache blocks.",
            72,
            "leaves room for about 9% more KV cache blocks",
        ),
    ],
)
def test_a_figure_keeps_the_words_of_its_clause(sentence: str, room: int, phrase: str) -> None:
    key = key_figure(text_figures(sentence))
    assert key is not None
    assert key.phrase(room) == phrase
    assert phrase in sentence  # the PR's own words, not ours


def test_a_benchmark_table_gives_its_largest_speed_up_with_its_column_and_row() -> None:
    table = Table(
        ("batch", "main (ms)", "PR (ms)", "speedup"), (("1", "10.1", "5.0", "2.02x"), ("64", "73", "10", "7.3×"))
    )
    assert is_benchmark(table)
    key = key_figure(table_figures(table))
    assert key is not None
    assert (key.text, key.column, key.condition, key.clause) == ("7.3×", "speedup", "batch 64", "")


def test_percentages_in_a_table_count_only_in_a_column_of_changes() -> None:
    settings = Table(("model", "gpu util", "accuracy"), (("Llama", "90%", "81%"), ("Qwen", "85%", "79%")))
    assert table_figures(settings) == []
    changes = Table(("metric", "change"), (("TTFT p50", "-18%"), ("TPOT p50", "-7%")))
    key = key_figure(table_figures(changes))
    assert key is not None and (key.text, key.condition) == ("-18%", "TTFT p50")


def test_a_table_of_versions_or_names_is_no_benchmark() -> None:
    assert not is_benchmark(Table(("Package", "Change"), (("ruff", "`0.15.1` -> `0.15.2`"),)))
    assert not is_benchmark(Table(("model", "supported"), (("Llama-3", "yes"), ("Qwen3", "no"))))
    assert is_benchmark(Table(("batch", "latency (ms)"), (("1", "11.9"), ("16", "14.2"))))


def test_a_description_gives_its_prose_and_table_figures() -> None:
    body = "Decode is up to 2.5x faster.\n\n| bs | speedup |\n|---|---|\n| 1 | 1.2x |\n| 8 | 2.5x |\n"
    found = description_figures(read_description(body))
    assert [(figure.text, bool(figure.clause)) for figure in found] == [
        ("2.5x", True),
        ("1.2x", False),
        ("2.5x", False),
    ]
    key = key_figure(found)
    assert key is not None and key.clause  # the same figure in prose: the author's words win
