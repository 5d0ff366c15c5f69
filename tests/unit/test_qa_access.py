"""QAService applies the rule of `/pr` before reading a digest thread: what a channel may not
see never reaches a choice list, the model, or the history sent with a follow-up."""

from __future__ import annotations

from devkit.doubles import FixedAnswerer

from bot.models import Audience, Card, Choose, Coverage, DigestItem, DigestThread, NotAllowed, Turn
from bot.questions.qa import QAService, visible_part, visible_turns
from bot.store.backends.memory import MemoryKV
from bot.store.threads import ThreadStore
from tests.unit.builders import make_listing

PUBLIC, PRIVATE = "acme/public", "acme/secret"
ALLOWED = frozenset({PUBLIC})
CARD = Card("A change", "skim", 3, (), (), (), "llm", Coverage(1, 1))


def item(repo: str, number: int, title: str, path: str) -> DigestItem:
    return DigestItem(make_listing(repo=repo, number=number, title=title), CARD, size=10, paths=(path,))


THREAD = DigestThread(
    "C1",
    "1.0",
    "2026-08-05",
    (PUBLIC, PRIVATE),
    "en",
    (
        item(PUBLIC, 1, "Billing meter", "billing/meter.py"),
        item(PUBLIC, 2, "Billing export", "billing/export.py"),
        item(PRIVATE, 7, "Move billing invoices", "billing/invoices.py"),
        item(PRIVATE, 8, "Retry billing charges", "billing/charges.py"),
    ),
)


def qa_with(history: list[Turn]) -> tuple[QAService, FixedAnswerer]:
    threads = ThreadStore(MemoryKV())
    for turn in history:
        threads.add_turn("C1", "1.0", turn)
    answerer = FixedAnswerer(digest="One of them does.")
    return QAService(None, threads, answerer), answerer  # type: ignore[arg-type]  # no card is read


def test_the_visible_part_of_a_digest_holds_only_allowed_repositories() -> None:
    visible = visible_part(THREAD, Audience("C1", ALLOWED))
    assert visible.repos == (PUBLIC,)
    assert [i.listing.number for i in visible.items] == [1, 2]
    assert visible_part(THREAD, Audience("C1", frozenset({PUBLIC, PRIVATE}))) == THREAD


def test_a_digest_wide_question_sends_neither_hidden_items_nor_earlier_turns_that_may_name_them() -> None:
    earlier = [
        Turn("user", "which of these touch billing?"),
        Turn("bot", "See `billing/invoices.py` in Move billing invoices."),  # before the channel was shared
        Turn("user", "and #7?", f"{PRIVATE}#7"),
    ]
    qa, answerer = qa_with(earlier)
    reply = qa.answer(
        "which of these should I read today?",
        Audience(THREAD.channel, ALLOWED, "en", thread_ts=THREAD.thread_ts),
        THREAD,
    )
    assert reply.kind == "digest_answer"
    ((items, paths, history),) = answerer.asked
    assert [i.listing.repo for i in items] == [PUBLIC, PUBLIC]
    assert list(paths) == [f"{PUBLIC}#1", f"{PUBLIC}#2"]
    assert history == []


def test_several_fitting_prs_are_chosen_among_the_allowed_ones_only() -> None:
    qa, _ = qa_with([])
    reply = qa.answer(
        "tell me about the billing one", Audience(THREAD.channel, ALLOWED, "en", thread_ts=THREAD.thread_ts), THREAD
    )
    assert isinstance(reply, Choose)
    assert [(choice.repo, choice.number) for choice in reply.choices] == [(PUBLIC, 1), (PUBLIC, 2)]


def test_nothing_of_a_digest_whose_repositories_are_all_hidden_is_answered() -> None:
    qa, answerer = qa_with([])
    reply = qa.answer(
        "which of these touch billing?", Audience(THREAD.channel, frozenset(), "en", thread_ts=THREAD.thread_ts), THREAD
    )
    assert isinstance(reply, NotAllowed)
    assert reply.ref is None
    assert answerer.asked == []


def test_earlier_turns_about_a_hidden_repository_are_not_followed_up() -> None:
    history = [Turn("user", "what about #7?", f"{PRIVATE}#7"), Turn("user", "and #1?", f"{PUBLIC}#1")]
    assert visible_turns(history, Audience("C1", ALLOWED), hidden=False) == history[1:]
    assert visible_turns([Turn("bot", "digest-wide")], Audience("C1", ALLOWED), hidden=True) == []
