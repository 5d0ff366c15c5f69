"""One catalogue per language: the same keys and placeholders in each, every key the code names
exists, and a zh-CN reader meets no English sentence of ours anywhere (the English catalogue's
literal words are looked for in everything rendered for them)."""

from __future__ import annotations

import re
import string
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.cards.heuristic.cards import heuristic_card
from bot.core.checks.sanitize import sanitize_card
from bot.core.prompting.context import build_context
from bot.core.refs import parse_ref, parse_repo
from bot.digests.windows import parse_date, parse_since, window_for_date
from bot.errors import PrdigestError, PublishError, RateLimited, SourceError, StoreError, UsageError
from bot.models import (
    Card,
    CardReply,
    Choose,
    Coverage,
    Digest,
    DigestAnswer,
    DigestItem,
    DigestMatches,
    DigestRun,
    Help,
    Language,
    NotAllowed,
    Note,
    PRAnswer,
    PRListing,
    PRNotFound,
    PRRef,
    Reply,
    Rule,
    RuleKind,
    SkippedFile,
    Unavailable,
    Why,
    Window,
)
from bot.ports.slack import Message
from bot.render.data import digest_data
from bot.render.labels import reason_text
from bot.render.slack.blocks import card_message, help_message, lead_message, quiet_message, thread_messages
from bot.render.slack.home import HomeRow, home_view
from bot.render.slack.replies import failure_message, reply_message, say, thinking_message
from bot.render.terminal import render_card, render_digest
from bot.words import CATALOGUES, en, said, text, zh_cn
from tests.unit.builders import make_listing, make_snapshot

BOT = Path(__file__).resolve().parents[2] / "bot"
# A literal part of an English sentence counts when it holds this many letters: "min)" or "by"
# alone could be anything.
MIN_LETTERS = 4


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def _literal_parts(template: str) -> list[str]:
    parts = [literal for literal, _, _, _ in string.Formatter().parse(template)]
    return [piece.strip(" •\n") for part in parts for piece in part.split("\n")]


def _english_parts() -> set[str]:
    """The English catalogue's words: its templates' literal parts, less those the Chinese
    catalogue writes too (identifiers such as GITHUB_TOKEN or owner/repo#123)."""
    chinese = "\n".join(zh_cn.WORDS.values())
    return {
        part
        for template in en.WORDS.values()
        for part in _literal_parts(template)
        if sum(char.isascii() and char.isalpha() for char in part) >= MIN_LETTERS and part not in chinese
    }


ENGLISH = sorted(_english_parts(), key=len, reverse=True)
# Whole words only: "read" is English, "thread.py" is a path.
_ENGLISH = re.compile("|".join(rf"(?<![A-Za-z]){re.escape(part)}(?![A-Za-z])" for part in ENGLISH))


def english_in(shown: str) -> list[str]:
    """The English sentences (or parts of them) of ours in `shown`."""
    return _ENGLISH.findall(shown)


def json_readable(data: dict[str, Any]) -> str:
    """What people read in `--format json` of a digest: its notes and the cards' text. The rest
    is identifiers and codes (keys, verdicts, skip reasons) that programs match on."""
    cards = [item["card"] for item in data["items"]]
    texts = [*data["notes"], *(card["headline"] for card in cards)]
    texts += [point for card in cards for field in ("why", "caveats", "watch") for point in card[field]]
    return "\n".join(texts)


# -- the catalogues themselves ---------------------------------------------------------------------


def test_both_catalogues_have_the_same_keys_and_placeholders() -> None:
    assert en.WORDS.keys() == zh_cn.WORDS.keys()
    for key, template in en.WORDS.items():
        assert _placeholders(template) == _placeholders(zh_cn.WORDS[key]), key


def test_no_chinese_sentence_repeats_an_english_one() -> None:
    for key, template in zh_cn.WORDS.items():
        assert english_in(template) == [], key


_KEY = re.compile(rf'"((?:{"|".join({key.split(".")[0] for key in en.WORDS})})\.[\w.-]+)"')


def test_every_key_the_code_names_is_in_the_catalogue() -> None:
    named = {key for path in BOT.rglob("*.py") for key in _KEY.findall(path.read_text(encoding="utf-8"))}
    assert named, "no key found: the pattern is wrong"
    assert named - en.WORDS.keys() == set()


def test_every_skip_reason_has_its_words() -> None:
    reasons = ("binary file", "lock file", "generated file", "vendored", "no diff from GitHub (too large)")
    for reason in (*reasons, "did not fit the token budget"):
        assert reason_text(reason, "en") == reason
        assert english_in(reason_text(reason, "zh-CN")) == []


# -- everything a zh-CN reader is shown --------------------------------------------------------------

