"""Which Slack workspace a stored key belongs to.

A bot installed in several workspaces (OAuth) keeps each workspace's subscriptions, digests,
threads and answers under its own prefix, so two workspaces never read each other's data. The
single-workspace install (SLACK_BOT_TOKEN) has no team: its keys stay as they were before
workspaces existed, so an upgrade finds its ledger and posts nothing twice. Cards of public PRs
and everything else keyed by PR alone are shared, and are not scoped. `Scopes` says which team
a workspace's keys are kept under.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.core.strings.patterns import lazy

# Slack team ids (T…) and Enterprise Grid org ids (E…): letters and digits only.
_TEAM = lazy(r"[TE][A-Z0-9]{2,31}")


def checked_team(team: str) -> str:
    """`team`, when it is a Slack team id (it goes into keys); ValueError when not."""
    if not _TEAM.fullmatch(team):
        raise ValueError(f"{team!r} is not a Slack team id")
    return team


def scoped(team: str | None, key: str) -> str:
    """`key` as stored for `team`; unchanged for the single-workspace install (team None)."""
    if team is None:
        return key
    return f"team:{checked_team(team)}:{key}"


def team_prefix(team: str) -> str:
    """Every key of `team` starts with this (to delete a workspace's data on uninstall)."""
    return scoped(team, "")


@dataclass(frozen=True)
class Scopes:
    """Which keys a workspace's state is kept under."""

    oauth: bool  # several workspaces (SLACK_CLIENT_ID…), or one (SLACK_BOT_TOKEN)
    home_team: str | None = None  # `[slack] home_team`: the workspace the config file's channels are in

    def of(self, team: str | None) -> str | None:
        """The team a workspace's keys are kept under: None for the single install and for the
        home workspace of OAuth mode (its keys stay those of the single install)."""
        if not self.oauth or team is None or team == self.home_team:
            return None
        return team
