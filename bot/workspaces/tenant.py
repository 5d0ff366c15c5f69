"""Tenant: one Slack workspace's parts, as its listeners, its scheduler and the CLI use them.

The single-workspace install (SLACK_BOT_TOKEN) has one, with no team. In OAuth mode every
workspace that installed the app has its own: its Slack speaks with its own token, and its
ledger, threads, caches and feedback live under its own keys (store/workspace.py), except the
home workspace's (`[slack] home_team`, whose channels the config file lists), which keeps the
keys of the single install. The card service and the defaults are the process's,
shared by every tenant. Built once per workspace by the wiring (`wiring/tenants.py`). It holds doors, never a store:
what a surface may do with the workspace's state is a feature's call.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.access import AccessPolicy
from bot.cards import CardLookup, CardService
from bot.channels import ChannelDirectory, ChannelMembers, PeopleLanguages, Subscriptions
from bot.core.config import Defaults
from bot.digests import ChannelDigest, DigestPosting, Publisher, Votes
from bot.ports.slack import SlackPort
from bot.questions import DMQuestions, PromptSuggestions, QAService, ThreadQuestions
from bot.releases import ReleaseLookup, ReleaseWatch
from bot.unfurls import Unfurling
from bot.watches import WatchDMs
from bot.workspaces.deliveries import Deliveries
from bot.workspaces.home import HomeTab


@dataclass(frozen=True)
class Tenant:
    scope: str | None  # its keys' team (None: the single or home workspace)
    slack: SlackPort  # its Slack, as its own token speaks to it
    directory: ChannelDirectory  # the channels that get its digest (the home one's: the file's too)
    subscriptions: Subscriptions  # channel subscriptions made in Slack
    access: AccessPolicy
    members: ChannelMembers
    people: PeopleLanguages
    qa: QAService
    publisher: Publisher
    digests: DigestPosting
    watch_dms: WatchDMs  # personal watches and their daily DMs
    questions: ThreadQuestions  # questions in a digest's thread and @mentions, answered in threads
    dm: DMQuestions  # questions in a person's DM with the app (the Messages tab)
    suggestions: PromptSuggestions  # the Messages tab's suggested prompts
    votes: Votes  # the channel's Useful / Not for us clicks
    home: HomeTab  # a person's App Home: the channels they are in that get a digest
    channel_digest: ChannelDigest  # `/pr following` and `/pr digest`
    deliveries: Deliveries  # which commands, clicks and events were handled already, by any replica
    lookup: CardLookup  # `/pr owner/repo#N`: a PR's card for one person, or why not
    # The process's, the same for every tenant.
    cards: CardService
    defaults: Defaults
    command: str  # the slash command, `/pr` by default
    release_watch: ReleaseWatch  # new releases posted where its channels asked
    releases: ReleaseLookup  # `/pr release`: a release for one person, and its Share
    unfurling: Unfurling  # a pasted PR link answered with its card (`[slack] unfurl = true`)
