"""Ordinary questions in a channel that follows vllm-project/vllm, through the real app, with the
data set's first two days moved to be the day before yesterday and yesterday (Sunday Nov 29 and
Monday Nov 30, the clock at Tuesday Dec 1), both digests posted, and no model: every one gets the
PRs a reader expects."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from devkit.fakes import dataset
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.models import Window
from tests.integration.slack_harness import DIGEST_CHANNEL, SlackHarness, serve_harness, wait_for
from tests.shared_data import shared_rows

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
MOVED = datetime(2026, 11, 29, tzinfo=UTC) - datetime(2026, 8, 4, tzinfo=UTC)
CONFIG = f"""
[defaults]
timezone = "UTC"
language = "en"

[[channels]]
id = "{DIGEST_CHANNEL}"
repos = ["vllm-project/vllm"]
post_at = "00:00"
"""


def rows() -> list[dict[str, Any]]:
    moved = []
    for row in shared_rows():
        if row["merged_at"][:10] in ("2026-08-04", "2026-08-05"):
            merged = dataset.parse_time(row["merged_at"]) + MOVED
            moved.append(row | {"merged_at": merged.isoformat().replace("+00:00", "Z")})
    return moved


@pytest.fixture
def later(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    dataset.populate(github, rows())
    with serve_harness(
        github, model, redis_url, tmp_path, config_text=CONFIG, now=lambda: NOW, with_model=False
    ) as harness:
        plan = harness.home.directory.plan(DIGEST_CHANNEL)
        assert plan is not None
        for day in ("2026-11-29", "2026-11-30"):
            start = datetime.fromisoformat(day).replace(tzinfo=UTC)
            assert harness.home.digests.run_plan(plan, Window(start, start + timedelta(days=1)), day) is not None
        harness.settle()
        yield harness


def titled(day: str, *words: str) -> set[int]:
    """The PRs of `day` whose title names all of `words` (case ignored): what a reader expects."""
    return {
        row["number"]
        for row in rows()
        if row["merged_at"][:10] == day and all(word in row["title"].lower() for word in words)
    }


def asked(harness: SlackHarness, question: str) -> set[int]:
    ts, _ = harness.mention(DIGEST_CHANNEL, question)

    def answered() -> list[dict[str, Any]]:
        return [
            message
            for message in harness.slack.thread(DIGEST_CHANNEL, ts)
            if message.get("bot_id") and "Looking into it" not in (message.get("text") or "")
        ]

    (reply,) = wait_for(answered)
    text = json.dumps(reply.get("blocks", [])) + reply.get("text", "")
    return {int(number) for number in re.findall(r"/pull/(\d+)\|[\w./-]*#\1>", text)}


SUNDAY, MONDAY = "2026-11-29", "2026-11-30"


def test_a_day_named_by_its_date_or_weekday(later: SlackHarness) -> None:
    kimi = titled(SUNDAY, "kimi") | titled(SUNDAY, "k3")
    assert kimi and asked(later, "what merged on Nov 29 about Kimi-K3?") >= titled(SUNDAY, "kimi-k3")
    assert asked(later, "what merged on Nov 29 about Kimi-K3?") <= kimi
    assert asked(later, "11月29日有哪些关于 Kimi-K3 的 PR？") == asked(later, "what merged on Nov 29 about Kimi-K3?")
    attention = asked(later, "which PRs merged on 2026-11-29 touch attention?")
    assert titled(SUNDAY, "attention") <= attention and attention
    spec = asked(later, "anything about spec decode on Sunday?")
    assert spec and spec <= {row["number"] for row in rows() if row["merged_at"][:10] == SUNDAY}


def test_a_range_and_a_fix(later: SlackHarness) -> None:
    xpu = titled(SUNDAY, "xpu") | titled(MONDAY, "xpu")
    assert xpu and asked(later, "what merged between Nov 29 and Nov 30 about XPU?") >= xpu
    fixes = asked(later, "which PRs fixed bugs in Kimi-K3 on November 30?")
    assert fixes and fixes <= titled(MONDAY, "k3") | titled(MONDAY, "kimi")


def test_a_person_a_title_word_and_a_kernel(later: SlackHarness) -> None:
    nick = {row["number"] for row in rows() if row["author"] == "Nick Hill"}
    assert nick and asked(later, "what did Nick Hill merge in the last 3 days?") == nick
    assert asked(later, "tell me about the lamport PR") == titled(SUNDAY, "lamport")
    assert asked(later, "is there a PR about DeepGEMM in the last 3 days?") == titled(SUNDAY, "deepgemm")
