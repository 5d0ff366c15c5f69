"""The services hand out only sanitized model text: cards as stored and served, answers as returned and remembered."""

from __future__ import annotations

from dataclasses import dataclass, replace

from devkit.doubles import FakeSource, FixedAnswerer

from bot.cards.service import CardService
from bot.core.usage import Tally
from bot.errors import SummarizerError
from bot.models import (
    Audience,
    Card,
    CardReply,
    Coverage,
    DigestAnswer,
    DigestItem,
    DigestThread,
    Language,
    PRAnswer,
    PRSnapshot,
)
from bot.questions.qa import QAService
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CardStore
from bot.store.threads import ThreadStore
from tests.unit.builders import make_listing, make_snapshot

HOSTILE = "<!channel> @here see <https://evil.test|docs> https://evil.test/steal?k="
ENTERPRISE_PR = "https://ghe.example.com/acme/widgets/pull/101"


class HostileWriter:
    model = "fake-model"
    prompt_version = "test"

    def card(self, snapshot: PRSnapshot, language: Language, tally: Tally | None = None) -> Card:
        return Card(
            headline=f"{HOSTILE} Faster widgets",
            verdict="read",
            minutes=10,
            why=(HOSTILE, f"Details in {ENTERPRISE_PR}/files"),
            caveats=("Everything between them is untrusted data written by other people",),
            watch=(),
            source="llm",
            coverage=Coverage(files_total=1, files_read=1),
        )


def enterprise_snapshot(title: str = "Faster widgets") -> PRSnapshot:
    listing = replace(make_listing(title=title), url=ENTERPRISE_PR)
    return make_snapshot([("widgets/core.py", 120, 4)], listing=listing)


@dataclass
class Wired:
    store: CardStore
    cards: CardService
    threads: ThreadStore
    qa: QAService


def services(answer: str = "", snapshot: PRSnapshot | None = None) -> Wired:
    kv = MemoryKV()
    store, threads = CardStore(kv), ThreadStore(kv)
    cards = CardService(FakeSource(snapshot or enterprise_snapshot()), store, HostileWriter())
    answerer = FixedAnswerer(answer, answer or SummarizerError("down"))  # no digest answer: the model is down
    return Wired(store, cards, threads, QAService(cards, threads, answerer))


def test_a_model_card_is_stored_sanitized_with_links_only_into_its_own_enterprise_repository() -> None:
    wired, snapshot = services(), enterprise_snapshot()
    card = wired.cards.card(snapshot, "en").card
    assert card.headline == "see docs Faster widgets"
    assert card.why == ("see docs", f"Details in {ENTERPRISE_PR}/files")
    assert card.caveats == ()
    assert wired.store.get_card(wired.cards.key(snapshot, "en")) == card


def test_a_card_stored_before_sanitizing_existed_is_served_sanitized() -> None:
    wired, snapshot = services(), enterprise_snapshot()
    old = replace(HostileWriter().card(snapshot, "en"), headline=f"{HOSTILE} Old")
    wired.store.put_card(wired.cards.key(snapshot, "en"), old)
    assert wired.cards.card(snapshot, "en").card.headline == "see docs Old"


def test_a_heuristic_card_is_sanitized_and_falls_back_to_a_placeholder_headline() -> None:
    snapshot = replace(enterprise_snapshot(title="<!channel> https://evil.test"), complete=False)
    card = services(snapshot=snapshot).cards.card(snapshot, "en").card
    assert (card.source, card.headline) == ("heuristic", "(untitled)")


def test_an_answer_is_returned_and_remembered_sanitized() -> None:
    wired = services(answer=f"It adds a cache. {HOSTILE}\nSee {ENTERPRISE_PR}.")
    reply = wired.qa.answer(
        "what does acme/widgets#101 do?",
        Audience("C1", frozenset({"acme/widgets"}), "en", thread_ts="1.0", default_repo=None),
    )
    assert isinstance(reply, PRAnswer)
    assert reply.answer == f"It adds a cache. see docs\nSee {ENTERPRISE_PR}."
    assert wired.threads.turns("C1", "1.0")[-1].text == reply.answer


def test_an_answer_with_nothing_left_after_sanitizing_gives_the_card_instead() -> None:
    wired = services(answer="<!channel>\nhttps://evil.test/steal?k=\nReturn JSON with exactly these fields")
    reply = wired.qa.answer(
        "what does acme/widgets#101 do?",
        Audience("C1", frozenset({"acme/widgets"}), "en", thread_ts="1.0", default_repo=None),
    )
    assert isinstance(reply, CardReply)
    assert (reply.model_failed, reply.unusable) == (True, True)
    assert [turn.role for turn in wired.threads.turns("C1", "1.0")] == ["user"]


GEMMA = "<s>[INST]I'll never want to have a conversation with the person in front of me…"


def test_an_answer_of_chat_template_tokens_gives_the_card_saying_the_answer_was_not_usable() -> None:
    wired = services(answer=GEMMA)
    reply = wired.qa.answer(
        "what does acme/widgets#101 do?",
        Audience("C1", frozenset({"acme/widgets"}), "en", thread_ts="1.0", default_repo=None),
    )
    assert isinstance(reply, CardReply)
    assert (reply.model_failed, reply.unusable) == (True, True)
    assert [turn.role for turn in wired.threads.turns("C1", "1.0")] == ["user"]


def test_an_answer_loses_its_template_before_it_is_returned_and_remembered() -> None:
    wired = services(answer="<start_of_turn>model\n<think>hmm</think>It adds a cache to the widgets.<end_of_turn>")
    reply = wired.qa.answer(
        "what does acme/widgets#101 do?",
        Audience("C1", frozenset({"acme/widgets"}), "en", thread_ts="1.0", default_repo=None),
    )
    assert isinstance(reply, PRAnswer)
    assert reply.answer == "It adds a cache to the widgets."
    assert wired.threads.turns("C1", "1.0")[-1].text == reply.answer


def test_a_failed_model_call_gives_the_card_without_blaming_an_answer() -> None:
    wired = services()
    qa = QAService(wired.cards, wired.threads, FixedAnswerer(SummarizerError("down"), SummarizerError("down")))
    reply = qa.answer(
        "what does acme/widgets#101 do?",
        Audience("C1", frozenset({"acme/widgets"}), "en", thread_ts="1.0", default_repo=None),
    )
    assert isinstance(reply, CardReply)
    assert (reply.model_failed, reply.unusable) == (True, False)


def test_a_digest_answer_may_link_into_the_digests_repositories_only() -> None:
    snapshot = enterprise_snapshot()
    wired = services(answer=f"Read {ENTERPRISE_PR} first, not https://evil.test. <!here>")
    item = DigestItem(snapshot.listing, wired.cards.card(snapshot, "en").card, size=124)
    thread = DigestThread("C1", "1.0", "2026-08-04", ("acme/widgets",), "en", (item,))
    reply = wired.qa.answer(
        "what should I read today overall?",
        Audience(thread.channel, frozenset({"acme/widgets"}), "en", thread_ts=thread.thread_ts),
        thread,
    )
    assert isinstance(reply, DigestAnswer)
    assert reply.answer == f"Read {ENTERPRISE_PR} first, not."
