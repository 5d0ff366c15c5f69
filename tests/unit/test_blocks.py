"""Block Kit messages: what a card, the lead and the thread say, and that they always fit Slack's limits."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.models import (
    Card,
    CardSource,
    Coverage,
    Digest,
    DigestItem,
    Language,
    Note,
    PRListing,
    PRRef,
    SkippedFile,
    Verdict,
    Window,
)
from bot.ports.slack import Message
from bot.render.mrkdwn import answer_text
from bot.render.slack.blocks import (
    SHARE_ACTION,
    ShareRequest,
    card_blocks,
    card_message,
    help_message,
    lead_message,
    quiet_message,
    read_share_value,
    strings,
    text_message,
    thread_messages,
)
from tests.unit.builders import make_listing

DAY = Window(datetime(2026, 8, 5, tzinfo=UTC), datetime(2026, 8, 6, tzinfo=UTC))
HOSTILE = "<!channel> <@U1> <#C1> & <https://evil.test|x>"
# Links our code builds: to a PR or a diff on GitHub, and the Home tab's channel links.
OUR_MARKUP = re.compile(r"<https://github\.com/[^\s<>|]+\|[^<>|]*>|<#C[A-Z0-9]+>")


def make_card(
    *,
    headline: str = "Faster sampler",
    verdict: Verdict = "skim",
    minutes: int = 5,
    why: Sequence[str] = (),
    caveats: Sequence[str] = (),
    watch: Sequence[str] = (),
    source: CardSource = "llm",
    coverage: Coverage | None = None,
    language: Language = "en",
) -> Card:
    return Card(
        headline=headline,
        verdict=verdict,
        minutes=minutes,
        why=tuple(why),
        caveats=tuple(caveats),
        watch=tuple(watch),
        source=source,
        coverage=coverage or Coverage(files_total=2, files_read=2),
        language=language,
    )


def make_digest(
    cards: Sequence[tuple[PRListing, Card]],
    *,
    total: int | None = None,
    repos: tuple[str, ...] = ("acme/widgets",),
    language: Language = "en",
    notes: Sequence[str | Note] = (),
) -> Digest:
    """A digest; a note given as text stands for a note naming it (as an error names a PR)."""
    items = tuple(DigestItem(listing, card, 10) for listing, card in cards)
    merged = len(items) if total is None else total
    said = tuple(
        note if isinstance(note, Note) else Note("error.github_status", {"what": note, "status": 502}) for note in notes
    )
    return Digest(repos=repos, window=DAY, total_merged=merged, items=items, language=language, notes=said)


def many(count: int, **card_fields: Any) -> Digest:
    return make_digest(
        [(make_listing(number=n), make_card(headline=f"Change {n}", **card_fields)) for n in range(count)]
    )


# -- checks every message must pass ---------------------------------------------------------------


def assert_nothing_unescaped(message: Message | dict[str, Any]) -> None:
    """No `<`, `>` or bare `&` anywhere, in `text` or blocks, except links our code built."""
    parts = [message.text, message.blocks] if isinstance(message, Message) else [message]
    for text in strings(parts):
        rest = OUR_MARKUP.sub("", text)
        assert "<" not in rest and ">" not in rest, text
        assert not re.search(r"&(?!amp;|lt;|gt;)", rest), text


def text_objects(block: dict[str, Any]) -> list[dict[str, Any]]:
    found = [block["text"]] if "text" in block else []
    return found + [element for element in block.get("elements", ()) if "type" in element and "text" in element]


def assert_valid(message: Message) -> None:
    """Slack's limits (slack-platform.md §4), checked here independently of the renderer."""
    assert 1 <= len(message.blocks) <= 50
    assert 0 < len(message.text) <= 4000
    assert sum(len(text) for text in strings(message.blocks)) <= 12_000
    for block in message.blocks:
        for text in text_objects(block):
            if text["type"] in ("mrkdwn", "plain_text") and isinstance(text["text"], str):
                assert 0 < len(text["text"]) <= 3000
        if block["type"] == "header":
            assert block["text"]["type"] == "plain_text" and len(block["text"]["text"]) <= 150
    assert_nothing_unescaped(message)


