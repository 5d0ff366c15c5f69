"""Personal watches: the PRs a person's paths and words match, and their daily DM.

The door: WatchDMs (a person's watches, and the DMs due).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ops.doors import exported

if TYPE_CHECKING:
    from bot.watches.dms import DueWatchDM, WatchDMs

__all__ = ["DueWatchDM", "WatchDMs"]

if not TYPE_CHECKING:  # each name is imported when first asked for (bot/ops/doors.py)
    __getattr__ = exported(__name__, __file__)
