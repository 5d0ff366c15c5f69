"""The Messages tab's prompts, a PR link's reading and its compact unfurl (pure)."""

from __future__ import annotations

import json

import pytest

from bot.models import Card, Coverage, PRRef
from bot.render.slack.suggestions import MAX_PROMPTS, PromptIdeas, area_of, suggested_prompts
from bot.render.slack.unfurls import unfurl_blocks
from bot.unfurls.unfurling import pr_of
from tests.unit.builders import make_listing


def test_someone_in_following_channels_gets_the_digest_an_area_and_a_pr() -> None:
    prompts = suggested_prompts(PromptIdeas(follows=True, area="attention", pr="a/b#7"), "en")
    messages = [prompt["message"] for prompt in prompts.prompts]
    assert messages[:3] == [
        "What should I read from today's digest?",
        "What changed in `attention` this week?",
        "Explain a/b#7",
    ]
    assert len(prompts.prompts) <= MAX_PROMPTS and all(set(p) == {"title", "message"} for p in prompts.prompts)


def test_someone_in_no_following_channel_is_shown_how_to_look_up_a_pr_in_their_language() -> None:
    prompts = suggested_prompts(PromptIdeas(follows=False), "zh-CN")
    assert [prompt["message"] for prompt in prompts.prompts] == ["如何查询一个拉取请求？"]


@pytest.mark.parametrize(
    ("paths", "area"),
    [
        (["vllm/moe/a.py", "vllm/moe/b.py", "vllm/attention/c.py"], "moe"),
        (["docs/a.md", "src/b.py", "src/c.py"], "src"),
        (["README.md"], None),
        (["x/<!channel>/a.py"], None),  # a path is the author's text: names only
    ],
)
def test_the_area_is_the_busiest_directory_below_the_shared_root(paths: list[str], area: str | None) -> None:
    assert area_of(paths) == area


@pytest.mark.parametrize(
    ("url", "ref"),
    [
        ("https://github.com/a/b/pull/12", PRRef("a/b", 12)),
        ("https://github.com/a/b/pull/12/files", PRRef("a/b", 12)),
        ("https://www.github.com/a/b.c/pull/3#issuecomment-1", PRRef("a/b.c", 3)),
        ("https://github.com/a/b/issues/12", None),
        ("https://github.com/a/b/pull/12x", None),
        ("https://github.com.evil.example/a/b/pull/12", None),
        ("http://github.com/a/b/pull/0", None),
    ],
)
def test_only_links_to_a_pr_on_github_are_read(url: str, ref: PRRef | None) -> None:
    assert pr_of(url) == ref


def test_on_an_enterprise_server_only_its_own_links_are_read() -> None:
    web = "https://ghe.example.com"
    assert pr_of("https://ghe.example.com/platform/api/pull/12/files", web) == PRRef("platform/api", 12)
    # The public repository of the same name on github.com is another PR: not unfurled as ours.
    assert pr_of("https://github.com/platform/api/pull/12", web) is None
    assert pr_of("https://ghe.example.com.evil.example/platform/api/pull/12", web) is None


def test_an_unfurl_is_compact_and_escapes_what_the_pr_wrote() -> None:
    listing = make_listing(title="Faster <!channel> path")
    card = Card(
        headline="Cuts latency by 12% <!here>",
        verdict="read",
        minutes=9,
        why=("a point that stays in the card",),
        caveats=(),
        watch=(),
        source="llm",
        coverage=Coverage(files_total=3, files_read=3),
    )
    shown = json.dumps(unfurl_blocks(listing, card))
    assert "12%" in shown and "~9 min" in shown and "read 3 of 3 files" in shown
    assert "<!channel>" not in shown and "<!here>" not in shown
    assert "a point that stays" not in shown
    # Under someone else's message, a title's bare domain or #channel is never made a link.
    assert all(
        text.get("verbatim") is True
        for block in unfurl_blocks(listing, card)["blocks"]
        for text in [block.get("text"), *block.get("elements", [])]
        if text is not None
    )