def section_texts(message: Message) -> list[str]:
    return [block["text"]["text"] for block in message.blocks if block["type"] == "section"]


def context_texts(message: Message) -> list[str]:
    return [element["text"] for block in message.blocks if block["type"] == "context" for element in block["elements"]]


def all_text(message: Message) -> str:
    return "\n".join(strings([message.text, message.blocks]))


# -- the card -------------------------------------------------------------------------------------


def test_a_card_links_the_pr_and_gives_verdict_headline_and_points_under_their_words() -> None:
    card = make_card(verdict="read", minutes=12, why=("a design", "a pattern"), caveats=("no tests",), watch=("v2",))
    (section, context) = card_blocks(make_listing(number=7, title="Faster sampler"), card)
    assert section["text"]["text"] == (
        ":books: *<https://github.com/acme/widgets/pull/7|#7>* Read carefully (~12 min) · Faster sampler\n"
        "*Why*\n• a design\n• a pattern\n*Caveats*\n• no tests\n*Watch*\n• v2"
    )
    assert context["elements"][0]["text"] == "acme/widgets#7 · by alice · Coverage: read 2 of 2 files"


def test_a_heuristic_card_says_no_model_wrote_it_and_empty_groups_are_left_out() -> None:
    card = make_card(verdict="skip", source="heuristic")
    (section, context) = card_blocks(make_listing(title="Faster sampler"), card)
    assert section["text"]["text"].startswith(":fast_forward: ")
    assert "*Why*" not in section["text"]["text"]
    assert context["elements"][0]["text"].endswith("· summary from metadata, no model")


def test_a_model_headline_is_shown_with_the_prs_own_title() -> None:
    (section, _) = card_blocks(make_listing(title="[Perf] shard experts"), make_card(headline="Saves 16 GiB"))
    assert section["text"]["text"].splitlines()[1] == "[Perf] shard experts"


def test_a_title_loses_mentions_and_foreign_links_as_model_text_does() -> None:
    title = "Fix @here <!channel> see https://evil.test/x and https://github.com/acme/widgets/pull/3"
    (section, _) = card_blocks(make_listing(title=title), make_card(headline="Saves 16 GiB"))
    assert section["text"]["text"].splitlines()[1] == "Fix see and https://github.com/acme/widgets/pull/3"


def test_a_title_with_nothing_left_adds_no_line() -> None:
    (section, _) = card_blocks(make_listing(title="<!channel> @here"), make_card(headline="Saves 16 GiB"))
    assert len(section["text"]["text"].splitlines()) == 1


def test_coverage_names_skipped_files_and_their_reasons() -> None:
    coverage = Coverage(files_total=3, files_read=2, skipped=(SkippedFile("uv.lock", "lock file"),))
    message = card_message(make_listing(), make_card(coverage=coverage))
    assert context_texts(message) == [
        "acme/widgets#101 · by alice · Coverage: read 2 of 3 files; skipped 1 (1 lock file)"
    ]


def test_a_card_in_chinese_uses_chinese_labels() -> None:
    card = make_card(verdict="read", minutes=8, why=("设计",), caveats=("缺少测试",), language="zh-CN")
    message = card_message(make_listing(), card, share_for="U0ASKER001")
    (section,) = section_texts(message)
    assert "值得精读（约 8 分钟）" in section and "*看点*" in section and "*注意*" in section
    assert context_texts(message)[0] == "acme/widgets#101 · 作者 alice · 覆盖：已读 2/2 个文件"
    assert message.blocks[-1]["elements"][0]["text"]["text"] == "分享到频道"


def test_share_adds_a_primary_button_that_names_the_pr_and_its_asker() -> None:
    assert [block["type"] for block in card_message(make_listing(), make_card()).blocks] == ["section", "context"]
    message = card_message(make_listing(repo="vllm-project/vllm", number=51079), make_card(), share_for="U0ASKER001")
    (button,) = message.blocks[-1]["elements"]
    assert message.blocks[-1]["type"] == "actions"
    assert button["text"]["text"] == "Share in channel"
    assert (button["action_id"], button["style"]) == (SHARE_ACTION, "primary")
    assert read_share_value(button["value"]) == ShareRequest(PRRef("vllm-project/vllm", 51079), "U0ASKER001")
    assert_valid(message)


