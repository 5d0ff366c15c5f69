"""SANITIZE_RULES moves with the rules: a card sanitized under one version is served as stored
(core/checks/sanitize.py sanitized_card), so a change to what the rules keep must come with a new
version, or cards stored under the old rules would reach readers unchecked by the new ones."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path

from bot.core.checks import prompt_echoes, sanitize, templates
from bot.core.checks.sanitize import SANITIZE_RULES, sanitize_card, sanitized_card
from bot.core.strings import text
from bot.models import Card, Coverage
from tests.unit.test_sanitize import untitled

# The modules whose rules decide what a card keeps (sanitize.py and what it uses).
RULE_MODULES = (sanitize, prompt_echoes, templates, text)
# The fingerprint of those modules at SANITIZE_RULES' current value. When this test fails: if
# the change alters what a card keeps, raise SANITIZE_RULES; then record the new fingerprint.
FINGERPRINT = "0e5a8fcb103dca90fe8084f3494ebde7b33709d701a2fd9770e66716ed04278a"
REPO_URL = "https://github.com/acme/widgets"


def _fingerprint() -> str:
    digest = hashlib.sha256()
    for module in RULE_MODULES:
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()


def test_the_rule_modules_are_those_the_version_was_set_for() -> None:
    assert (SANITIZE_RULES, _fingerprint()) == (2, FINGERPRINT), (
        "core/checks/sanitize.py or a module it uses changed: raise SANITIZE_RULES if what a card keeps "
        "changed, then record the new fingerprint and version here"
    )


def _card(headline: str) -> Card:
    return Card(headline, "read", 5, ("A point.",), (), (), "llm", Coverage(1, 1))


def test_a_card_sanitized_under_todays_rules_is_served_as_stored() -> None:
    before = _card("Faster <!here> startup")
    card = sanitize_card(before, REPO_URL, untitled=untitled(before))
    assert card.sanitized == SANITIZE_RULES and card.headline == "Faster startup"
    assert sanitized_card(card, REPO_URL, untitled=untitled(card)) is card


def test_a_card_sanitized_under_other_rules_or_none_is_sanitized_again() -> None:
    for version in (0, SANITIZE_RULES - 1, SANITIZE_RULES + 1):
        stored = replace(_card("Faster <!here> startup"), sanitized=version)
        served = sanitized_card(stored, REPO_URL, untitled=untitled(stored))
        assert (served.headline, served.sanitized) == ("Faster startup", SANITIZE_RULES)
