"""Spending: the model's tokens, counted per day, workspace, channel and repository, against
the budgets that cap them; who pays for each card and answer.

The door: Spending (the counts and the report), and who pays (Payer, the terminal's CLI).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ops.doors import exported

if TYPE_CHECKING:
    from bot.spending.budgets import ALERTS, CLI, CLI_PAYER, WORKER, Account, Payer, Spending, background_workspace

__all__ = ["ALERTS", "CLI", "CLI_PAYER", "WORKER", "Account", "Payer", "Spending", "background_workspace"]

if not TYPE_CHECKING:  # each name is imported when first asked for (bot/ops/doors.py)
    __getattr__ = exported(__name__, __file__)
