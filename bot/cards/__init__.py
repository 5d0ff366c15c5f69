"""A PR's card: its snapshot read from GitHub once, the card written once (by the model or the
rules), stored for every surface.

The door: CardLookup (`/pr owner/repo#N` and its Share); CardService for whoever makes cards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ops.doors import exported

if TYPE_CHECKING:
    from bot.cards.heuristic.point_names import card_contradicts
    from bot.cards.lookup import CardLookup
    from bot.cards.poller import MergePoller
    from bot.cards.service import CardResult, CardService
    from bot.cards.writer import DEFAULT_FIT, ModelFit, file_facts

__all__ = [
    "DEFAULT_FIT",
    "CardLookup",
    "CardResult",
    "CardService",
    "MergePoller",
    "ModelFit",
    "card_contradicts",
    "file_facts",
]

if not TYPE_CHECKING:  # each name is imported when first asked for (bot/ops/doors.py)
    __getattr__ = exported(__name__, __file__)
