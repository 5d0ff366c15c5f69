"""Releases: a release's PRs by area, what to know before upgrading, posted once where channels asked.

The door: ReleaseLookup (`/pr release` and its Share, a release posted from the terminal),
with the release asked for (ReleaseAsked); ReleaseQuestions for questions about releases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ops.doors import exported

if TYPE_CHECKING:
    from bot.releases.announcer import ReleaseWatch
    from bot.releases.lookup import ReleaseLookup
    from bot.releases.posting import ReleaseAsked
    from bot.releases.questions import ReleaseQuestions

__all__ = ["ReleaseAsked", "ReleaseLookup", "ReleaseQuestions", "ReleaseWatch"]

if not TYPE_CHECKING:  # each name is imported when first asked for (bot/ops/doors.py)
    __getattr__ = exported(__name__, __file__)
