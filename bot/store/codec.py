"""JSON encoding of stored values. Redis content comes from outside the process, so reading
it goes through pydantic validation: a value written by an older version fails loudly here and
is treated as a miss, never as a half-built object."""

from __future__ import annotations

from pydantic import TypeAdapter, ValidationError

from bot.models import Card, PRSnapshot

_SNAPSHOT = TypeAdapter(PRSnapshot)
_CARD = TypeAdapter(Card)


def dump_snapshot(snapshot: PRSnapshot) -> bytes:
    return _SNAPSHOT.dump_json(snapshot)


def load_snapshot(raw: bytes | str) -> PRSnapshot | None:
    try:
        return _SNAPSHOT.validate_json(raw)
    except ValidationError:
        return None


def dump_card(card: Card) -> bytes:
    return _CARD.dump_json(card)


def load_card(raw: bytes | str) -> Card | None:
    try:
        return _CARD.validate_json(raw)
    except ValidationError:
        return None
