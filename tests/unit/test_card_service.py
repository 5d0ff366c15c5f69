"""CardService in one process: snapshots cached by merge SHA, one card per key, single flight
through the store's lease, a short-lived heuristic card when the model fails, and sanitized
cards only. The source and the model are in-process fakes; the store is a MemoryKV."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from devkit.clocks import Clock
from devkit.doubles import FakeSource
from devkit.scripted import Reply, ScriptedModel

from bot.cards.flight import WAIT_STEP_SECONDS
from bot.cards.heuristic.cards import HEURISTIC_VERSION
from bot.cards.service import CARD_LEASE_SECONDS, FALLBACK_TTL_SECONDS, CardService, CardTiming, ModelUse, lease_for
from bot.cards.writer import ModelCardWriter
from bot.core.deadline import Budget, Deadline
from bot.core.pacing import Pacing
from bot.core.prompting.drafts import CardDraft
from bot.core.prompting.prompts import PROMPT_VERSION
from bot.core.usage import Tally, Usage
from bot.errors import ModelTimeout, ModelUnavailable
from bot.models import Card, Language, Message, OutputMode, PRRef, PRSnapshot, SkipClass
from bot.ports import Parsed, Schema
from bot.spending.budgets import Payer, Spending
from bot.store import codec
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CARD_TTL, CardStore, card_key
from bot.store.tokens import TokenStore
from tests.unit.builders import make_snapshot

SHA = "a" * 40
OTHER_SHA = "b" * 40


class RecordingKV(MemoryKV):
    """A MemoryKV that remembers how long each value was given to live."""

    def __init__(self) -> None:
        super().__init__()
        self.ttls: dict[str, int | None] = {}

    def set(self, key: str, value: bytes, ttl: int | None) -> None:
        self.ttls[key] = ttl
        super().set(key, value, ttl)


def draft(headline: str = "Faster widget rendering", verdict: str = "read") -> CardDraft:
    # Plain words only: no figure or identifier the faithfulness check would ask about again.
    return CardDraft.model_validate(
        {
            "headline": headline,
            "verdict": verdict,
            "minutes": 10,
            "why": ["Reworks the rendering path"],
            "caveats": [],
            "watch": [],
        }
    )


def writer(model: ScriptedModel) -> ModelCardWriter:
    return ModelCardWriter(
        model, token_budget=8000, budget=Budget(100.0, 0), pacing=Pacing(model.clock, model.clock.sleep)
    )


def widget_pr(**fields: Any) -> PRSnapshot:
    return make_snapshot([("widgets/core.py", 120, 4)], **{"merge_sha": SHA, **fields})


@dataclass
class Rig:
    kv: RecordingKV
    store: CardStore
    source: FakeSource
    model: ScriptedModel
    cards: CardService


def rig(*replies: Reply, model: str = "scripted-model", kv: RecordingKV | None = None) -> Rig:
    kv = kv or RecordingKV()
    store = CardStore(kv)
    scripted = ScriptedModel(*replies, model=model)
    source = FakeSource(widget_pr())
    cards = CardService(source, store, writer(scripted))
    return Rig(kv, store, source, scripted, cards)


# -- one card per key ----------------------------------------------------------------------------


def test_a_card_is_asked_for_once_then_served_from_the_store_without_a_model_call() -> None:
    r = rig(draft())
    first = r.cards.card(widget_pr(), "en")
    second = r.cards.card(widget_pr(), "en")

    assert len(r.model.calls) == 1
    assert first.card == second.card
    assert (first.card.source, first.card.headline, first.degraded, second.degraded) == (
        "llm",
        "Faster widget rendering",
        False,
        False,
    )
    assert r.kv.ttls[card_key(r.cards.key(widget_pr(), "en"))] == CARD_TTL


def test_another_language_is_another_card() -> None:
    r = rig(draft(), draft("更快的组件渲染"))
    english = r.cards.card(widget_pr(), "en").card
    chinese = r.cards.card(widget_pr(), "zh-CN").card

    assert len(r.model.calls) == 2
    assert (english.language, chinese.language) == ("en", "zh-CN")
    assert r.cards.key(widget_pr(), "en") != r.cards.key(widget_pr(), "zh-CN")


def test_another_model_is_another_card_even_in_a_shared_store() -> None:
    kv = RecordingKV()
    one = rig(draft("Faster widget rendering"), model="model-one", kv=kv)
    two = rig(draft("Quicker widget drawing"), model="model-two", kv=kv)

    assert one.cards.card(widget_pr(), "en").card.headline == "Faster widget rendering"
    assert two.cards.card(widget_pr(), "en").card.headline == "Quicker widget drawing"
    assert (len(one.model.calls), len(two.model.calls)) == (1, 1)


def test_another_merge_commit_is_another_card() -> None:
    r = rig(draft(), draft("Widget rendering, merged again"))
    r.cards.card(widget_pr(), "en")
    again = r.cards.card(widget_pr(merge_sha=OTHER_SHA), "en")

    assert len(r.model.calls) == 2
    assert again.card.headline == "Widget rendering, merged again"


def test_the_card_key_names_the_revision_prompt_model_and_language() -> None:
    r = rig(model="gpt-test")
    key = r.cards.key(widget_pr(), "zh-CN")
    assert (key.repo, key.number, key.revision, key.prompt_version, key.model, key.language) == (
        "acme/widgets",
        101,
        SHA,
        PROMPT_VERSION,
        "gpt-test",
        "zh-CN",
    )
    # An open PR's card depends on its head; a PR with neither SHA still gets a key.
    open_pr = replace(widget_pr().listing, merge_sha=None, merged_at=None, head_sha="c" * 40)
    assert r.cards.key(make_snapshot(listing=open_pr), "en").revision == "c" * 40
    neither = replace(open_pr, head_sha=None)
    assert r.cards.key(make_snapshot(listing=neither), "en").revision == "unknown"


# -- without a model, or when it fails ------------------------------------------------------------


def test_a_model_failure_gives_a_degraded_heuristic_card_kept_only_briefly() -> None:
    r = rig(ModelUnavailable("down", status=503))
    result = r.cards.card(widget_pr(), "en")

    assert result.degraded
    assert result.card.source == "heuristic"
    assert result.card.headline == "Improve widget rendering"  # the PR's title stands in
    # Short-lived, so that a later run asks the model again.
    assert r.kv.ttls[card_key(r.cards.key(widget_pr(), "en"))] == FALLBACK_TTL_SECONDS


def test_while_a_fallback_card_stands_it_is_served_degraded_without_asking_again() -> None:
    r = rig(ModelTimeout("slow"))
    r.cards.card(widget_pr(), "en")
    again = r.cards.card(widget_pr(), "en")

    assert len(r.model.calls) == 1
    assert again.degraded and again.card.source == "heuristic"


def test_once_the_fallback_card_is_gone_the_model_is_asked_again() -> None:
    r = rig(ModelUnavailable("down"), draft())
    r.cards.card(widget_pr(), "en")
    r.kv.delete(card_key(r.cards.key(widget_pr(), "en")))  # what its short TTL does in time

    result = r.cards.card(widget_pr(), "en")
    assert len(r.model.calls) == 2
    assert (result.card.source, result.degraded) == ("llm", False)


def test_without_a_model_the_heuristic_card_is_stored_under_the_heuristic_key() -> None:
    store = CardStore(RecordingKV())
    cards = CardService(FakeSource(widget_pr()), store, None)
    result = cards.card(widget_pr(), "en")
    key = cards.key(widget_pr(), "en")

    # Not degraded: no model was configured, so nothing failed.
    assert (result.card.source, result.degraded) == ("heuristic", False)
    # Keyed by the heuristic's own version: new rules are not hidden behind old cards.
    assert (key.model, key.prompt_version) == ("heuristic", HEURISTIC_VERSION)
    assert store.get_card(key) == result.card
    assert cards.card(widget_pr(), "en") == result


def test_a_pr_whose_files_are_unknown_gets_a_title_card_that_is_never_stored() -> None:
    r = rig()  # no reply queued: the model must not be asked
    unread = widget_pr(complete=False)
    result = r.cards.card(unread, "en")

    assert result.card.source == "heuristic" and not result.card.coverage.files_known
    assert not result.degraded  # the model did not fail; GitHub's files were not read
    assert r.model.calls == []
    assert r.store.get_card(r.cards.key(unread, "en")) is None


def test_the_fallback_card_is_sanitized_too() -> None:
    cards = CardService(FakeSource(), CardStore(MemoryKV()), None)
    card = cards.fallback(widget_pr(title="<!channel> Improve widget rendering"), "en")
    assert card.headline == "Improve widget rendering"


def test_a_model_card_is_sanitized_before_it_is_stored_or_served() -> None:
    r = rig(draft("<!channel> Faster widget rendering"))
    served = r.cards.card(widget_pr(), "en").card

    assert served.headline == "Faster widget rendering"
    assert r.store.get_card(r.cards.key(widget_pr(), "en")) == served


# -- single flight -------------------------------------------------------------------------------


class HeldModel(ScriptedModel):
    """A ScriptedModel that answers only once `release` is set: its caller holds the card's lease
    until every other requester has seen the lease taken."""

    def __init__(self, *replies: CardDraft, release: threading.Event) -> None:
        super().__init__(*replies)
        self.release = release

    def parse(
        self,
        messages: Sequence[Message],
        schema: type[Schema],
        deadline: Deadline,
        mode: OutputMode = "json_schema",
        tally: Tally | None = None,
    ) -> Parsed[Schema]:
        assert self.release.wait(timeout=5), "the other requesters never waited for the lease"
        return super().parse(messages, schema, deadline, mode, tally)


def test_concurrent_requests_for_one_card_make_one_model_call() -> None:
    requesters = 8
    release = threading.Event()
    waited: set[int] = set()
    guard = threading.Lock()

    def sleep(seconds: float) -> None:
        # Called only by a requester that found the lease held: once all but the holder are
        # here, the holder's model call may answer.
        with guard:
            waited.add(threading.get_ident())
            if len(waited) == requesters - 1:
                release.set()
        time.sleep(0.001)

    model = HeldModel(draft(), release=release)
    store = CardStore(MemoryKV())
    # Time stands still, so no requester gives up on the lease and writes the card itself.
    cards = CardService(FakeSource(widget_pr()), store, writer(model), timing=CardTiming(Pacing(lambda: 0.0, sleep)))

    with ThreadPoolExecutor(max_workers=requesters) as pool:
        results = [f.result() for f in [pool.submit(cards.card, widget_pr(), "en") for _ in range(requesters)]]

    assert len(model.calls) == 1
    assert len(waited) == requesters - 1
    assert {result.card for result in results} == {results[0].card}
    assert results[0].card.source == "llm" and not any(result.degraded for result in results)
    assert not store.lock_held(card_key(cards.key(widget_pr(), "en")))


def held_elsewhere(cards: CardService, store: CardStore, language: Language = "en") -> tuple[str, str]:
    """The card's lease, taken as another process would: its name and token."""
    name = card_key(cards.key(widget_pr(), language))
    token = store.try_lock(name, 60)
    assert token is not None
    return name, token


