"""Slack installs: which id a workspace is known by, and how long an "Add to Slack" may take."""

from __future__ import annotations

# Bolt's default (OAuthStateUtils.default_expiration_seconds): time to click "Allow" in Slack.
STATE_SECONDS = 600


def workspace_id(enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool | None) -> str | None:
    """The id an installation is kept under: the org's for an org-wide install, else the team's."""
    return enterprise_id if is_enterprise_install else team_id
