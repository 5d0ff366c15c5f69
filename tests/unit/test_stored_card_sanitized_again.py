"""A card read back from the store is sanitized again unless it went through today's rules
(core/checks/sanitize.py SANITIZE_RULES, kept on the card): one stored before the version was kept, or
under rules since raised, reaches no reader as stored, by any of CardService's ways out."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

import pytest
from devkit.doubles import FakeSource

from bot.cards.service import CardService
from bot.core.checks import sanitize
from bot.models import Card, Coverage, PRSnapshot
from bot.store import codec
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CardStore, card_key
from tests.unit.builders import make_snapshot
from tests.unit.test_sanitize import untitled

PR = make_snapshot([("widgets/cache.py", 40, 2)], merge_sha="c" * 40)
REPO_URL = "https://github.com/acme/widgets"
# What rules that let mentions and foreign links through would have stored.
UNSAFE = Card(
    "Faster <!here> widget cache, see https://evil.example/x",
    "read",
    5,
    ("<@U0123ABCD> asked for it",),
    (),
    (),
    "llm",
    Coverage(1, 1),
)

Served = Callable[[CardService, PRSnapshot], Card | None]
WAYS_OUT: dict[str, Served] = {
    "card": lambda cards, pr: cards.card(pr, "en").card,
    "cached_card": lambda cards, pr: cards.cached_card(pr, "en"),
    "stored": lambda cards, pr: result.card if (result := cards.stored(pr, "en")) is not None else None,
}


def service_holding(raw: bytes) -> CardService:
    """A CardService whose store holds `raw` as the PR's card, as a stored JSON value."""
    store = CardStore(MemoryKV())
    cards = CardService(FakeSource(PR), store, None)
    store.kv.set(card_key(cards.key(PR, "en")), raw, 60)
    return cards


def assert_safe(card: Card | None) -> None:
    assert card is not None
    text = " ".join((card.headline, *card.why))
    assert "<!here>" not in text and "<@U0123ABCD>" not in text and "evil.example" not in text
    assert card.sanitized == sanitize.SANITIZE_RULES


@pytest.mark.parametrize("way", sorted(WAYS_OUT))
def test_a_card_stored_before_the_version_was_kept_is_sanitized_on_its_way_out(way: str) -> None:
    stored = json.loads(codec.dump_card(UNSAFE))
    del stored["sanitized"]  # as a version that kept no version wrote it
    served = WAYS_OUT[way](service_holding(json.dumps(stored).encode()), PR)
    assert_safe(served)
    assert served == sanitize.sanitize_card(UNSAFE, REPO_URL, untitled=untitled(UNSAFE))


@pytest.mark.parametrize("way", sorted(WAYS_OUT))
def test_a_card_sanitized_under_rules_since_raised_is_sanitized_again(
    way: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    today = sanitize.SANITIZE_RULES
    raw = codec.dump_card(replace(UNSAFE, sanitized=today))
    # Under today's version the stored card is trusted as sanitized, and served as it is...
    assert WAYS_OUT[way](service_holding(raw), PR) == replace(UNSAFE, sanitized=today)
    # ...and once the rules move on, the same stored value is no longer trusted.
    monkeypatch.setattr(sanitize, "SANITIZE_RULES", today + 1)
    served = WAYS_OUT[way](service_holding(raw), PR)
    assert_safe(served)
    assert served is not None and served.sanitized == today + 1
