"""JSON encoding of stored values. Redis content comes from outside the process, so reading
it goes through pydantic validation: a value written by an older version fails loudly here and
is treated as a miss, never as a half-built object."""

from __future__ import annotations

from typing import Any, cast

from pydantic import TypeAdapter, ValidationError

from bot.core.strings.first_use import OnFirstUse
from bot.models import Card, PRSnapshot


def deferred(kind: Any) -> TypeAdapter[Any]:
    """`TypeAdapter(kind)`, built at its first use. Building one takes a few milliseconds; the
    stores hold fifteen, and a terminal digest whose cards are cached reads three of them.
    (pydantic's own defer_build is refused for a dataclass, which brings its own config.)"""
    # Typed as the adapter it stands for: every method a caller uses is the built one's.
    return cast("TypeAdapter[Any]", OnFirstUse(lambda: TypeAdapter(kind)))


_SNAPSHOT: TypeAdapter[PRSnapshot] = deferred(PRSnapshot)
_CARD: TypeAdapter[Card] = deferred(Card)


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