def test_a_card_another_process_writes_while_we_wait_is_taken_from_the_store() -> None:
    kv = RecordingKV()
    store = CardStore(kv)
    elsewhere = replace(CardService(FakeSource(), store, None).fallback(widget_pr(), "en"), source="llm")

    def sleep(seconds: float) -> None:
        store.put_card(cards.key(widget_pr(), "en"), replace(elsewhere, headline="Written elsewhere"))

    model = ScriptedModel()
    cards = CardService(FakeSource(widget_pr()), store, writer(model), timing=CardTiming(Pacing(lambda: 0.0, sleep)))
    held_elsewhere(cards, store)

    result = cards.card(widget_pr(), "en")
    assert result.card.headline == "Written elsewhere"
    assert model.calls == []


class RacingStore(CardStore):
    """A CardStore in which another writer finishes the card just as we ask for its lease."""

    def __init__(self, card: Card, *, win: bool) -> None:
        super().__init__(MemoryKV())
        self.card, self.win = card, win

    def try_lock(self, name: str, ttl_seconds: float) -> str | None:
        # A lease is named as its card is stored (store/repos/cards.py card_key).
        self.kv.set(name, codec.dump_card(self.card), 60)
        # win: we get the lease just after they let it go; otherwise they still hold it when we
        # ask, and by our next look their card is stored and the lease gone.
        return super().try_lock(name, ttl_seconds) if self.win else None


