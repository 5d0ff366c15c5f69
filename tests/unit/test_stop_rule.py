"""core/stops.py: whose answer a Stop ends, as pure values."""

from __future__ import annotations

from bot.core.stops import ends_answer

ASKED = 1_700_000_100.0


def test_the_askers_stop_after_asking_ends_the_answer() -> None:
    assert ends_answer(stream_ended=False, asker_pressed_at=ASKED + 3, asked_at=ASKED)


def test_a_stop_the_asker_pressed_before_asking_is_an_earlier_answers() -> None:
    assert not ends_answer(stream_ended=False, asker_pressed_at=ASKED - 3, asked_at=ASKED)


def test_without_the_askers_press_only_slack_ending_the_stream_stops_it() -> None:
    assert not ends_answer(stream_ended=False, asker_pressed_at=None, asked_at=ASKED)
    assert ends_answer(stream_ended=True, asker_pressed_at=None, asked_at=ASKED)