ZH: Language = "zh-CN"
WINDOW = Window(datetime(2026, 8, 4, tzinfo=UTC), datetime(2026, 8, 5, tzinfo=UTC))
REF = PRRef("acme/widgets", 101)
# Titles and paths of our own choosing: GitHub's text is not ours and may be English.
LISTING = make_listing(title="修复调度器的死锁")
FILES = [
    ("vllm/core/调度.py", 900, 40),
    ("vllm/engine/引擎.py", 300, 20),
    ("vllm/worker/执行.py", 200, 10),
    ("vllm/attention/注意力.py", 200, 10),
    ("uv.lock", 50, 50),
    ("image.png", 0, 0),
    ("requirements/cuda.txt", 2, 1),
    (".github/workflows/ci.yml", 3, 1),
]


def chinese_cards() -> list[tuple[PRListing, Card]]:
    """Heuristic cards that say every kind of thing: areas, tests, caveats, reverts, follow-ups."""
    cards = []
    for number, title, files, complete in (
        (101, "修复调度器的死锁", FILES, True),
        (102, 'Revert "加速" (#77)', [("vllm/core/调度.py", 60, 10)], True),
        (103, "重写引擎 part 1", [("vllm/engine/引擎.py", 90, 5), ("tests/测试_引擎.py", 40, 0)], True),
        (104, "[Perf] 更快的 top-k", [], False),
        (105, "", [("docs/说明.md", 3, 1), ("docs/指南.md", 3, 1), ("docs/其他.md", 1, 1)], True),
        (106, "更新 CI", [(".github/workflows/ci.yml", 3, 1)], True),
    ):
        snapshot = make_snapshot(number=number, title=title, files=files, complete=complete)
        coverage = build_context(snapshot, 300).coverage
        cards.append((snapshot.listing, heuristic_card(snapshot, coverage, ZH)))
    return cards


def every_note() -> tuple[Note, ...]:
    gone = SourceError("error.github_status", what="acme/widgets#7", status=502).note
    assert gone is not None
    return (
        Note("note.rate_limited_anonymous", {"count": 3, "shown": 9}),
        Note("note.rate_limited_until", {"count": 3, "shown": 9, "time": "10:00 UTC"}),
        Note("note.rate_limited", {"count": 3, "shown": 9}),
        Note("note.unreadable", {"prs": (Note("note.unreadable_pr", {"number": 7, "error": gone}),)}),
        Note("note.model_degraded", {"count": 2, "shown": 9}),
    )


def chinese_digest(cards: list[tuple[PRListing, Card]], total: int | None = None) -> Digest:
    items = tuple(DigestItem(listing, card, 10) for listing, card in cards)
    merged = len(items) if total is None else total
    return Digest(("acme/widgets",), WINDOW, merged, items, language=ZH, notes=every_note())


def _rules() -> tuple[Rule, ...]:
    kinds: tuple[RuleKind, ...] = ("repo", "window", "author", "labels_include", "paths")
    kept = [Rule(kind, True, "acme/widgets") for kind in kinds]
    left = [Rule(kind, False, "acme/widgets") for kind in (*kinds, "labels_exclude")]
    return (*kept, *left, Rule("window", False, ""))


def every_reply() -> list[Reply]:
    listing, card = chinese_cards()[0]
    return [
        PRAnswer(listing, "它给 `a.py` 加了缓存。", card, ("a.py",)),
        DigestAnswer("其中两个改了注意力。"),
        DigestMatches((listing,), model_failed=False),
        DigestMatches((), model_failed=True),
        Choose((listing, make_listing(number=102, title="另一个"))),
        CardReply(listing, card, ("a.py",)),
        CardReply(listing, card, ("a.py",), model_failed=True),
        CardReply(listing, card, ("a.py",), model_failed=True, unusable=True),
        NotAllowed(REF),
        NotAllowed(None),
        PRNotFound(REF),
        Unavailable(REF),
        Help(),
        Why(listing, _rules(), True, WINDOW),
        Why(listing, _rules(), False, None),
    ]


def every_error() -> list[PrdigestError]:
    """Every error a person meets, raised where the code raises it when that is at hand."""
    errors: list[PrdigestError] = []
    now = datetime(2026, 8, 5, tzinfo=UTC)
    attempts = [
        lambda: parse_ref("#12"),
        lambda: parse_ref("what"),
        lambda: parse_ref("acme/widgets#99999999999"),
        lambda: parse_repo("vllm"),
        lambda: parse_since("forever"),
        lambda: parse_since("900d"),
        lambda: parse_date("2026-02-30"),
        lambda: parse_date("2001-01-01"),
        lambda: window_for_date(date(2027, 1, 1), ZoneInfo("UTC"), now),
    ]
    for attempt in attempts:
        with pytest.raises(UsageError) as raised:
            attempt()
        errors.append(raised.value)
    reset = datetime(2026, 8, 5, 10, 0, tzinfo=UTC)
    refusals = (
        Note("refusal.not_configured", {"repo": "acme/secret", "channel": "C0TEST0001"}),
        Note("refusal.shared", {"repo": "acme/secret", "channel": "C0TEST0001"}),
    )
    redis = StoreError("error.redis_unreachable", error="ConnectionError")
    assert redis.note is not None
    errors += [
        RateLimited(reset, authenticated=True),
        RateLimited(reset, authenticated=False),
        RateLimited(None, authenticated=True),
        RateLimited(None, authenticated=False),
        SourceError("error.github_not_found", what="acme/widgets#7"),
        SourceError("error.github_refused", what="acme/widgets", status=403),
        SourceError("error.github_status", what="acme/widgets", status=502),
        SourceError("error.github_unreachable", what="acme/widgets", url="https://api.github.com", error="Timeout"),
        redis,
        StoreError("error.not_posted_store", error=redis.note),
        UsageError("error.not_posted_refused", reasons=refusals),
        PublishError("error.nothing_to_post", channel="C0TEST0001", reasons=refusals),
        PublishError("error.lease_lost", channel="C0TEST0001"),
        PublishError("error.shutting_down", channel="C0TEST0001"),
    ]
    hints = [key for key in en.WORDS if key.startswith("slack_hint.")]
    errors += [
        PublishError("error.slack_refused", channel="C0TEST0001", error="not_in_channel", hint=Note(hint))
        for hint in hints
    ]
    return errors


