"""Follow-ups answered through the real app on loopback: two days replayed with `/pr digest`,
fake GitHub, fake model and fake Slack, real Redis. Day 1's card says what to watch; on day 2 the
PR that names it answers it under its card, and the PR that only changes the same files does not."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from devkit.clocks import WallClock
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import DEFAULT_CARD, FakeOpenAI

from tests.integration.conftest import REPO
from tests.integration.slack_harness import DIGEST_CHANNEL, HUMAN, SlackHarness, serve_harness
from tests.integration.test_links_across_days import card_lines, post_digest, texts

KERNEL = "vllm/model_executor/layers/fused_moe/fp8_gemm.py"
EARLIER_TITLE = "[Kernel] FP8 block-scaled GEMM for MoE"
POINT = "Whether the FP8 GEMM path gets a test on Blackwell (SM100)"
# Day 2: (title, body, files)
ANSWERS = 310
SAME_FILES = 311
DAY2_PRS: dict[int, tuple[str, str, str]] = {
    ANSWERS: (
        "[Test] Blackwell SM100 coverage for the MoE GEMM",
        "Follow-up to #300: runs the block-scaled GEMM tests on SM100.",
        "tests/kernels/moe/test_fp8_gemm.py",
    ),
    SAME_FILES: ("[Perf] Tune FP8 GEMM tile sizes for MoE", "Retunes the tile sizes of the GEMM.", KERNEL),
}
ANSWER_LINE = f":eyes: Answers a follow-up of <https://github.com/{REPO}/pull/300|#300> (merged Aug 4): “{POINT}”"


def respond(request: dict[str, Any]) -> dict[str, Any]:
    """The model's card: day 1's kernel PR gets a follow-up, every other PR none."""
    if EARLIER_TITLE in json.dumps(request["messages"]):
        return {**DEFAULT_CARD, "headline": "FP8 block-scaled GEMM for MoE", "watch": [POINT]}
    return dict(DEFAULT_CARD)


@pytest.fixture
def two_days(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> Iterator[tuple[SlackHarness, WallClock]]:
    github.add_pr(
        REPO,
        300,
        title=EARLIER_TITLE,
        body="Adds an FP8 block-scaled GEMM for `fused_moe`. Not yet tested on Blackwell (SM100).",
        merged_at=datetime(2026, 8, 4, 12, tzinfo=UTC),
        merge_commit_sha=f"{300:040x}",
        files=[{"path": KERNEL, "additions": 120, "deletions": 4}],
    )
    for number, (title, body, path) in DAY2_PRS.items():
        github.add_pr(
            REPO,
            number,
            title=title,
            body=body,
            merged_at=datetime(2026, 8, 5, 12, number % 60, tzinfo=UTC),
            merge_commit_sha=f"{number:040x}",
            files=[{"path": path, "additions": 30, "deletions": 2}],
        )
    model.responder = respond
    clock = WallClock(datetime(2026, 8, 5, 12, tzinfo=UTC))
    with serve_harness(github, model, redis_url, tmp_path, now=clock) as harness:
        harness.slack.members = {DIGEST_CHANNEL: [HUMAN]}
        yield harness, clock


def test_the_pr_that_names_it_answers_the_watch_item_and_the_one_on_the_same_files_does_not(
    two_days: tuple[SlackHarness, WallClock],
) -> None:
    harness, clock = two_days
    assert "2026-08-05 is posted" in post_digest(harness, clock, "2026-08-05")
    (day1,) = harness.slack.messages(DIGEST_CHANNEL)
    day1_cards = card_lines(harness.slack.thread(DIGEST_CHANNEL, day1["ts"]))
    assert any(POINT in line for line in day1_cards[300])  # the card says what to watch
    assert "2026-08-06 is posted" in post_digest(harness, clock, "2026-08-06")
    day2 = next(m for m in harness.slack.messages(DIGEST_CHANNEL) if m["ts"] != day1["ts"])

    day2_cards = card_lines(harness.slack.thread(DIGEST_CHANNEL, day2["ts"]))
    assert set(day2_cards) == {ANSWERS, SAME_FILES}
    assert sum(ANSWER_LINE in line for line in day2_cards[ANSWERS]) == 1
    assert not any("follow-up" in line for line in day2_cards[SAME_FILES])
    # Nowhere else: not in day 1's thread, not in the lead, not as a reply.
    assert texts(harness.slack.all_messages()).count("Answers a follow-up") == 1

    # Day 2 posted again: nothing new.
    posted = len(harness.slack.all_messages())
    assert "already here" in post_digest(harness, clock, "2026-08-06")
    assert len(harness.slack.all_messages()) == posted
    assert harness.slack.rejections == []
