"""A channel set to zh-CN, served for real: its digest, answers, refusals, help and mistakes carry
no English sentence of ours (the English catalogue's words are looked for in all of it)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.models import DigestOptions, Filters, Window
from bot.render.slack.blocks import strings
from tests.integration import slack_harness
from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import DIGEST_CHANNEL, OTHER_REPO, SlackHarness, serve_harness, wait_for
from tests.unit.test_catalogue import english_in

DAY = "2026-08-05"
WINDOW = Window(day(0), day(24))
ANSWER = "它把调度循环移到了 `vllm/core/调度.py`。"
# Titles and paths of our own choosing: GitHub's text is not ours to translate.
PRS = [(1001, "加速调度器", "vllm/core/调度.py"), (1002, "更新 CI", ".github/workflows/ci.yml")]


def chinese_model(request: dict[str, Any]) -> dict[str, Any] | str:
    """The model writes in the channel's language, as the prompt asks."""
    if "response_format" not in request:
        return ANSWER
    return {"headline": "调度器提速", "verdict": "read", "minutes": 10, "why": ["值得借鉴"], "caveats": [], "watch": []}


@pytest.fixture
def chinese(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[SlackHarness]:
    """The harness with its digest channel set to zh-CN, and PRs with titles of our choosing."""
    config = slack_harness.CONFIG.replace(f'repos = ["{REPO}"]', f'repos = ["{REPO}"]\nlanguage = "zh-CN"', 1)
    monkeypatch.setattr(slack_harness, "CONFIG", config)
    for number, title, path in (
        (1001, "加速调度器", "vllm/core/调度.py"),
        (1002, "更新 CI", ".github/workflows/ci.yml"),
    ):
        files = [{"path": path, "additions": 40, "deletions": 3}]
        github.add_pr(REPO, number, title=title, merged_at=day(2), files=files)
    model.responder = chinese_model
    with serve_harness(github, model, redis_url, tmp_path) as served:
        yield served


def words(message: dict[str, Any]) -> str:
    return "\n".join(strings([message.get("text") or "", message.get("blocks") or []]))


def ack_words(response: requests.Response) -> str:
    """An ack's words: Bolt answers `ack(text=…)` in plain text, `ack(text=…, blocks=…)` in JSON."""
    if response.headers["content-type"].startswith("application/json"):
        return words(response.json())
    return response.text


def post_digest(harness: SlackHarness) -> str:
    result = harness.parts.digests.run(
        DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("zh-CN", Filters(), "note")
    )
    assert result is not None and result.thread_ts
    return result.thread_ts


def test_the_digest_and_its_answers_are_chinese(chinese: SlackHarness) -> None:
    thread_ts = post_digest(chinese)
    (lead,) = chinese.slack.messages(DIGEST_CHANNEL)
    assert "合并 2 个" in words(lead) and "卡片与问答见讨论串" in words(lead)
    posted = [lead, *chinese.slack.thread(DIGEST_CHANNEL, thread_ts)]
    chinese.thread_reply(DIGEST_CHANNEL, thread_ts, "#1001 改了什么？")
    answer = wait_for(
        lambda: [
            m for m in chinese.slack.thread(DIGEST_CHANNEL, thread_ts) if ANSWER[:4] in words(m) and chinese.settled(m)
        ]
    )
    assert "关于 " in words(answer[0])
    chinese.thread_reply(DIGEST_CHANNEL, thread_ts, f"{OTHER_REPO}#5 呢？")
    (refusal,) = wait_for(lambda: chinese.slack.ephemeral)
    assert "本频道只回答为它配置的仓库" in words(refusal)
    placeholders = chinese.slack.calls("chat.postMessage")
    for shown in [*posted, *answer, refusal, *placeholders]:
        assert english_in(words(shown)) == [], words(shown)


@pytest.mark.parametrize(
    ("typed", "told"),
    [
        ("help", "prdigest 使用方法"),
        ("what", "'what' 不是 PR 引用"),
        ("1001", "正在查看"),
    ],
)
def test_the_slash_command_answers_in_chinese(chinese: SlackHarness, typed: str, told: str) -> None:
    hook, response = chinese.command(typed)
    assert response.status_code == 200
    acked = ack_words(response)
    assert told in acked and english_in(acked) == []
    if typed == "1001":
        (card,) = wait_for(lambda: chinese.slack.responses[hook], timeout=15)
        assert "分享到频道" in json.dumps(card, ensure_ascii=False)
        assert english_in(words(card)) == []


def test_a_repository_the_channel_does_not_follow_is_refused_in_chinese(chinese: SlackHarness) -> None:
    hook, _ = chinese.command(f"{OTHER_REPO}#5")
    (refusal,) = wait_for(lambda: chinese.slack.responses[hook], timeout=15)
    assert "本频道只回答为它配置的仓库" in words(refusal) and english_in(words(refusal)) == []
