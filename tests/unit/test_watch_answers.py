"""Follow-ups answered in one process: the digest's follow-ups kept, a later digest's PR
answering one, the line under its card in both languages, within Slack's limits."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from bot.core.followups import Answered, FollowUp
from bot.core.links import CrossLink, Shown
from bot.digests.followups import FollowUpAnswers, followup_of
from bot.errors import StoreError
from bot.models import Card, Coverage, Digest, DigestItem, Language, Window
from bot.render.slack.blocks import MAX_BLOCKS, MAX_MESSAGE_CHARS, message_chars, thread_messages
from bot.render.slack.followups import card_followup_lines
from bot.store.backends.memory import MemoryKV
from bot.store.repos.followups import FollowUpStore
from tests.unit.builders import make_listing

REPO = "acme/widgets"
DAY1 = datetime(2026, 8, 3, 12, tzinfo=UTC)
PATHS = ("widgets/cache.py", "tests/test_cache.py")
POINT = "Whether the `WidgetCache` eviction gets a size limit on ARM64"


def card(*watch: str, language: Language = "en") -> Card:
    return Card(
        headline="Widget cache",
        verdict="skim",
        minutes=3,
        why=(),
        caveats=(),
        watch=watch,
        source="llm",
        coverage=Coverage(files_total=2, files_read=2),
        language=language,
    )


def entry(
    number: int, title: str, body: str, merged_at: datetime, *watch: str, paths: tuple[str, ...] = PATHS
) -> DigestItem:
    listing = make_listing(repo=REPO, number=number, title=title, body=body, merged_at=merged_at)
    return DigestItem(listing=listing, card=card(*watch), size=10, paths=paths)


def digest(*items: DigestItem, language: Language = "en") -> Digest:
    start = min(item.listing.merged_at or DAY1 for item in items)
    window = Window(start - timedelta(hours=1), start + timedelta(days=1))
    return Digest(repos=(REPO,), window=window, total_merged=len(items), items=items, language=language)


DAY1_DIGEST = digest(entry(2, "Widget cache", "", DAY1, POINT, "Widget cache hit rate on cold start"))
DAY2 = DAY1 + timedelta(days=1)
NAMES_IT = entry(10, "WidgetCache: size limit for eviction", "Follow-up to #2.", DAY2)
SAME_FILES = entry(11, "Widget cache: rename the module", "", DAY2 + timedelta(hours=1))
DAY2_DIGEST = digest(NAMES_IT, SAME_FILES)


def test_a_later_digests_pr_that_names_it_answers_and_one_on_the_same_files_does_not() -> None:
    watch = FollowUpAnswers(FollowUpStore(MemoryKV()))
    assert watch.find(DAY1_DIGEST) == ()
    found = watch.find(DAY2_DIGEST)
    assert [(answer.number, answer.earlier.number, answer.point, answer.by) for answer in found] == [
        (10, 2, POINT, "reference")
    ]
    # Found again the next run (the digest posted twice): the same, nothing kept twice.
    assert watch.find(DAY2_DIGEST) == found


def test_a_pr_answers_a_point_of_a_card_merged_earlier_in_the_same_digest() -> None:
    earlier = entry(2, "Widget cache", "", DAY1, POINT)
    answer = replace(NAMES_IT, listing=replace(NAMES_IT.listing, merged_at=DAY1 + timedelta(hours=2)))
    found = FollowUpAnswers(FollowUpStore(MemoryKV())).find(digest(answer, earlier))
    assert [(a.number, a.earlier.number) for a in found] == [(10, 2)]


def test_points_are_kept_for_watch_days_only() -> None:
    watch = FollowUpAnswers(FollowUpStore(MemoryKV()), days=1)
    watch.find(DAY1_DIGEST)
    late = replace(NAMES_IT, listing=replace(NAMES_IT.listing, merged_at=DAY1 + timedelta(days=3)))
    assert watch.find(digest(late)) == ()


def test_a_channel_is_shown_the_points_of_its_own_languages_card() -> None:
    store = FollowUpStore(MemoryKV())
    chinese_day1 = replace(
        DAY1_DIGEST,
        language="zh-CN",
        items=(
            replace(DAY1_DIGEST.items[0], card=card("`WidgetCache` 淘汰策略是否会在 ARM64 上加上限", language="zh-CN")),
        ),
    )
    FollowUpAnswers(store).find(DAY1_DIGEST)
    FollowUpAnswers(store).find(chinese_day1)
    (english,) = FollowUpAnswers(store).find(DAY2_DIGEST)
    (chinese,) = FollowUpAnswers(store).find(replace(DAY2_DIGEST, language="zh-CN"))
    assert english.point == POINT and chinese.point.endswith("ARM64 上加上限")


def test_only_cards_with_watch_points_are_kept() -> None:
    assert followup_of(NAMES_IT) is None
    kept = followup_of(DAY1_DIGEST.items[0])
    assert kept is not None and kept.points == (POINT, "Widget cache hit rate on cold start")
    assert kept.paths == PATHS and kept.merged_at == DAY1


class Unreachable(MemoryKV):
    def hset(self, key: str, field: str, value: bytes, ttl: int | None) -> None:
        raise StoreError("error.redis_unreachable", error="ConnectionError")


def test_a_store_that_fails_gives_no_answer_and_no_error() -> None:
    assert FollowUpAnswers(FollowUpStore(Unreachable())).find(DAY2_DIGEST) == ()


EARLIER = FollowUp(REPO, 2, "Widget cache", f"https://github.com/{REPO}/pull/2", DAY1, (POINT,), PATHS)
PR2 = f"<https://github.com/{REPO}/pull/2|#2>"


@pytest.mark.parametrize(
    ("language", "line"),
    [
        ("en", f":eyes: Answers a follow-up of {PR2} (merged Aug 3): “{POINT}”"),
        ("zh-CN", f":eyes: 回应了 {PR2}（8月3日合并）卡片中的待关注项：“{POINT}”"),
    ],
)
def test_the_card_says_which_watch_item_it_answers(language: Language, line: str) -> None:
    answered = (Answered(REPO, 10, EARLIER, POINT, "reference"),)
    day2 = replace(DAY2_DIGEST, language=language)
    cards = json.dumps([message.blocks for message in thread_messages(day2, (), answered)], ensure_ascii=False)
    assert cards.count(line) == 1
    assert card_followup_lines(SAME_FILES.listing, answered, language) is None


def test_the_point_is_escaped_and_clipped() -> None:
    point = "<!channel> & <https://evil.example|click> " + "x" * 500
    line = card_followup_lines(NAMES_IT.listing, (Answered(REPO, 10, EARLIER, point, "files"),), "en")
    assert line is not None
    assert "<!channel>" not in line and "&lt;!channel&gt; &amp; &lt;https://evil.example" in line
    assert len(line) < 400 and line.endswith("…”")


def test_links_and_watch_items_share_one_context_block_under_the_card() -> None:
    shown = Shown(REPO, 2, "Widget cache", None, "2026-08-03", "1.0", None, f"https://github.com/{REPO}/pull/2")
    links = (CrossLink("follow_up", REPO, 10, shown),)
    answered = (Answered(REPO, 10, EARLIER, POINT, "reference"),)
    (message,) = thread_messages(DAY2_DIGEST, links, answered)
    contexts = [b for b in message.blocks if b["type"] == "context" and "Follow-up to" in json.dumps(b)]
    assert len(contexts) == 1 and "Answers a follow-up" in json.dumps(contexts[0])
    assert thread_messages(DAY2_DIGEST, (), ()) == thread_messages(DAY2_DIGEST)


def test_many_cards_each_answering_long_points_stay_within_slacks_limits() -> None:
    point = "Whether `WidgetCache` " + "eviction & <size> " * 60
    earlier = [replace(EARLIER, number=n, points=(point,)) for n in range(1, 4)]
    items = tuple(entry(100 + n, "WidgetCache eviction", "", DAY2, paths=PATHS) for n in range(60))
    answered = tuple(Answered(REPO, 100 + n, e, point, "files") for n in range(60) for e in earlier)
    messages = thread_messages(digest(*items), (), answered)
    for message in messages:
        assert len(message.blocks) <= MAX_BLOCKS and message_chars(message.blocks) <= MAX_MESSAGE_CHARS
    assert sum(json.dumps(m.blocks).count("Answers a follow-up") for m in messages) == 180
