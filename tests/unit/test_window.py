"""How much of the model's context window a prompt may take, and how a retry is sized."""

from __future__ import annotations

from bot.core.prompting.context_window import FIT_MARGIN, fitted, prompt_limit


def test_the_configured_budget_holds_until_a_window_is_smaller() -> None:
    assert prompt_limit(11400, None, 600) == 11400
    assert prompt_limit(11400, 8192, 600) == 7592
    assert prompt_limit(11400, 131072, 600) == 11400


def test_a_retry_aims_below_the_window_less_the_answer() -> None:
    # OpenAI's figures: a window of 4096, the prompt counted at 3000 where we estimated 5000.
    assert fitted(sent=5000, window=4096, room=600, counted=3000) == int((4096 - 600) * FIT_MARGIN)


def test_a_server_that_counts_more_than_the_estimate_shrinks_the_target_in_proportion() -> None:
    smaller = fitted(sent=3000, window=4096, room=600, counted=6000)
    assert smaller == int((4096 - 600) * 3000 // 6000 * FIT_MARGIN)
    assert smaller * 6000 / 3000 <= 4096 - 600  # what the server will count fits


def test_without_figures_the_prompt_only_shrinks_by_the_margin() -> None:
    assert fitted(sent=5000, window=None, room=600, counted=None) == int(5000 * FIT_MARGIN)


def test_a_retry_is_never_larger_than_what_was_sent() -> None:
    assert fitted(sent=1000, window=131072, room=600, counted=900) == int(1000 * FIT_MARGIN)
