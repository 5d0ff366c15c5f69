"""Access: which repositories a channel or a person may be told about, and which names a reply may carry.

The door: AccessPolicy, which builds a request's Audience.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ops.doors import exported

if TYPE_CHECKING:
    from bot.access.policy import AccessPolicy
    from bot.access.reach import channels_of, reach_of, shown_repos

__all__ = ["AccessPolicy", "channels_of", "reach_of", "shown_repos"]

if not TYPE_CHECKING:  # each name is imported when first asked for (bot/ops/doors.py)
    __getattr__ = exported(__name__, __file__)
