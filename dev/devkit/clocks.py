"""Clocks a test sets by hand, for code that takes its clock injected (nothing in bot/ reads the
time itself): `Clock` stands in for a monotonic clock and its sleep, `WallClock` for the wall
clock a scheduler reads. Neither moves unless the test (or a scripted double) moves it.
"""

from __future__ import annotations

from datetime import datetime


class Clock:
    """Monotonic seconds that move only when slept or when a scripted reply takes them."""

    def __init__(self, now: float = 0.0) -> None:
        self.now = now
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


class WallClock:
    """An aware datetime that stays where the test put it (`clock.now = …`)."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now
