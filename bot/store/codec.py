"""JSON encoding of stored values. Redis content comes from outside the process, so reading
it goes through pydantic validation: a value written by an older version fails loudly here and
is treated as a miss, never as a half-built object.

Snapshots and cards, the largest values (a PR's patches; a card's sentences), GitHub's list
pages and a window's listings are kept compressed (zlib) behind a marker no JSON value starts
with, so a value written before compression is still read as it was written. A snapshot whose
patches were cut for storing has a marker of its own, which code from before the cut does not
read."""

from __future__ import annotations

import zlib
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


# What a compressed value starts with: a NUL byte, which no JSON text begins with, and a version.
ZLIB_MARKER = b"\x00z1"
# A snapshot with a patch cut for storing (models/pr.py PatchCut). Code from before the cut reads
# plain JSON and ZLIB_MARKER only, and would take the cut patches for GitHub's whole ones (its
# JSON reader ignores the field that says otherwise): this value is a miss there instead.
CUT_MARKER = b"\x00z2"
_MARKERS = (ZLIB_MARKER, CUT_MARKER)
# Below this many bytes a value is kept as JSON: zlib's header would be most of what it saves.
COMPRESS_ABOVE = 512
# zlib's default level: 11.2 KB of a snapshot's JSON becomes about 2 KB, in well under a millisecond.
ZLIB_LEVEL = 6


def packed(raw: bytes) -> bytes:
    """`raw` as stored: compressed behind ZLIB_MARKER when it is large enough to gain from it."""
    return ZLIB_MARKER + zlib.compress(raw, ZLIB_LEVEL) if len(raw) > COMPRESS_ABOVE else raw


def unpacked(raw: bytes | str) -> bytes | str | None:
    """A stored value as JSON text: decompressed after either marker, else as it was written
    (JSON from before compression); None for a compressed value that does not decompress."""
    if isinstance(raw, bytes) and raw.startswith(_MARKERS):
        try:
            return zlib.decompress(raw[len(ZLIB_MARKER) :])  # both markers are three bytes
        except zlib.error:
            return None
    return raw


_SNAPSHOT: TypeAdapter[PRSnapshot] = deferred(PRSnapshot)
_CARD: TypeAdapter[Card] = deferred(Card)


def dump_snapshot(snapshot: PRSnapshot) -> bytes:
    raw = _SNAPSHOT.dump_json(snapshot)
    if any(change.cut is not None for change in snapshot.files):
        return CUT_MARKER + zlib.compress(raw, ZLIB_LEVEL)
    return packed(raw)


def load_snapshot(raw: bytes | str) -> PRSnapshot | None:
    text = unpacked(raw)
    if text is None:
        return None
    try:
        return _SNAPSHOT.validate_json(text)
    except ValidationError:
        return None


def dump_card(card: Card) -> bytes:
    return packed(_CARD.dump_json(card))


def load_card(raw: bytes | str) -> Card | None:
    text = unpacked(raw)
    if text is None:
        return None
    try:
        return _CARD.validate_json(text)
    except ValidationError:
        return None
