"""A channel as its people shape and see it: a change one of them made to its subscriptions
(`AuditEntry`), their feedback on its cards (`Vote`; models/digest.py's `Boost` is what it does to a
card), and how it stands on the App Home for one of them (`ChannelStatus`).

AuditEntry is a pydantic model, not a dataclass like the other values: the store keeps it as JSON
through pydantic (store/subscriptions.py), and its fields are checked when read back.
digests/feedback.py tallies and ranks votes; store/feedback.py keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, time, timedelta

from pydantic import BaseModel, ConfigDict

from bot.models.digest import DigestRun
from bot.models.note import Language, Note


class AuditEntry(BaseModel):
    """One change: `action` is follow, unfollow or settings; `detail` the repositories or keys."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    channel: str
    user: str
    at: datetime
    action: str
    detail: tuple[str, ...] = ()


@dataclass(frozen=True)
class Vote:
    """One person's feedback on one PR, with the PR's areas as they were when clicked."""

    pr: str  # owner/repo#N
    up: bool
    areas: tuple[str, ...]


@dataclass(frozen=True)
class ChannelStatus:
    """One channel that gets a digest, as the member who opened the App Home may see it: only
    the repositories the channel may show, and of its last run only a problem naming none of
    the others."""

    channel: str
    repos: tuple[str, ...]
    post_at: time  # local to `timezone`
    timezone: str  # "Asia/Shanghai"
    window: timedelta
    language: Language  # the channel's digest language
    last_run: DigestRun | None = None
    told: Note | None = None  # the one problem of the last run this person may be told of
    editable: bool = False  # whether this person may change the channel's subscriptions
    change: AuditEntry | None = None  # the channel's last change from Slack
