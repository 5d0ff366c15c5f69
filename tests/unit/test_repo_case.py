"""GitHub ignores case in repository names: one PR, however spelled, is one ref, one key, one card."""

from __future__ import annotations

from dataclasses import replace

from bot.models import Audience, CardKey, DigestItem, DigestThread, PRRef, Why, Window
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CardStore
from tests.unit.builders import MERGED_AT, make_listing, make_snapshot
from tests.unit.test_trust_services import services


def test_refs_to_one_pr_are_equal_however_the_repository_is_spelled() -> None:
    spellings = [PRRef("acme/widgets", 5), PRRef("Acme/Widgets", 5), PRRef("ACME/WIDGETS", 5)]
    assert len(set(spellings)) == 1
    assert all(ref == spellings[0] for ref in spellings)
    assert PRRef("acme/widgets", 6) != spellings[0]
    assert PRRef("acme/gadgets", 5) != spellings[0]
    assert str(spellings[1]) == "Acme/Widgets#5"  # the spelling itself is kept


def test_a_snapshot_and_card_stored_under_one_spelling_are_found_under_another() -> None:
    store = CardStore(MemoryKV())
    snapshot = make_snapshot([("widgets/core.py", 12, 1)], listing=make_listing(repo="Acme/Widgets"))
    store.put_snapshot(snapshot)
    other = PRRef("ACME/widgets", 101)
    revision = store.get_revision(other)
    assert revision is not None and revision == snapshot.listing.merge_sha
    assert store.get_snapshot(other, revision) == snapshot
    key = CardKey("Acme/Widgets", 101, "0" * 40, "p1", "m", "en")
    card = services().cards.fallback(snapshot, "en")
    store.put_card(key, card)
    assert store.get_card(replace(key, repo="acme/WIDGETS")) == card


def test_why_in_a_digest_whose_config_spells_the_repository_otherwise() -> None:
    # The channel's config says ACME/Widgets; GitHub's name (in the digest's listings) is acme/widgets.
    snapshot = make_snapshot([("widgets/core.py", 12, 1)], listing=make_listing())
    wired = services(snapshot=snapshot)
    item = DigestItem(snapshot.listing, wired.cards.card(snapshot, "en").card, size=13)
    window = Window(MERGED_AT.replace(hour=0), MERGED_AT.replace(hour=23))
    thread = DigestThread("C1", "1.0", "2026-08-04", ("ACME/Widgets",), "en", (item,), window=window)
    reply = wired.qa.answer(
        "why is #101 in this digest?",
        Audience(thread.channel, frozenset({"acme/widgets"}), "en", thread_ts=thread.thread_ts),
        thread,
    )
    assert isinstance(reply, Why)
    assert reply.included
