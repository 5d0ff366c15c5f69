"""What one person may be told outside any channel (their DM with the app): the rule of every
surface, applied to the person rather than to the channel they ask in.

- The public repositories this workspace follows, as an @mention in any channel is told.
- The repositories each channel the person is a member of may show (access/policy.py): a private
  one only through a channel configured for it, and never through one shared with another
  organisation. A guest learns nothing through a channel they are not in.
Membership is read through ChannelMembers (cached a few minutes; when Slack cannot say, the person
counts as not a member: fail closed). A rule, not a surface: it takes the directory, the members
and the access policy as plain values, and imports no slack/ nor render/.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.access.policy import AccessPolicy
from bot.channels import ChannelDirectory, ChannelMembers, ChannelPlan
from bot.ports.slack import SlackPort


def channels_of(directory: ChannelDirectory, members: ChannelMembers, slack: SlackPort, user: str) -> list[ChannelPlan]:
    """The channels following repositories that `user` is a member of, in the directory's order."""
    directory.refresh()  # channels followed from Slack on any replica
    return [plan for plan in directory.plans if members.is_member(slack, plan.id, user)]


def shown_repos(access: AccessPolicy, plan: ChannelPlan) -> tuple[str, ...]:
    """The repositories of `plan` its channel may show (a private one only where configured)."""
    return tuple(repo for repo in plan.repos if access.may_post(plan.id, repo))


@dataclass(frozen=True)
class Reach:
    """What `user` may ask about in their DM, and what a bare "#123" there means."""

    allowed: frozenset[str]  # every repository they may ask about, lower-case
    own: tuple[str, ...]  # the repositories of their channels, as configured, first seen first
    workspace_default: str | None  # the workspace's only repository, if it follows one

    @property
    def default_repo(self) -> str | None:
        """The repository "#123" stands for: the one their channels follow, when there is one;
        with no channel of theirs, the workspace's only one if they may ask about it; else None
        (they must say which)."""
        if len(self.own) == 1:
            return self.own[0]
        only = self.workspace_default
        return only if not self.own and only is not None and only.lower() in self.allowed else None


def reach_of(
    directory: ChannelDirectory, members: ChannelMembers, access: AccessPolicy, slack: SlackPort, user: str, dm: str
) -> Reach:
    """What `user` may ask about in their DM `dm` with the app."""
    # A DM is no configured channel: AccessPolicy gives it the workspace's public repositories.
    allowed = set(access.allowed(dm))
    own: dict[str, str] = {}
    for plan in channels_of(directory, members, slack, user):
        for repo in shown_repos(access, plan):
            own.setdefault(repo.lower(), repo)
    allowed.update(own)
    return Reach(frozenset(allowed), tuple(own.values()), directory.default_repo(dm))
