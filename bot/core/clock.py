"""The wall clock, as every part that asks "what time is it" takes it by default (tests and the
benchmark hand their own). Kept at the bottom so that nothing calls up into the wiring for it."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_now() -> datetime:
    return datetime.now(UTC)