def finished_elsewhere() -> Card:
    fallback = CardService(FakeSource(), CardStore(MemoryKV()), None).fallback(widget_pr(), "en")
    return replace(fallback, source="llm", headline="Written elsewhere")


@pytest.mark.parametrize("win", [True, False], ids=["before-our-lease", "after-a-refused-lease"])
def test_a_card_finished_elsewhere_around_our_lease_is_not_written_again(win: bool) -> None:
    store = RacingStore(finished_elsewhere(), win=win)
    model = ScriptedModel()
    cards = CardService(
        FakeSource(widget_pr()), store, writer(model), timing=CardTiming(Pacing(lambda: 0.0, time.sleep))
    )

    result = cards.card(widget_pr(), "en")
    assert (result.card.headline, result.degraded) == ("Written elsewhere", False)
    assert model.calls == []


def test_a_lease_released_without_a_card_is_taken_by_a_waiter() -> None:
    store = CardStore(MemoryKV())
    released: list[float] = []

    def sleep(seconds: float) -> None:
        # The other writer gave up (it crashed) and let its lease go, card unwritten.
        released.append(seconds)
        store.release(name, token)

    model = ScriptedModel(draft())
    cards = CardService(FakeSource(widget_pr()), store, writer(model), timing=CardTiming(Pacing(lambda: 0.0, sleep)))
    name, token = held_elsewhere(cards, store)

    result = cards.card(widget_pr(), "en")
    assert released == [WAIT_STEP_SECONDS]
    assert len(model.calls) == 1 and result.card.source == "llm"
    assert not store.lock_held(name)


