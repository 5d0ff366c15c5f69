"""The App Home tab: each channel with its repositories, schedule and last run, in the reader's language."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from bot.core.usage import Period, Spent, Usage
from bot.models import DigestRun, Note
from bot.render.slack.home import HomeRow, home_view
from tests.unit.test_blocks import assert_nothing_unescaped

RUN = DigestRun("C0123456789", "2026-08-05", datetime(2026, 8, 5, 9, 31, tzinfo=UTC), 12, 3)
REFUSED = Note("refusal.shared", {"repo": "acme/private", "channel": "C0123456789"})


def row(channel: str = "C0123456789", repos: tuple[str, ...] = ("vllm-project/vllm",), **fields: Any) -> HomeRow:
    return replace(HomeRow(channel, repos, "09:30", "Asia/Shanghai", "24h", "zh-CN"), **fields)


def sections(view: dict[str, Any]) -> list[str]:
    return [block["text"]["text"] for block in view["blocks"] if block["type"] == "section"]


def test_the_home_tab_lists_each_channel_with_repos_schedule_and_last_run() -> None:
    rows = [row(last_run=RUN), row("C0000000002", ("acme/a", "acme/b"), post_at="09:00", timezone="UTC", language="en")]
    view = home_view(rows)
    assert view["type"] == "home"
    assert view["blocks"][0]["text"]["text"] == "prdigest"
    first, second = sections(view)
    assert first == (
        "*<#C0123456789>* · vllm-project/vllm\n"
        "Daily at 09:30 Asia/Shanghai, window 24h · Simplified Chinese · "
        "last digest: 2026-08-05: 12 PRs, 3 messages, at 09:31 UTC"
    )
    assert "acme/a, acme/b" in second and "no digest yet" in second
    assert_nothing_unescaped(view)


def test_a_chinese_reader_gets_the_home_tab_in_chinese() -> None:
    failed = DigestRun(RUN.channel, RUN.day, RUN.finished_at, 0, 0, (REFUSED,))
    view = home_view([row(last_run=failed, told=REFUSED, language="en")], "zh-CN")
    (only,) = sections(view)
    assert only == (
        "*<#C0123456789>* · vllm-project/vllm\n"
        "每天 09:30（Asia/Shanghai）发送，时间窗口 24h · 英文 · "
        "上次摘要：2026-08-05：0 个 PR，0 条消息，09:31 UTC 完成，"
        "1 个问题：acme/private 是私有仓库，而 C0123456789 已与其他组织共享"
    )
    assert sections(home_view([], "zh-CN")) == ["你所在的频道都没有配置每日摘要。"]


def test_problems_not_for_this_reader_are_counted_not_told() -> None:
    failed = DigestRun(RUN.channel, RUN.day, RUN.finished_at, 0, 0, (REFUSED, REFUSED))
    (only,) = sections(home_view([row(repos=(), last_run=failed)]))
    assert only.endswith("at 09:31 UTC, 2 problem(s)") and "acme/private" not in only


def test_the_home_tab_stays_within_100_blocks_and_escapes_odd_channel_ids() -> None:
    rows = [row(f"C{n:09d}", ("acme/a",)) for n in range(150)]
    view = home_view([row("<!channel>", ("acme/<b>",)), *rows])
    assert len(view["blocks"]) <= 100
    assert view["blocks"][-1]["elements"][0]["text"] == "… and 53 more channels"
    assert_nothing_unescaped(view)
    assert len(home_view([])["blocks"]) == 2
    assert sections(home_view([], configured=False)) == ["No channel gets a digest yet: add one under `[[channels]]`."]


def test_a_channel_shows_its_tokens_and_its_repositories_with_cost_or_no_price() -> None:
    spent = Period(Spent(Usage(1200, 300), 0.0012), Spent(Usage(5000, 1000), None))
    repo = Period(Spent(Usage(2000, 500), None), Spent(Usage(9000, 1000), None))
    (section,) = sections(home_view([row(tokens=spent, repo_tokens=(("vllm-project/vllm", repo),))]))
    assert section.endswith(
        "\nModel tokens spent for this channel: today 1,500 (≈ $0.0012) · last 7 days 6,000 (no price configured)"
        "\nvllm-project/vllm: 2,500 today, 10,000 in 7 days (every channel)"
    )
    (without,) = sections(home_view([row()]))
    assert "tokens" not in without
