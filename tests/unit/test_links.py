"""Links across days: realistic descriptions of each kind, and the look-alikes that are not links."""

from __future__ import annotations

import pytest

from bot.core.links import CrossLink, KnownPR, Link, Mentioned, Shown, cross_links, find_links, mentions
from tests.shared_data import shared_rows

REPO = "vllm-project/vllm"
KNOWN = {
    pr.number: pr
    for pr in (
        KnownPR(50656, "[Core] Chunked prefill for encoder-decoder models", "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"),
        KnownPR(
            50879,
            "[Misc] Avoid importing `nixl_ep` on every `vllm serve` config",
            "7b50d2c0bcee44ad89ee7ec75377560ed37915e3",
        ),
        KnownPR(48223, "[Perf][ROCm] Dual-stream decode with hipgraphs", "47ececb58e073c6ff7a99033950455763f302055"),
        KnownPR(52989, "[Bugfix] Fix FP8 scale loading for MoE", "ffee00112233445566778899aabbccddeeff0011"),
        KnownPR(1, "Initial commit", None),
    )
}

# (name, title, body, review comments, expected links)
CASES = [
    # follow-ups
    (
        "follow-up in body",
        "[Core] Encoder cache for chunked prefill",
        "## Purpose\nFollow-up to #50656: the encoder cache is now reused across chunks.\n\n## Test Plan\npytest",
        (),
        {Link("follow_up", 50656)},
    ),
    (
        "follow up of owner/repo#N",
        "[Core] Tidy prefill",
        "This is a follow up of vllm-project/vllm#50656.",
        (),
        {Link("follow_up", 50656)},
    ),
    (
        "followup URL",
        "[Core] Tidy prefill",
        "Followup for https://github.com/vllm-project/vllm/pull/50656",
        (),
        {Link("follow_up", 50656)},
    ),
    (
        "follow-up in a review comment",
        "[Core] Tidy prefill",
        "",
        ("LGTM. Note this is a follow-up to #50656, linking for the record.",),
        {Link("follow_up", 50656)},
    ),
    # reverts
    (
        "Reverts #N",
        "Revert FP8 scale change",
        "Reverts #52989\n\nIt broke DeepSeek-V3 on H100.",
        (),
        {Link("revert", 52989)},
    ),
    (
        "GitHub's revert body",
        'Revert "[Bugfix] Fix FP8 scale loading for MoE"',
        "Reverts vllm-project/vllm#52989",
        (),
        {Link("revert", 52989)},
    ),
    (
        "This reverts commit <sha>",
        "Back out the FP8 scale loader",
        "This reverts commit ffee0011223344.\n\nCI on AMD went red after it.",
        (),
        {Link("revert", 52989)},
    ),
    (
        "revert by title only",
        'Revert "[Perf][ROCm] Dual-stream decode with hipgraphs"',
        "",
        (),
        {Link("revert", 48223)},
    ),
    (
        "revert title with number",
        "Revert [Misc] Avoid importing `nixl_ep` on every `vllm serve` config (#50879)",
        "",
        (),
        {Link("revert", 50879)},
    ),
    # fixes
    (
        "Fixes a merged PR",
        "[Bugfix] Scale dtype",
        "Fixes #52989 (scales were read as bf16).",
        (),
        {Link("fixes", 52989)},
    ),
    (
        "Fixes a merged PR by URL",
        "[Bugfix] Scale dtype",
        "Fix https://github.com/vllm-project/vllm/pull/52989",
        (),
        {Link("fixes", 52989)},
    ),
    # look-alikes: none of these is a link
    ("Fixes an issue", "[Bugfix] OOM on startup", "FIX #49013\n\nCloses #49014", (), set()),
    (
        "PR of another repository",
        "[Deps] Bump flashinfer",
        "Follow-up to flashinfer-ai/flashinfer#50656\nReverts pytorch/pytorch#52989",
        (),
        set(),
    ),
    (
        "number in a code block",
        "[Docs] Revert instructions",
        "How to back out:\n```\ngit revert -m1 HEAD  # Reverts #52989\n```\n",
        (),
        set(),
    ),
    ("number in inline code", "[Docs] Changelog", "The changelog entry reads `Follow-up to #50656`.", (), set()),
    (
        "#1 in a table",
        "[Bench] Results",
        "| run | result |\n|---|---|\n| #1 | 12.3 ms |\n| Fixes #52989 | x |",
        (),
        set(),
    ),
    ("quoted text", "[Core] Tidy", "> Reverts #52989\nNot what we do here.", (), set()),
    ("template placeholder", "[Core] Tidy", "<!-- e.g. Fixes #52989 or Follow-up to #50656 -->\nNothing.", (), set()),
    ("a question about reverting", "[Core] Tidy", "", ("Should we revert #52989 instead?",), set()),
    ("unknown PR", "[Core] Tidy", "Follow-up to #40000", (), set()),
    ("self reference", 'Revert "x" (#53000)', "Reverts #53000", (), set()),
    ("unknown sha", "Back out", "This reverts commit 0123456789abcdef.", (), set()),
    ("a plain mention", "[Core] Tidy", "Similar to #50656 and related to #52989.", (), set()),
    ("a denied follow-up", "[Core] Tidy", "This is not a follow-up to #50656; it stands alone.", (), set()),
    ("a denied fix", "[Core] Tidy", "", ("It doesn't fix #52989, only hides it.",), set()),
    ("a fix without", "[Core] Tidy", "Works without fixes #52989 applied.", (), set()),
    (
        "a denial on another line",
        "[Bugfix] Scale dtype",
        "Nothing else changes, no.\nFixes #52989",
        (),
        {Link("fixes", 52989)},
    ),
]