def test_a_waiter_writes_the_card_itself_once_a_stuck_lease_has_lasted_lease_seconds() -> None:
    clock = Clock()
    store = CardStore(MemoryKV())
    model = ScriptedModel(draft())
    cards = CardService(
        FakeSource(widget_pr()), store, writer(model), timing=CardTiming(Pacing(clock, clock.sleep), lease_seconds=5.0)
    )
    held_elsewhere(cards, store)  # its holder died without releasing it

    result = cards.card(widget_pr(), "en")
    assert result.card.source == "llm" and len(model.calls) == 1
    # It waited out the lease in small steps, and no longer than one step past it.
    assert set(clock.slept) == {WAIT_STEP_SECONDS}
    assert 5.0 <= sum(clock.slept) <= 5.0 + 2 * WAIT_STEP_SECONDS


def test_the_lease_is_let_go_when_the_writer_fails_unexpectedly() -> None:
    r = rig(RuntimeError("bug in a writer"))
    with pytest.raises(RuntimeError, match="bug in a writer"):
        r.cards.card(widget_pr(), "en")
    assert not r.store.lock_held(card_key(r.cards.key(widget_pr(), "en")))


def test_the_lease_outlives_the_models_whole_budget() -> None:
    assert lease_for(120.0) == CARD_LEASE_SECONDS
    assert lease_for(10.0) > 10.0


# -- snapshots -----------------------------------------------------------------------------------


def test_a_merged_prs_snapshot_is_read_from_github_once() -> None:
    r = rig()
    listing = widget_pr().listing
    assert r.cards.cached_snapshot(listing) is None

    first = r.cards.snapshot(listing)
    second = r.cards.snapshot(listing)
    assert first == second == widget_pr()
    assert r.source.fetched == [listing.ref]


def test_a_snapshot_is_cached_by_its_merge_sha() -> None:
    r = rig()
    r.cards.snapshot(widget_pr().listing)
    assert r.cards.cached_snapshot(widget_pr(merge_sha=OTHER_SHA).listing) is None


def test_a_listing_without_its_merge_sha_finds_the_snapshot_by_the_recorded_revision() -> None:
    r = rig()
    r.cards.snapshot(widget_pr().listing)
    no_sha = replace(widget_pr().listing, merge_sha=None)
    assert r.cards.cached_snapshot(no_sha) == widget_pr()
    # An unmerged PR has no revision to trust: it is always read again.
    assert r.cards.cached_snapshot(replace(no_sha, merged_at=None)) is None


