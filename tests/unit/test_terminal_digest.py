"""A digest in the terminal: the lead says once how many cards come from metadata, the skips are
one line each under their own heading, in the digest's language."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.models import Card, Coverage, Digest, DigestItem, Language, Verdict, Window
from bot.render.data import digest_data
from bot.render.terminal import render_card, render_digest
from tests.unit.builders import make_listing

WINDOW = Window(datetime(2026, 8, 5, tzinfo=UTC), datetime(2026, 8, 6, tzinfo=UTC))


def item(number: int, verdict: Verdict, source: str = "heuristic", language: Language = "en") -> DigestItem:
    card = Card(
        headline=f"Change {number}",
        verdict=verdict,
        minutes=1 if verdict == "skip" else 5,
        why=("A one-line change in a.py",),
        caveats=(),
        watch=(),
        source=source,  # type: ignore[arg-type]
        coverage=Coverage(files_total=1, files_read=1),
        language=language,
    )
    return DigestItem(make_listing(repo="acme/widgets", number=number), card, size=2)


def digest(*items: DigestItem, language: Language = "en") -> Digest:
    return Digest(("acme/widgets",), WINDOW, len(items), tuple(items), language)


def test_the_metadata_note_is_said_once_with_the_count_and_skips_are_one_line_each() -> None:
    out = render_digest(digest(item(1, "read"), item(2, "skip"), item(3, "skip")))
    assert out.count("summary from metadata") == 1
    assert "All 3 cards: summary from metadata, no model" in out
    assert out.endswith(
        "Skip (2): the headline says enough\n  - Change 2 · acme/widgets#2\n  - Change 3 · acme/widgets#3\n"
    )
    assert "Coverage: read its one file\n" in out  # not "read 1 of 1 files"


def test_some_cards_from_a_model_and_one_card_alone_read_right() -> None:
    mixed = render_digest(digest(item(1, "read", "llm"), item(2, "skim")))
    assert "1 of 2 cards: summary from metadata, no model" in mixed
    assert "summary from metadata" not in render_digest(digest(item(1, "read", "llm")))
    assert "The card: summary from metadata, no model" in render_digest(digest(item(1, "skim")))


def test_a_card_alone_still_says_where_it_comes_from() -> None:
    one = item(1, "skim")
    assert render_card(one.listing, one.card).endswith("Coverage: read its one file · summary from metadata, no model")


def test_a_chinese_digest_words_its_lead_and_skip_heading_in_chinese() -> None:
    out = render_digest(digest(item(1, "skim", language="zh-CN"), item(2, "skip", language="zh-CN"), language="zh-CN"))
    assert "全部 2 张卡片：依据元数据生成，未使用模型" in out
    assert "无需精读（1）：标题已说明一切\n  - Change 2 · acme/widgets#2\n" in out
    assert "已读唯一的文件" in out


def test_json_keeps_every_field_of_a_skip() -> None:
    data = digest_data(digest(item(1, "read"), item(2, "skip")))
    skip = data["items"][1]["card"]
    assert skip["verdict"] == "skip" and skip["why"] == ["A one-line change in a.py"]
