"""A reply about several PRs with the model's prose: the prose stands above the list code built,
which is the same list, first line and footer as without a model, in sections of its own (pure)."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

from bot.cards.heuristic.cards import heuristic_card
from bot.core.prompting.context import build_context
from bot.models import AcrossItem, AcrossMatches, DigestAnswer, DigestMatches, Span
from bot.render.across import across_data, across_message, across_terminal
from bot.render.slack.blocks import MAX_TEXT_CHARS
from bot.render.slack.replies import reply_message
from tests.unit.builders import make_listing, make_snapshot


def item(number: int) -> AcrossItem:
    snapshot = make_snapshot(listing=make_listing(number=number, title=f"[Attention] Change {number}"))
    card = heuristic_card(snapshot, build_context(snapshot, 12_000).coverage, "en")
    return AcrossItem(snapshot.listing, card, 10)


MATCHES = AcrossMatches(
    repo="acme/widgets",
    span=Span("day", date(2026, 8, 4), end=date(2026, 8, 5)),
    topic=("attention",),
    items=tuple(item(n) for n in range(101, 111)),
    more=3,
    title_only=0,
    merged=40,
    found=13,
)


def sections(message_blocks: tuple[dict[str, object], ...]) -> list[str]:
    return [str(block["text"]["text"]) for block in message_blocks if block["type"] == "section"]  # type: ignore[index]


def test_the_prose_stands_above_the_same_list_as_without_a_model() -> None:
    bare = across_message(MATCHES, "en")
    written = across_message(replace(MATCHES, answer="Read #101 first; the rest are small."), "en")
    assert sections(written.blocks)[0] == "Read #101 first; the rest are small."
    # The list is never shortened to what the prose mentions.
    assert sections(written.blocks)[1:] == sections(bare.blocks)
    assert all(f"#{n}>" in written.text for n in range(101, 111)) and "…and 3 more." in written.text


def test_a_long_answer_never_cuts_the_list() -> None:
    long = replace(MATCHES, answer="It is fine. " * 300)  # more than a section holds
    shown = sections(across_message(long, "en").blocks)
    assert all(len(part) <= MAX_TEXT_CHARS for part in shown)
    assert shown[1:] == sections(across_message(MATCHES, "en").blocks)


def test_the_terminal_and_json_keep_the_prose_apart_from_the_prs() -> None:
    written = replace(MATCHES, answer="Read #101 first.")
    said = across_terminal(written, "en")
    assert said.startswith("Read #101 first.\n\n") and said.endswith(across_terminal(MATCHES, "en"))
    data = across_data(written)
    assert data["answer"] == "Read #101 first." and across_data(MATCHES)["answer"] is None
    assert {key: value for key, value in data.items() if key != "answer"} == {
        key: value for key, value in across_data(MATCHES).items() if key != "answer"
    }


def test_a_digest_answer_stands_above_the_digests_matches() -> None:
    listing = make_listing(number=101, title="Cache the widgets")
    written = reply_message(DigestAnswer("It caches the widgets.", (listing,)), "en", "/pr")
    bare = reply_message(DigestMatches((listing,), model_failed=False), "en", "/pr")
    assert sections(written.blocks) == ["It caches the widgets.", *sections(bare.blocks)]


def test_a_persons_prs_over_a_span_with_nothing_merged_say_nothing_was_merged() -> None:
    # "of 0 merged" would say less: nothing at all was merged in the span.
    empty = replace(MATCHES, topic=(), items=(), more=0, merged=0, found=0, author="Nick Hill")
    first = across_terminal(empty, "en").splitlines()[0]
    assert first.startswith("Nothing was merged in acme/widgets") and "of 0" not in first