@pytest.mark.parametrize(
    "value",
    [
        "vllm-project/vllm#51079",  # what the button held before it named its asker
        '{"pr": "vllm-project/vllm#51079"}',
        '{"pr": "vllm-project/vllm#51079", "by": ""}',
        '{"pr": "vllm-project/vllm#51079", "by": 5}',
        '{"pr": "not a ref", "by": "U1"}',
        '["vllm-project/vllm#51079", "U1"]',
        "[" * 5000,
        "",
        '{"pr": "a/b#1", "by": "' + "U" * 2000 + '"}',
    ],
)
def test_a_share_value_we_did_not_write_stands_for_nothing(value: str) -> None:
    assert read_share_value(value) is None


def test_a_card_message_falls_back_to_verdict_pr_and_headline() -> None:
    message = card_message(make_listing(number=7), make_card(verdict="read", minutes=3, headline="Faster"))
    assert message.text == "Read carefully (~3 min) · acme/widgets#7 Faster"


def test_huge_points_are_clipped_so_every_group_still_shows() -> None:
    point = "x" * 270 + " & <b> end"
    card = make_card(verdict="read", why=(point,) * 3, caveats=(point,) * 3, watch=(point,) * 2, headline="h" * 120)
    message = card_message(make_listing(), card, share_for="U0ASKER001")
    assert_valid(message)
    (section,) = section_texts(message)
    assert section.count("\n• ") == 8
    assert "*Caveats*" in section and "*Watch*" in section


def test_points_far_over_the_section_limit_are_clipped() -> None:
    card = make_card(why=("<!here> " * 2000,) * 3, caveats=("y" * 5000,), headline="&" * 5000)
    message = card_message(make_listing(title="<" * 5000, author=">" * 5000), card, share_for="U0ASKER001")
    assert_valid(message)
    assert "*Caveats*" in section_texts(message)[0]


# -- hostile text ---------------------------------------------------------------------------------


def hostile_digest() -> Digest:
    listing = make_listing(title=f"Fix {HOSTILE}", author=f"mallory {HOSTILE}", labels=[HOSTILE])
    card = make_card(verdict="read", headline=HOSTILE, why=(HOSTILE,), caveats=(HOSTILE,), watch=(HOSTILE,))
    return make_digest([(listing, card)], notes=(f"note {HOSTILE}",))


def test_titles_authors_headlines_points_and_notes_cannot_ping_or_link() -> None:
    digest = hostile_digest()
    item = digest.items[0]
    messages = [
        lead_message(digest),
        *thread_messages(digest),
        card_message(item.listing, item.card, share_for="U0ASKER001"),
        quiet_message(make_digest([], total=3, notes=(HOSTILE,))),
    ]
    for message in messages:
        assert_valid(message)
    assert "&lt;!channel&gt;" in all_text(messages[0])


def test_a_model_answer_cannot_ping_or_link() -> None:
    answer = f"{HOSTILE}\n## Heading {HOSTILE}\n- see [here](https://evil.test) and `vllm/x.py`"
    message = text_message(answer_text(answer, "https://github.com/acme/widgets/pull/1", ["vllm/x.py"]))
    assert_valid(message)
    assert "<https://github.com/acme/widgets/pull/1/files#diff-" in section_texts(message)[0]


def test_a_command_name_in_help_is_escaped() -> None:
    assert_valid(help_message("/pr <!channel>", "en"))


# -- the lead message -----------------------------------------------------------------------------


