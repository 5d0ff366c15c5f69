"""Access: which repositories a channel or a person may be told about, and which names a reply may carry.

The door: AccessPolicy, which builds a request's Audience.
"""

from __future__ import annotations

from bot.access.policy import AccessPolicy
from bot.access.reach import channels_of, reach_of, shown_repos

__all__ = ["AccessPolicy", "channels_of", "reach_of", "shown_repos"]