def _message_text(message: Message) -> str:
    return f"{message.text}\n{message.blocks}"


def everything_shown_in_chinese() -> dict[str, str]:
    """What a zh-CN channel, person or terminal is shown, by where it is shown."""
    cards = chinese_cards()
    digest = chinese_digest(cards)
    listing, card = cards[0]
    untitled = sanitize_card(
        replace(card, headline="<!here>"),
        "https://github.com/acme/widgets",
        untitled=text(card.language, "card.untitled"),
    )
    shown = {
        "lead": _message_text(lead_message(digest)),
        "thread": "\n".join(_message_text(message) for message in thread_messages(digest)),
        "quiet, nothing merged": _message_text(quiet_message(chinese_digest([]))),
        "quiet, filtered": _message_text(quiet_message(chinese_digest([], total=4))),
        "card": _message_text(card_message(listing, card, share_for="U0ASKER001")),
        "untitled": untitled.headline,
        "help": _message_text(help_message("/pr", ZH)),
        "thinking": _message_text(thinking_message(ZH)),
        "failure": _message_text(failure_message(ZH)),
        "terminal digest": render_digest(digest),
        "terminal card": render_card(listing, card),
        "json digest": json_readable(digest_data(digest)),
    }
    for name in ("too_long", "share_not_yours", "try_later", "digest_not_allowed"):
        shown[f"say {name}"] = say(ZH, name, limit="40,000")
    for reply in every_reply():
        shown[f"reply {reply.kind} {len(shown)}"] = _message_text(reply_message(reply, ZH, "/pr"))
    for error in every_error():
        assert error.note is not None, error
        shown[f"error {error.note.kind} {len(shown)}"] = error.in_language(ZH)
    coverage = Coverage(5, 1, (SkippedFile("uv.lock", "lock file"),), partial=("a.py",), files_unlisted=3)
    shown["coverage"] = render_card(listing, Card("标题", "read", 9, (), (), (), "llm", coverage, ZH))
    run = DigestRun("C0123456789", "2026-08-05", datetime(2026, 8, 5, 9, 31, tzinfo=UTC), 3, 2, every_note())
    rows = [
        HomeRow("C0123456789", ("acme/widgets",), "09:30", "Asia/Shanghai", "24h", "en", run, every_note()[0]),
        HomeRow("C0000000002", ("acme/widgets",), "09:30", "UTC", "24h", "zh-CN", run),
        HomeRow("C0000000003", ("acme/widgets",), "09:30", "UTC", "24h", "zh-CN"),
    ]
    shown["home"] = str(home_view(rows, ZH))
    shown["home, many"] = str(home_view(rows * 40, ZH))
    shown["home, none"] = str(home_view([], ZH)) + str(home_view([], ZH, configured=False))
    return shown


@pytest.mark.parametrize(("where", "shown"), everything_shown_in_chinese().items(), ids=lambda value: str(value)[:40])
def test_a_chinese_reader_meets_no_english_sentence_of_ours(where: str, shown: str) -> None:
    assert english_in(shown) == [], where


def test_the_same_things_are_english_for_an_english_reader() -> None:
    """The check above finds English where there is some: the same renderers, in English."""
    note = every_note()[-1]
    assert english_in(said("en", note)) != []
    assert english_in(text("en", "home.none_yours")) != []
    assert english_in(every_error()[0].in_language("en")) != []
    assert english_in(str(every_error()[0])) == english_in(every_error()[0].in_language("en"))


def test_str_of_an_error_stays_english_for_the_logs() -> None:
    error = RateLimited(None, authenticated=False)
    assert str(error).startswith("GitHub's rate limit is used up")
    assert error.in_language(ZH).startswith("GitHub 速率限制已用完")


def test_every_language_has_a_catalogue() -> None:
    assert set(CATALOGUES) == {"en", "zh-CN"}