def test_the_lead_has_the_day_the_counts_the_read_worthy_headlines_and_a_pointer_to_the_thread() -> None:
    digest = make_digest(
        [
            (make_listing(number=1), make_card(verdict="read", headline="Sharded experts")),
            (make_listing(number=2), make_card(verdict="skim", headline="Skim me")),
            (make_listing(number=3), make_card(verdict="read", headline="Better <kernels>")),
        ],
        total=5,
    )
    message = lead_message(digest)
    assert_valid(message)
    header = message.blocks[0]
    assert header["type"] == "header" and header["text"]["text"] == "acme/widgets · 2026-08-05 (UTC)"
    assert section_texts(message) == [
        "5 merged · 2 worth a careful read · 1 to skim · 0 to skip\n"
        "• <https://github.com/acme/widgets/pull/1|#1> Sharded experts\n"
        "• <https://github.com/acme/widgets/pull/3|#3> Better &lt;kernels&gt;"
    ]
    assert context_texts(message) == ["Cards and questions in the thread"]
    assert message.text == "acme/widgets · 2026-08-05 (UTC): 5 merged · 2 worth a careful read · 1 to skim · 0 to skip"


def test_the_lead_shows_notes_with_a_warning_in_its_language() -> None:
    note = Note("note.model_degraded", {"count": 3, "shown": 5})
    digest = make_digest([(make_listing(), make_card())], notes=(note,))
    assert context_texts(lead_message(digest))[0] == (
        ":warning: The model could not be reached for 3 of 5 PRs: their cards come from metadata."
    )
    chinese = make_digest([(make_listing(), make_card(language="zh-CN"))], notes=(note,), language="zh-CN")
    assert context_texts(lead_message(chinese))[0] == ":warning: 5 个 PR 中有 3 个未能连上模型，卡片改由元数据生成。"


def test_the_lead_in_chinese() -> None:
    digest = make_digest([(make_listing(), make_card(verdict="read", language="zh-CN"))], language="zh-CN")
    message = lead_message(digest)
    assert section_texts(message)[0].startswith("合并 1 个 · 值得精读 1 · 快速浏览 0 · 无需精读 0")
    assert context_texts(message)[-1] == "卡片与问答见讨论串"


def test_the_lead_names_the_repo_of_each_pr_when_a_digest_covers_several() -> None:
    listing = make_listing(repo="acme/gears", number=4)
    digest = make_digest([(listing, make_card(verdict="read"))], repos=("acme/widgets", "acme/gears"))
    assert "|acme/gears#4>" in section_texts(lead_message(digest))[0]


def test_a_lead_with_thousands_of_read_worthy_prs_says_how_many_more_are_in_the_thread() -> None:
    message = lead_message(many(3000, verdict="read"))
    assert_valid(message)
    lines = section_texts(message)[0].splitlines()
    shown = sum(1 for line in lines if line.startswith("• "))
    assert 10 < shown < 3000
    assert lines[-1] == f"… and {3000 - shown} more in the thread"


def test_a_header_with_many_repos_is_clipped_but_keeps_the_day() -> None:
    repos = tuple(f"acme/repository-{n}" for n in range(30))
    header = lead_message(make_digest([(make_listing(), make_card())], repos=repos)).blocks[0]["text"]["text"]
    assert len(header) <= 150 and header.endswith("… · 2026-08-05 (UTC)")


def test_quiet_digests_say_nothing_merged_or_nothing_matched_in_one_line() -> None:
    nothing = quiet_message(make_digest([], total=0))
    assert section_texts(nothing) == ["*acme/widgets · 2026-08-05 (UTC)* · No PR was merged in this window."]
    filtered = lead_message(make_digest([], total=4, language="zh-CN"))
    assert section_texts(filtered)[0].endswith("合并 4 个，均不符合本频道的筛选条件。")
    assert_valid(nothing)
    assert_valid(filtered)


# -- the thread -----------------------------------------------------------------------------------


def test_a_65_card_digest_is_packed_into_valid_messages_in_digest_order() -> None:
    digest = many(65, why=("w",), caveats=("c",))
    messages = thread_messages(digest)
    assert len(messages) > 1
    numbers: list[str] = []
    for message in messages:
        assert_valid(message)
        types = [block["type"] for block in message.blocks]
        assert types.count("divider") == types.count("section") - 1
        numbers += re.findall(r"\|#(\d+)>\*", all_text(message))
        assert message.text.splitlines() == [f"#{n} Change {n}" for n in re.findall(r"\|#(\d+)>\*", all_text(message))]
    assert numbers == [str(n) for n in range(65)]


