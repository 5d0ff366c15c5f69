"""Follow-ups answered: realistic follow-ups on real vLLM PRs, the later PRs that answer them,
and the look-alikes that must not (same files only, a name in passing, a revert, code)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from bot.core.followups import MAX_ANSWERS, Answered, FollowUp, LaterPR, answers, key_terms
from bot.core.links import references
from tests.shared_data import shared_rows

REPO = "vllm-project/vllm"
KEEP = timedelta(days=30)


def rows() -> dict[int, dict[str, Any]]:
    return {row["number"]: row for row in shared_rows()}


def merged(row: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(row["merged_at"].replace("Z", "+00:00"))


def item(row: dict[str, Any], *points: str) -> FollowUp:
    return FollowUp(
        REPO,
        row["number"],
        row["title"],
        f"https://github.com/{REPO}/pull/{row['number']}",
        merged(row),
        points,
        tuple(change["path"] for change in row["files"]),
        row["commit"],
    )


def later(row: dict[str, Any], body: str | None = None, *, title: str | None = None) -> LaterPR:
    return LaterPR(
        REPO,
        row["number"],
        row["title"] if title is None else title,
        row["body"] if body is None else body,
        merged(row),
        tuple(change["path"] for change in row["files"]),
    )


# Follow-ups a card could say of real PRs of the data set (the points are ours, the PRs real).
POINTS: dict[int, tuple[str, ...]] = {
    # [ROCm][Bugfix] Kimi-K3 Fix KDA NaN on mixed batches and racy autotune config
    50649: ("Whether the prefill pipeline stall in chunked KDA gets removed on ROCm",),
    # [Frontend] DeepSeek V4 0731 reasoning effort prompts & mappings
    50580: ("The tokenizer's vocab size for DeepSeek V4 is not checked against the model's config",),
    # [ci] Update CI notify workflow with PR write permissions
    51079: ("Whether `pull-requests: write` is needed, or the notification works with `read`",),
    # [Misc] Avoid importing `nixl_ep` on every `vllm serve` config
    50879: ("Startup time of `vllm serve` when NIXL EP is installed is not measured",),
    # [KV Offload] Support partial secondary-tier load results
    50321: ("Tiering offload metrics do not count partial loads yet",),
    # [MoE][Humming] Support SiTU activation for Kimi-K3
    50510: ("Whether other Humming MoE backends adopt the `_supports_activation` allow-list",),
    # [R3] Unify routed expert shape configuration
    50940: ("Whether R3 capture works with DeepGEMM MegaMoE",),
    # [MoE] Share apply_moe_activation support metadata
    44359: ("Whether the Triton and Cutlass MoE experts keep their activation metadata in sync",),
    # [MoE Refactor] Remove MoE legacy code
    51078: ("Whether out-of-tree MoE plugins relied on the removed legacy runner interface",),
    # [EPD] Remove duplicate image preprocessing in EPD and enable preprocess on GPU
    50390: ("Whether MiniCPM-V keeps its own image preprocessing path",),
}
# The later PRs of the data set that answer them: (later, earlier) → how. Every other PR of the
# data set answers none, among them the look-alikes on the same files: 48413 fixes MiniCPM-V's
# image processor (50390's point names MiniCPM-V, "image" is 50390's own subject), 50874 sizes an
# R3 buffer, 51411 fixes a crash in TritonExperts, 50654 fuses a KDA decode kernel.
EXPECTED = {(51862, 50649): "files", (51727, 50580): "files", (51831, 50940): "files"}


def test_of_every_pr_of_the_data_set_only_the_expected_ones_answer_a_point() -> None:
    data = rows()
    earlier = [item(data[number], *points) for number, points in POINTS.items()]
    found = answers([later(row) for row in data.values()], earlier, KEEP)
    got = {(answer.number, answer.earlier.number): answer.by for answer in found}
    assert got == EXPECTED
    # The data set holds look-alikes of each: later PRs on the same files about something else.
    same_files = {
        (row["number"], pr.number)
        for row in data.values()
        for pr in earlier
        if merged(row) > pr.merged_at and not set(pr.paths).isdisjoint(c["path"] for c in row["files"])
    }
    assert len(same_files - set(EXPECTED)) >= 20
    assert {(48413, 50390), (50874, 50940), (51411, 44359), (50654, 50649)} <= same_files


# (name, earlier PR, its point, later PR of the data set, the later PR's body, expected "how" or None)
CASES: list[tuple[str, int, str, int, str, str | None]] = [
    # A PR that names the earlier one and says a word of the point answers it.
    (
        "names it, says the point's word",
        51079,
        POINTS[51079][0],
        51095,
        "Follow-up to #51079: without `pull-requests: write` the notification now falls back to a comment.",
        "reference",
    ),
    (
        "names it as PR#N",
        51079,
        POINTS[51079][0],
        51095,
        "As asked in PR#51079's review: the notification now needs only `read`.",
        "reference",
    ),
    (
        "names it by URL",
        51079,
        POINTS[51079][0],
        51732,
        "Uses the notification from https://github.com/vllm-project/vllm/pull/51079 for cancelled runs.",
        "reference",
    ),
    # Look-alikes.
    ("names it in passing, no word of the point", 51079, POINTS[51079][0], 51732, "Related: #51079, #51087.", None),
    (
        "names it, only words of the earlier title",
        51079,
        "Whether the CI notify workflow's permissions stay minimal",
        51732,
        "Like #51079, this updates a CI workflow's permissions.",
        None,
    ),
    (
        "another repository's PR of that number",
        51079,
        POINTS[51079][0],
        51732,
        "See vllm-project/production-stack#51079: the notification needs `pull-requests: write` there.",
        None,
    ),
    (
        "the number in code",
        51079,
        POINTS[51079][0],
        51732,
        "```\ngh pr view #51079  # notification, pull-requests: write\n```",
        None,
    ),
    (
        "a revert names it and says the point's word",
        50879,
        POINTS[50879][0],
        51176,
        "Reverts #50879: `vllm serve` startup broke when NIXL EP is installed.",
        None,
    ),
    (
        "same files, one word of the point",
        50649,
        POINTS[50649][0],
        50654,
        "",
        None,
    ),
    (
        "same files, plain words only",
        50321,
        POINTS[50321][0],
        48798,
        "",
        None,
    ),
    (
        "same files, no word of the point",
        50580,
        POINTS[50580][0],
        51447,
        "",
        None,
    ),
]


@pytest.mark.parametrize(("name", "earlier", "point", "number", "body", "expected"), CASES, ids=[c[0] for c in CASES])
def test_a_later_pr_answers_a_point_only_when_it_speaks_of_it(
    name: str, earlier: int, point: str, number: int, body: str, expected: str | None
) -> None:
    data = rows()
    found = answers([later(data[number], body)], [item(data[earlier], point)], KEEP)
    assert [answer.by for answer in found] == ([expected] if expected else [])


def test_terms_alone_without_the_files_or_a_name_never_answer() -> None:
    data = rows()
    # 51727's own title says the point's words, but as a PR that shares no file with 50580.
    stranger = LaterPR(REPO, 52999, data[51727]["title"], "", merged(data[51727]), ("vllm/other.py",))
    assert answers([stranger], [item(data[50580], *POINTS[50580])], KEEP) == ()


def test_only_later_prs_within_the_kept_days_answer() -> None:
    data = rows()
    earlier = item(data[50580], *POINTS[50580])
    answer = later(data[51727])
    assert answers([answer], [earlier], KEEP) != ()
    assert answers([answer], [earlier], timedelta(days=2)) == ()  # 51727 was merged 6 days later
    before = LaterPR(REPO, 51727, answer.title, "", earlier.merged_at - timedelta(hours=1), answer.paths)
    assert answers([before], [earlier], KEEP) == ()  # merged before the earlier PR
    itself = LaterPR(REPO, 50580, answer.title, "", earlier.merged_at + timedelta(days=1), answer.paths)
    assert answers([itself], [earlier], KEEP) == ()
    other_repo = LaterPR("acme/vllm", 51727, answer.title, "", answer.merged_at, answer.paths)
    assert answers([other_repo], [earlier], KEEP) == ()


def test_one_point_per_earlier_pr_the_best_and_a_few_per_card() -> None:
    day = datetime(2026, 8, 3, tzinfo=UTC)
    paths = ("vllm/model_executor/layers/fused_moe/layer.py",)
    earlier = [
        FollowUp(REPO, 100 + n, f"PR {n}", "", day, ("Whether FP8 gets a test on Blackwell", "FP8 on Hopper"), paths)
        for n in range(5)
    ]
    pr = LaterPR(
        REPO, 200, "[Test] FP8 MoE test on Blackwell", "Follow-up to #100, #101.", day + timedelta(days=1), paths
    )
    found = answers([pr], earlier, KEEP)
    assert len(found) == MAX_ANSWERS
    # The PRs it names come first; each with the point it answers best.
    assert [answer.earlier.number for answer in found[:2]] == [100, 101]
    assert {answer.point for answer in found} == {"Whether FP8 gets a test on Blackwell"}
    assert [answer.by for answer in found] == ["reference", "reference", "files"]


def test_a_chinese_point_is_matched_by_its_names_only() -> None:
    day = datetime(2026, 8, 3, tzinfo=UTC)
    paths = ("vllm/model_executor/layers/fused_moe/flashinfer_moe.py",)
    names = FollowUp(
        REPO,
        100,
        "Enable expandable segments",
        "",
        day,
        ("后续是否有针对 FlashInfer MoE workspace 分配策略的长期优化 PR",),
        paths,
    )
    words = FollowUp(REPO, 101, "Enable expandable segments", "", day, ("是否会推广到其他模型",), paths)
    pr = LaterPR(
        REPO, 200, "[Perf] FlashInfer MoE workspace reuse", "Follow-up to #101.", day + timedelta(days=1), paths
    )
    found = answers([pr], [names, words], KEEP)
    assert [(answer.earlier.number, answer.by) for answer in found] == [(100, "files")]
    assert key_terms(words.points[0]) == ()


@pytest.mark.parametrize(
    ("point", "terms"),
    [
        ("Whether the FP8 path gets a test on Blackwell", ["fp8", "blackwell"]),
        ("Follow-up to extend sharding to DeepSeek-V3", ["sharding", "deepseekv3"]),
        ("The TODO to remove the `VLLM_USE_V1` fallback", ["vllmusev1", "fallback"]),
        ("A long-term fix that saves 16 GiB per GPU", ["16gib"]),
        ("Whether other models adopt it in future PRs", []),
        ("Other backends, e.g. ROCm, i.e. AITER, etc.", ["rocm", "aiter"]),
    ],
)
def test_key_terms_are_the_names_and_distinctive_words_of_a_point(point: str, terms: list[str]) -> None:
    assert [term.key for term in key_terms(point)] == terms


def test_names_are_strong_and_plain_words_weak() -> None:
    strength = {
        term.key: term.strong for term in key_terms("Whether `lamport` fusion lands in DeepSeek-V3 on Blackwell")
    }
    assert strength == {"lamport": True, "fusion": False, "deepseekv3": True, "blackwell": True}


def test_an_answer_keeps_the_point_and_the_earlier_item() -> None:
    data = rows()
    (found,) = answers([later(data[51862])], [item(data[50649], *POINTS[50649])], KEEP)
    assert found == Answered(REPO, 51862, item(data[50649], *POINTS[50649]), POINTS[50649][0], "files")


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Follow-up to #51079.", {51079}),
        ("As asked in PR#51079 and pr #51080", {51079, 51080}),
        ("See https://github.com/vllm-project/vllm/pull/51079#discussion_r1", {51079}),
        ("vllm-project/vllm#51079 and VLLM-Project/vllm#51080", {51079, 51080}),
        ("vllm-project/production-stack#51079", set()),
        ("abc#51079, &#51079; and docs/#51079", set()),
        ("`#51079` and\n```\n#51080\n```\n> #51081\n<!-- #51082 -->", set()),
    ],
)
def test_a_pr_is_named_in_prose_only(text: str, named: set[int]) -> None:
    assert references(text, REPO) == named
