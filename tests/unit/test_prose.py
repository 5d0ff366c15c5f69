"""An answer that is data (a JSON value, a card's fields) is no answer; prose that quotes JSON,
or opens with a PR's bracketed title, is one (core/checks/prose.py)."""

from __future__ import annotations

import pytest

from bot.core.checks.prose import is_data
from bot.core.checks.sanitize import sanitize_answer


@pytest.mark.parametrize(
    "text",
    [
        '{"headline": "Summary", "verdict": "skim", "minutes": 3}',
        '  {\n  "answer": "It pins the runner."\n}',
        "{}",
        '[{"number": 1}]',
        '["a", "b"]',
        "[]",
        '```json\n{"headline": "Summary"}\n```',
        'The card says: {"headline": "Summary", "verdict": "skim"}',
        "Card headline: Summary of the change\nCard verdict: skim\nCard point: none",
    ],
)
def test_json_and_cards_are_data(text: str) -> None:
    assert is_data(text)
    assert sanitize_answer(text, "https://github.com/o/r") is None


@pytest.mark.parametrize(
    "text",
    [
        "It pins the runner in `.github/workflows/ci.yml`.",
        "[Bugfix] Fix the sampler is the PR that does it.",
        "[1] The PR says the runner moved.",
        'Set it with {"max_model_len": 4096} in the config.',
        'It adds one key:\n```json\n{"runs-on": "ubuntu-24.04"}\n```',
        "The headline: the runner moved. The verdict: skim it.",
    ],
)
def test_prose_is_not_data(text: str) -> None:
    assert not is_data(text)
    assert sanitize_answer(text, "https://github.com/o/r") == text