def test_cards_with_huge_points_are_packed_within_the_character_limit() -> None:
    point = "y" * 280
    digest = many(40, verdict="read", why=(point,) * 3, caveats=(point,) * 3, watch=(point,) * 2)
    messages = thread_messages(digest)
    for message in messages:
        assert_valid(message)
    assert sum(len(section_texts(message)) for message in messages) == 40
    # About 2,500 characters a card: the character limit, not the block count, splits them.
    assert len(messages) >= 10


def test_3000_cards_all_reach_the_thread_in_valid_messages() -> None:
    messages = thread_messages(many(3000))
    for message in messages:
        assert_valid(message)
    assert sum(len(section_texts(message)) for message in messages) == 3000


def test_the_same_digest_always_gives_the_same_thread() -> None:
    first = thread_messages(many(65, why=("w",)))
    assert first == thread_messages(many(65, why=("w",)))
    assert first == thread_messages(many(65, why=("w",)))


# -- help, text, home -----------------------------------------------------------------------------


def test_help_shows_every_way_to_ask() -> None:
    message = help_message("/pr", "en")
    assert_valid(message)
    text, follow, watch = section_texts(message)
    for form in ("`/pr owner/repo#123`", "`/pr #123`", "`/pr &lt;PR URL&gt;`", "`@prdigest &lt;question"):
        assert form in text
    assert "thread" in text
    for form in ("`/pr follow owner/repo`", "`/pr unfollow owner/repo`", "`/pr following`", "`/pr settings`"):
        assert form in follow
    assert "`/pr digest`" in follow
    for form in (
        "`/pr watch owner/repo path/glob`",
        "`/pr watch owner/repo#123`",
        "`/pr watch list`",
        "`/pr unwatch all`",
    ):
        assert form in watch
    assert "讨论串" in section_texts(help_message("/digest", "zh-CN"))[0]


def test_text_message_keeps_safe_mrkdwn_and_fits_one_section() -> None:
    assert section_texts(text_message("*Yes*, see <https://github.com/a/b/pull/1|#1>")) == [
        "*Yes*, see <https://github.com/a/b/pull/1|#1>"
    ]
    assert_valid(text_message("word " * 2000))


# -- any text at all ------------------------------------------------------------------------------

_languages: st.SearchStrategy[Language] = st.sampled_from(["en", "zh-CN"])
_text = st.text(max_size=400) | st.sampled_from([HOSTILE, "&" * 300, "<" * 1000, "", " ", "\n" * 50])


@st.composite
def _cards(draw: st.DrawFn, number: int) -> tuple[PRListing, Card]:
    listing = make_listing(number=number, title=draw(_text), author=draw(_text))
    card = make_card(
        headline=draw(_text),
        verdict=draw(st.sampled_from(["read", "skim", "skip"])),
        minutes=draw(st.integers(0, 10_000)),
        why=draw(st.lists(_text, max_size=4)),
        caveats=draw(st.lists(_text, max_size=4)),
        watch=draw(st.lists(_text, max_size=3)),
        source=draw(st.sampled_from(["llm", "heuristic"])),
        language=draw(_languages),
    )
    return listing, card


@st.composite
def _digests(draw: st.DrawFn) -> Digest:
    count = draw(st.integers(0, 25))
    cards = [draw(_cards(n)) for n in range(count)]
    notes = tuple(draw(st.lists(_text, max_size=3)))
    total = count + draw(st.integers(0, 3))
    return make_digest(cards, total=total, notes=notes, language=draw(_languages))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(digest=_digests())
def test_any_text_gives_valid_messages_with_nothing_unescaped(digest: Digest) -> None:
    assert_valid(lead_message(digest))
    for message in thread_messages(digest):
        assert_valid(message)
    for item in digest.items:
        assert_valid(card_message(item.listing, item.card, share_for="U0ASKER001"))
