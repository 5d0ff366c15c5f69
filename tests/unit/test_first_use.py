"""A stand-in makes its object at the first attribute asked for, once, and answers as it does."""

from __future__ import annotations

from bot.core.strings.first_use import OnFirstUse


class _Made:
    def __init__(self) -> None:
        self.value = 7

    def twice(self, number: int) -> int:
        return 2 * number


def test_the_object_is_made_at_the_first_use_and_only_once() -> None:
    made: list[_Made] = []

    def make() -> _Made:
        made.append(_Made())
        return made[-1]

    stand_in: _Made = OnFirstUse(make)  # type: ignore[assignment]
    assert made == []
    assert (stand_in.value, stand_in.twice(3), stand_in.twice(4)) == (7, 6, 8)
    assert len(made) == 1
