"""Unfurls: a pasted PR link answered with its card.

The door: Unfurling, and where an unfurl goes (Target).
"""

from __future__ import annotations

from bot.unfurls.unfurling import Target, Unfurling

__all__ = ["Target", "Unfurling"]
