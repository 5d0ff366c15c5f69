"""Personal watches: the PRs a person's paths and words match, and their daily DM.

The door: WatchDMs (a person's watches, and the DMs due).
"""

from __future__ import annotations

from bot.watches.dms import DueWatchDM, WatchDMs

__all__ = ["DueWatchDM", "WatchDMs"]
