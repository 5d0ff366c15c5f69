"""Workspace: one Slack workspace's port to Slack, stores and posting services, as the builder makes them.

The single-workspace install (SLACK_BOT_TOKEN) has one, with no team. In OAuth mode every
workspace that installed the app has its own: its client speaks with its own token, and its
ledger, threads and caches live under its own keys (store/workspace.py), except the home
workspace's (`[slack] home_team`, whose channels the config file lists), which keeps the keys of
the single install.
"""

from __future__ import annotations

from dataclasses import dataclass

from slack_bolt import BoltContext

from bot.ports.slack import SlackPort
from bot.services.access import AccessPolicy
from bot.services.channels import ChannelDirectory
from bot.services.posting import DigestPosting
from bot.services.publisher import Publisher
from bot.services.subscriptions import Subscriptions
from bot.slack.installations import workspace_id
from bot.store.facts import FactStore
from bot.store.ledger import PostLedger
from bot.store.threads import ThreadStore


@dataclass(frozen=True)
class Workspace:
    scope: str | None  # its keys' team (None: the single or home workspace)
    slack: SlackPort  # its Slack, as its own token speaks to it
    ledger: PostLedger
    threads: ThreadStore
    facts: FactStore
    access: AccessPolicy
    publisher: Publisher
    digests: DigestPosting
    directory: ChannelDirectory  # the channels that get its digest (the home one's: the file's too)
    subscriptions: Subscriptions


def team_of(context: BoltContext) -> str | None:
    """The workspace a Slack request comes from, as installations are kept (None: not said)."""
    return workspace_id(context.enterprise_id, context.team_id, context.is_enterprise_install)
