"""A channel's digest of a day: the window's merged PRs, filtered, carded, ordered, and posted once.

The door: DigestPosting (a channel's digest posted once), the windows a person may type, and
LeaseLost (a post another replica took over).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.ops.doors import exported

if TYPE_CHECKING:
    from bot.digests.areas import groups
    from bot.digests.build import FETCHERS, DigestService, Progress
    from bot.digests.filters import explain
    from bot.digests.lease import POST_LEASE_SECONDS, LeaseLost, PostLease
    from bot.digests.now import ChannelDigest, FollowingView
    from bot.digests.posting import REAL_POST_TIMING, DigestPosting, PostTiming
    from bot.digests.publisher import Publisher, PublishResult
    from bot.digests.votes import Votes
    from bot.digests.windows import FIRST_DAY, parse_date, parse_since, window_for_date, window_since

__all__ = [
    "FETCHERS",
    "FIRST_DAY",
    "POST_LEASE_SECONDS",
    "REAL_POST_TIMING",
    "ChannelDigest",
    "DigestPosting",
    "DigestService",
    "FollowingView",
    "LeaseLost",
    "PostLease",
    "PostTiming",
    "Progress",
    "PublishResult",
    "Publisher",
    "Votes",
    "explain",
    "groups",
    "parse_date",
    "parse_since",
    "window_for_date",
    "window_since",
]

if not TYPE_CHECKING:  # each name is imported when first asked for (bot/ops/doors.py)
    __getattr__ = exported(__name__, __file__)
