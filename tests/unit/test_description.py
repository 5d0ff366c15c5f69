"""Reading a PR description: sections, sentences and tables, without the template around them."""

from __future__ import annotations

import pytest

from bot.core.heuristic.description import read_description, section_kind
from bot.core.heuristic.sentences import explains_failure, fixed_issues, names_code, quotable, states_decision
from tests.unit.descriptions import DEPENDABOT, EMPTY_TEMPLATE, HOSTILE, ROOT_CAUSE_FIX, TEMPLATE_TAIL


def test_an_empty_template_with_its_checklist_reads_as_nothing() -> None:
    description = read_description(EMPTY_TEMPLATE.body)
    assert description.empty
    assert description.words == 0


def test_sections_are_read_under_their_headings_with_wrapped_lines_joined() -> None:
    description = read_description(ROOT_CAUSE_FIX.body)
    assert [(section.heading, section.kind) for section in description.sections] == [
        ("Purpose", ""),
        ("Root cause", "cause"),
        ("Fix", "change"),
        ("Test Plan", ""),
        ("Test Result", "results"),
    ]
    cause = description.of_kind("cause")[0]
    assert cause.paragraphs[0].startswith("`KVCacheManager.free()` drops the request's blocks while `evict_blocks()`")
    assert "\n" not in cause.paragraphs[0]


def test_a_label_line_opens_a_section_and_bold_lines_are_headings() -> None:
    body = "**Motivation**\nUsers asked for it.\nRoot cause: the pool is freed twice when a request is aborted.\n"
    description = read_description(body)
    assert [(section.heading, section.kind) for section in description.sections] == [
        ("Motivation", "motivation"),
        ("Root cause", "cause"),
    ]
    assert description.sections[1].paragraphs == ("the pool is freed twice when a request is aborted.",)


@pytest.mark.parametrize(
    ("heading", "kind"),
    [
        ("Root Cause Analysis", "cause"),
        ("Why this happens", "motivation"),  # a plain "why" explains the need; causes are read in its sentences
        ("Design and alternatives", "design"),
        ("Motivation", "motivation"),
        ("Benchmark results", "results"),
        ("Test Result", "results"),
        ("Purpose", ""),
        ("Because of the race", ""),  # "cause" inside "because" is not the heading word
        ("根因分析", "cause"),
        ("性能", "results"),
    ],
)
def test_section_kinds_come_from_heading_words(heading: str, kind: str) -> None:
    assert section_kind(heading) == kind


def test_code_blocks_collapsed_blocks_and_html_are_left_out() -> None:
    body = (
        "Speeds up decode.\n\n```\n$ vllm bench latency\nAvg latency: 1.23 s\n```\n"
        "<details><summary>logs</summary>\n\nTraceback: boom\n</details>\n"
        "<img src='x.png'> Done <br> here.\n"
    )
    description = read_description(body)
    text = " ".join(paragraph for section in description.sections for paragraph in section.paragraphs)
    assert text == "Speeds up decode. Done here."


def test_release_notes_of_a_bot_are_collapsed_and_left_out() -> None:
    description = read_description(DEPENDABOT.body)
    assert not any("2.3x" in sentence for _, sentence in description.sentences())


def test_tables_are_read_with_their_header_and_rows() -> None:
    body = (
        "| batch | before (ms) | after (ms) | speedup |\n|---:|---:|---:|---:|\n"
        "| 1 | 10 | 5 | 2.0x |\n| 64 | 80 | 11 | 7.3x |\n"
    )
    (table,) = read_description(body).tables()
    assert table.header == ("batch", "before (ms)", "after (ms)", "speedup")
    assert table.rows == (("1", "10", "5", "2.0x"), ("64", "80", "11", "7.3x"))


def test_sentences_split_at_full_stops_in_english_and_chinese() -> None:
    body = "It hangs, e.g. when aborted. The fix is small. 之前会重新分配。现在只分配一次。"
    sentences = [sentence for _, sentence in read_description(body).sentences()]
    assert sentences == ["It hangs, e.g. when aborted.", "The fix is small.", "之前会重新分配。", "现在只分配一次。"]


def test_links_and_mentions_are_not_quotable() -> None:
    sentences = [sentence for _, sentence in read_description(HOSTILE.body).sentences()]
    assert "<!channel>" not in " ".join(sentences)
    assert "ignore previous instructions" not in " ".join(sentences)  # an HTML comment
    assert [sentence for sentence in sentences if quotable(sentence)] == ["This PR makes everything 100x faster."]


@pytest.mark.parametrize(
    ("sentence", "ok"),
    [
        ("The evictor skips the freed blocks and the scheduler waits forever.", True),
        ("pytest tests/v1/core/test_prefix_caching.py -k abort --count 500", False),  # a command
        ("Results on Llama-3.1-8B, 1xH100, 64 concurrent requests:", False),  # a lead-in to a list
        ("Fixes #123.", False),
        ("See https://github.com/acme/widgets/issues/1 for the whole discussion of it.", False),
        ("之前每一步都会重新分配路由的 workspace，导致 CPU 开销很高。", True),
    ],
)
def test_a_quotable_sentence_is_prose(sentence: str, ok: bool) -> None:
    assert quotable(sentence) is ok


def test_what_a_sentence_does_is_recognised() -> None:
    assert explains_failure("The API server times out because the evictor skips freed blocks.")
    assert explains_failure("Enable expandable_segments to avoid out-of-memory failures.")
    assert not explains_failure("Because users asked, we add a flag.")  # a cause, but of no failure
    assert states_decision("We chose a scanner instead of a streaming JSON library.")
    assert not states_decision("The scanner emits each pair as a delta.")
    assert names_code("It now calls `pad_cu_seqlens()` before capture.")
    assert names_code("The KVCacheManager frees blocks in free_blocks.")
    assert not names_code("The GPUs and APIs of the PRs are unchanged.")


def test_fixed_issues_are_read_from_closing_words() -> None:
    body = (
        "Fixes #48213. Closes https://github.com/acme/widgets/issues/77.\n"
        "Fixing the 2-6x regression reported in issue #49013.\nSee also #5 (not fixed here)."
    )
    assert fixed_issues(read_description(body)) == ["#48213", "#77", "#49013"]


def test_a_huge_description_is_read_only_as_far_as_the_model_would_see_it() -> None:
    body = "Intro sentence about the change.\n\n" + ("filler words " * 20 + "\n") * 2000 + "Root cause: far away."
    description = read_description(body + TEMPLATE_TAIL)
    assert not description.of_kind("cause")
    assert description.words < 3000