@pytest.mark.parametrize(("name", "title", "body", "comments", "expected"), CASES, ids=[c[0] for c in CASES])
def test_links_found_are_the_expected_ones(name, title, body, comments, expected):
    assert set(find_links(REPO, 53000, title, body, comments, KNOWN)) == expected


def test_found_equals_expected_for_each_kind_and_no_wrong_link():
    found = {"revert": 0, "follow_up": 0, "fixes": 0}
    expected = dict(found)
    wrong = 0
    for _, title, body, comments, want in CASES:
        got = set(find_links(REPO, 53000, title, body, comments, KNOWN))
        for link in want:
            expected[link.kind] += 1
            found[link.kind] += link in got
        wrong += len(got - want)
    assert found == expected == {"revert": 5, "follow_up": 4, "fixes": 3}
    assert wrong == 0


def test_a_revert_named_two_ways_is_one_revert_link():
    links = find_links(
        REPO, 53000, 'Revert "[Bugfix] Fix FP8 scale loading for MoE"', "Reverts #52989\nFixes #52989", (), KNOWN
    )
    assert links == (Link("revert", 52989),)


def test_the_data_sets_two_reverts_are_found_and_nothing_else() -> None:
    rows = sorted(shared_rows(), key=lambda row: row["merged_at"])
    known: dict[int, KnownPR] = {}
    links: dict[int, tuple[Link, ...]] = {}
    for row in rows:
        found = find_links(REPO, row["number"], row["title"], row.get("body") or "", (), known)
        if found:
            links[row["number"]] = found
        known[row["number"]] = KnownPR(row["number"], row["title"], row.get("commit"))
    assert links == {51176: (Link("revert", 50879),), 52024: (Link("revert", 48223),)}


def test_cross_links_name_the_latest_digest_that_showed_the_earlier_pr():
    old = Shown(REPO, 52989, "[Bugfix] Fix FP8 scale loading for MoE", None, "2026-08-01", "1.0")
    new = Shown(REPO, 52989, "[Bugfix] Fix FP8 scale loading for MoE", None, "2026-08-03", "3.0")
    other = Shown("other/repo", 52989, "x", None, "2026-08-03", "3.0")
    prs = [
        Mentioned(REPO, 53000, "Back out", "Reverts #52989"),
        Mentioned("other/repo", 7, "Tidy", "Follow-up to #50656"),
        Mentioned(REPO, 53001, "Tidy", "Nothing to see"),
    ]
    assert cross_links(prs, [new, old, other]) == (CrossLink("revert", REPO, 53000, new),)


def test_review_comments_keep_only_the_lines_that_may_link_and_those_still_link():
    comments = (
        "Nice work!\nThis is a follow-up to #50656, right?\n```\nReverts #52989\n```",
        "LGTM",
        "Fixes #49013 too",
    )
    kept = mentions(comments)
    assert kept == ("This is a follow-up to #50656, right?", "Fixes #49013 too")
    assert find_links(REPO, 53000, "Tidy", "", kept, KNOWN) == (Link("follow_up", 50656),)
