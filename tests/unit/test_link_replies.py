"""Replies in earlier threads, in one process: posted once per link, finished by the next run after
a crash between Slack's answer and the ledger, and the links' words in both languages."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import cast

import pytest
from devkit.clocks import Clock
from slack_sdk import WebClient
from slack_sdk.web.slack_response import SlackResponse

from bot.core.links import CrossLink, Shown
from bot.core.pacing import Pacing
from bot.digests.publisher import DigestTies, PostPace, Publisher
from bot.models import Digest, DigestItem, Language
from bot.render.slack.blocks import lead_message, thread_messages
from bot.render.slack.digest_messages import DigestBlocks
from bot.slack.web import SlackWeb
from bot.store.backends.memory import MemoryKV
from bot.store.ledger import PostLedger
from bot.store.threads import ThreadStore
from tests.unit.builders import make_listing
from tests.unit.test_publisher import WINDOW, Died, FakeSlack, _response, card

CHANNEL = "C0DIGEST01"
DAY1, DAY2 = "2026-08-03", "2026-08-04"


@dataclass
class LinkingSlack(FakeSlack):
    def chat_getPermalink(self, *, channel: str, message_ts: str) -> SlackResponse:
        link = f"https://acme.slack.com/archives/{channel}/p{message_ts.replace('.', '')}"
        return _response("chat.getPermalink", {"ok": True, "channel": channel, "permalink": link})


def digest_of(*items: tuple[int, str, str], language: Language = "en") -> Digest:
    return Digest(
        repos=("acme/widgets",),
        window=WINDOW,
        total_merged=len(items),
        items=tuple(
            DigestItem(make_listing(number=n, title=title, body=body, merge_sha=f"{n:040x}"), card(n), size=10)
            for n, title, body in items
        ),
        language=language,
    )


DAY1_DIGEST = digest_of((2, "Widget cache", ""), (3, "Widget colours", ""))
DAY2_DIGEST = digest_of(
    (10, "Back out the widget cache", "Reverts #2: it leaked memory."),
    (11, "Colours for dark mode", "Follow-up to #3"),
    (12, "Unrelated", "Fixes #40 (an issue) and see `#3`"),
)


def publisher(slack: FakeSlack, kv: MemoryKV) -> Publisher:
    clock = slack.clock
    return Publisher(
        SlackWeb(cast(WebClient, slack)),
        PostLedger(kv),
        ThreadStore(kv),
        messages=DigestBlocks(),
        pace=PostPace(0.0, Pacing(clock, clock.sleep)),
    )


def replies(slack: FakeSlack, thread_ts: str) -> list[str]:
    return [m["text"] for m in slack.threads.get(thread_ts, []) if m["metadata"]["event_type"] == "prdigest_link"]


def test_each_link_is_answered_once_in_the_earlier_thread() -> None:
    slack, kv = LinkingSlack(Clock()), MemoryKV()
    first = publisher(slack, kv).publish(CHANNEL, DAY1, DAY1_DIGEST)
    assert first.thread_ts is not None
    day2 = publisher(slack, kv)
    links = day2.links.find(CHANNEL, DAY2, DAY2_DIGEST)
    assert [(link.kind, link.number, link.earlier.number) for link in links] == [
        ("revert", 10, 2),
        ("follow_up", 11, 3),
    ]
    day2.publish(CHANNEL, DAY2, DAY2_DIGEST, ties=DigestTies(links))
    said = replies(slack, first.thread_ts)
    assert len(said) == 2
    assert "Reverted by <https://github.com/acme/widgets/pull/10|#10>" in said[0]
    assert "Follow-up merged: <https://github.com/acme/widgets/pull/11|#11>" in said[1]

    posts = len(slack.posts)
    publisher(slack, kv).publish(CHANNEL, DAY2, DAY2_DIGEST, ties=DigestTies(links))  # a second run, another replica
    assert len(slack.posts) == posts


def test_a_reply_that_reached_slack_before_a_crash_is_not_posted_again() -> None:
    slack, kv = LinkingSlack(Clock()), MemoryKV()
    first = publisher(slack, kv).publish(CHANNEL, DAY1, DAY1_DIGEST)
    assert first.thread_ts is not None
    links = publisher(slack, kv).links.find(CHANNEL, DAY2, DAY2_DIGEST)
    # Lead + one thread message, then the first reply: the process dies once Slack has it.
    slack.die_after_post = len(slack.posts) + 3
    with pytest.raises(Died):
        publisher(slack, kv).publish(CHANNEL, DAY2, DAY2_DIGEST, ties=DigestTies(links))
    assert len(replies(slack, first.thread_ts)) == 1
    slack.die_after_post = None
    publisher(slack, kv).publish(CHANNEL, DAY2, DAY2_DIGEST, ties=DigestTies(links))
    assert len(replies(slack, first.thread_ts)) == 2  # the second, not the first again


def _links(day2: Digest) -> tuple[CrossLink, ...]:
    earlier = Shown(
        "acme/widgets",
        2,
        "Widget cache",
        None,
        DAY1,
        "1.0",
        "https://acme.slack.com/archives/C/p10",
        "https://github.com/acme/widgets/pull/2",
    )
    return (CrossLink("revert", "acme/widgets", 10, earlier),)


PR2 = "<https://github.com/acme/widgets/pull/2|#2>"
PR10 = "<https://github.com/acme/widgets/pull/10|#10>"
THREAD = "https://acme.slack.com/archives/C/p10"


def test_the_lead_and_the_card_say_what_was_reverted_in_english_and_chinese() -> None:
    cases: tuple[tuple[Language, str, str], ...] = (
        (
            "en",
            f"Reverts {PR2}, in this channel's digest of <{THREAD}|Aug 3>",
            f"{PR2} from this channel's digest of <{THREAD}|Aug 3> is reverted by {PR10}",
        ),
        (
            "zh-CN",
            f"回滚了 {PR2}，见本频道 <{THREAD}|8月3日> 的摘要",
            f"本频道 <{THREAD}|8月3日> 摘要中的 {PR2} 已被 {PR10} 回滚",
        ),
    )
    for language, card_line, lead_line in cases:
        day2 = replace(DAY2_DIGEST, language=language)
        assert lead_line in json.dumps(lead_message(day2, _links(day2)).blocks, ensure_ascii=False)
        cards = json.dumps([m.blocks for m in thread_messages(day2, _links(day2))], ensure_ascii=False)
        assert cards.count(card_line) == 1


def test_without_links_the_messages_are_as_before() -> None:
    assert lead_message(DAY2_DIGEST, ()) == lead_message(DAY2_DIGEST)
    assert thread_messages(DAY2_DIGEST, ()) == thread_messages(DAY2_DIGEST)
    assert "digest of" not in json.dumps([m.blocks for m in thread_messages(DAY2_DIGEST)])
