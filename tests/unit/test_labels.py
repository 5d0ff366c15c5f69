"""Words every renderer shares: verdict labels, the digest's counts and the coverage line, per language."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.models import Card, Coverage, Digest, DigestItem, Language, SkippedFile, Verdict, Window
from bot.render.labels import counts_line, coverage_line, verdict_label
from tests.unit.builders import MERGED_AT, make_listing

UNLISTED = Coverage(
    files_total=3200,
    files_read=40,
    skipped=tuple(SkippedFile(f"vllm/m{i}.py", "did not fit the token budget") for i in range(2960)),
    files_unlisted=200,
)


def make_card(verdict: Verdict = "skim", minutes: int = 5, language: Language = "en") -> Card:
    return Card(
        headline="Faster sampler",
        verdict=verdict,
        minutes=minutes,
        why=(),
        caveats=(),
        watch=(),
        source="heuristic",
        coverage=Coverage(files_total=1, files_read=1),
        language=language,
    )


@pytest.mark.parametrize(
    ("language", "verdict", "label"),
    [
        ("en", "skip", "Skip"),
        ("en", "skim", "Skim (~5 min)"),
        ("en", "read", "Read carefully (~5 min)"),
        ("zh-CN", "skip", "无需精读"),
        ("zh-CN", "skim", "快速浏览（约 5 分钟）"),
        ("zh-CN", "read", "值得精读（约 5 分钟）"),
    ],
)
def test_verdict_labels_carry_the_minutes_in_the_card_language(
    language: Language, verdict: Verdict, label: str
) -> None:
    assert verdict_label(make_card(verdict, 5, language)) == label


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("en", "3 merged · 1 worth a careful read · 0 to skim · 1 to skip"),
        ("zh-CN", "合并 3 个 · 值得精读 1 · 快速浏览 0 · 无需精读 1"),
    ],
)
def test_counts_line_counts_shown_cards_by_verdict(language: Language, line: str) -> None:
    shown: tuple[tuple[int, Verdict], ...] = ((1, "read"), (2, "skip"))
    items = tuple(DigestItem(make_listing(number=n), make_card(verdict), 10) for n, verdict in shown)
    window = Window(MERGED_AT, MERGED_AT + timedelta(days=1))
    digest = Digest(repos=("acme/widgets",), window=window, total_merged=3, items=items, language=language)
    assert counts_line(digest) == line


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("en", "read 2 of 2 files"),
        ("zh-CN", "已读 2/2 个文件"),
    ],
)
def test_a_fully_read_pr_says_only_what_was_read(language: Language, line: str) -> None:
    assert coverage_line(Coverage(files_total=2, files_read=2), language) == line


def test_partial_and_skipped_files_are_counted_with_their_reasons() -> None:
    coverage = Coverage(
        files_total=4,
        files_read=2,
        skipped=(SkippedFile("uv.lock", "lock file"), SkippedFile("a.png", "binary file")),
        partial=("vllm/core.py",),
    )
    assert coverage_line(coverage, "en") == "read 2 of 4 files; 1 partly; skipped 2 (1 lock file, 1 binary file)"


@pytest.mark.parametrize(
    ("language", "line"),
    [
        (
            "en",
            "read 40 of 3200 files; skipped 2960 (2960 did not fit the token budget); "
            "200 not listed by GitHub (it lists at most 3,000)",
        ),
        (
            "zh-CN",
            "已读 40/3200 个文件；跳过 2960 个（超出 token 预算 2960 个）；GitHub 未列出 200 个（最多列出 3,000 个）",
        ),
    ],
)
def test_files_github_did_not_list_are_named_apart_from_skipped_ones(language: Language, line: str) -> None:
    assert coverage_line(UNLISTED, language) == line


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("en", "files not read (GitHub's rate limit); judged from the title"),
        ("zh-CN", "未能读取文件（GitHub 速率限制），仅依据标题判断"),
    ],
)
def test_unknown_files_say_why_instead_of_counting(language: Language, line: str) -> None:
    assert coverage_line(Coverage(files_total=0, files_read=0, files_known=False), language) == line


def test_chinese_coverage_translates_skip_reasons() -> None:
    from bot.models import Coverage, SkippedFile
    from bot.render.labels import coverage_line

    coverage = Coverage(
        3, 1, (SkippedFile("uv.lock", "lock file"), SkippedFile("a.py", "did not fit the token budget"))
    )
    line = coverage_line(coverage, "zh-CN")
    assert "锁文件" in line and "超出 token 预算" in line
