"""Unfurls: a pasted PR link answered with its card.

The door: Unfurling, and where an unfurl goes (Target).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ops.doors import exported

if TYPE_CHECKING:
    from bot.unfurls.unfurling import Target, Unfurling

__all__ = ["Target", "Unfurling"]

if not TYPE_CHECKING:  # each name is imported when first asked for (bot/ops/doors.py)
    __getattr__ = exported(__name__, __file__)