def test_a_pr_asked_for_by_number_makes_no_github_request_once_read() -> None:
    r = rig()
    ref = PRRef("acme/widgets", 101)
    assert r.cards.snapshot_by_ref(ref) == widget_pr()
    assert (r.source.looked_up, r.source.fetched) == ([ref], [ref])

    # GitHub ignores the case of names, and so does the cache.
    assert r.cards.snapshot_by_ref(PRRef("ACME/Widgets", 101)) == widget_pr()
    assert (len(r.source.looked_up), len(r.source.fetched)) == (1, 1)


def test_a_snapshot_with_unknown_files_is_never_cached() -> None:
    unread = widget_pr(complete=False)
    cards = CardService(FakeSource(unread), CardStore(MemoryKV()), None)
    cards.fetch_snapshot(unread.listing)
    assert cards.cached_snapshot(unread.listing) is None


# -- tokens, the daily budget, PRs that need no model -----------------------------------------


def spending_rig(
    *replies: Reply, budget: int = 0, skip: tuple[SkipClass, ...] = (), pr: PRSnapshot | None = None
) -> tuple[Rig, Spending, list[datetime]]:
    kv = RecordingKV()
    clock = [datetime(2026, 8, 5, 12, tzinfo=UTC)]
    spending = Spending(TokenStore(kv), budget=budget, now=lambda: clock[0], prices={})
    scripted = ScriptedModel(*replies)
    cards = CardService(FakeSource(pr or widget_pr()), CardStore(kv), writer(scripted), use=ModelUse(spending, skip))
    return Rig(kv, CardStore(kv), FakeSource(widget_pr()), scripted, cards), spending, clock


def test_a_cards_tokens_are_counted_once_for_its_repository_and_whoever_asked_first() -> None:
    r, spending, _ = spending_rig(draft())
    r.cards.card(widget_pr(), "en", payer=Payer("C0FIRST001"))
    r.cards.card(widget_pr(), "en", payer=Payer("C0LATER001"))  # from the store: spends nothing
    (day,) = spending.report(1).days
    assert day.spent > 0 and set(day.payers) == {"C0FIRST001"}
    assert day.repos == {widget_pr().listing.repo.lower(): day.total}


def test_a_failed_cards_tokens_are_counted_too() -> None:
    r, spending, _ = spending_rig("not a card", "still not a card")  # both answers were paid for
    result = r.cards.card(widget_pr(), "en", payer=Payer("C0FIRST001"))
    assert result.degraded and len(r.model.calls) == 2
    assert spending.spent_today() > 0


def test_a_spent_budget_gives_a_heuristic_card_without_a_call_kept_briefly_and_not_a_failure() -> None:
    r, spending, clock = spending_rig(draft(), budget=1)
    tally = Tally()
    tally.add("scripted-model", Usage(5, 1))
    spending.record(tally, repo="acme/other", payer=Payer("cli"))

    result = r.cards.card(widget_pr(), "en")
    assert r.model.calls == [] and result.card.source == "heuristic" and result.no_model == "budget"
    assert not result.degraded
    key = card_key(r.cards.key(widget_pr(), "en"))
    assert r.kv.ttls[key] == FALLBACK_TTL_SECONDS
    assert r.cards.card(widget_pr(), "en").no_model == "budget" and r.model.calls == []

    clock[0] += timedelta(days=1)  # a new UTC day: the stored metadata card gives way to the model's
    assert r.cards.card(widget_pr(), "en").card.source == "llm" and len(r.model.calls) == 1


def test_a_pr_of_a_listed_class_gets_a_card_without_a_model_call_until_the_class_is_unlisted() -> None:
    bump = make_snapshot([("uv.lock", 40, 30)], merge_sha=SHA)
    r, _, _ = spending_rig(draft(), skip=("lockfile-only",), pr=bump)
    result = r.cards.card(bump, "en")
    assert r.model.calls == [] and result.no_model == "lockfile-only" and not result.degraded
    assert r.kv.ttls[card_key(r.cards.key(bump, "en"))] == CARD_TTL

    unlisted = CardService(FakeSource(bump), CardStore(r.kv), writer(r.model))  # the config changed
    assert unlisted.card(bump, "en").card.source == "llm" and len(r.model.calls) == 1
