"""`prdigest eval`: cards and answers measured against labelled PRs, one row per model.

The door: the labelled files read, and the runs of cards and answers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ops.doors import exported

if TYPE_CHECKING:
    from bot.eval.files import jsonl_lines
    from bot.eval.labels import Asking, Labelled, parse_labels, parse_questions
    from bot.eval.runs import Across, EvalModel, answer_runs, card_runs

__all__ = [
    "Across",
    "Asking",
    "EvalModel",
    "Labelled",
    "answer_runs",
    "card_runs",
    "jsonl_lines",
    "parse_labels",
    "parse_questions",
]

if not TYPE_CHECKING:  # each name is imported when first asked for (bot/ops/doors.py)
    __getattr__ = exported(__name__, __file__)
