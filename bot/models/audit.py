"""AuditEntry: one change a person made to a channel's subscription from Slack.

A pydantic model, not a dataclass like the other values: the store keeps it as JSON through
pydantic (store/subscriptions.py), and its fields are checked when read back.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict


class AuditEntry(BaseModel):
    """One change: `action` is follow, unfollow or settings; `detail` the repositories or keys."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    channel: str
    user: str
    at: datetime
    action: str
    detail: tuple[str, ...] = ()
