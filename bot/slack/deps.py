"""What the Slack listeners need, built once and handed to every `register`."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass

from bot.services.access import AccessPolicy
from bot.services.cards import CardService
from bot.services.channels import ChannelDirectory
from bot.services.members import ChannelMembers
from bot.services.people import PeopleLanguages
from bot.services.posting import DigestPosting
from bot.services.qa import QAService
from bot.services.refs import GITHUB_WEB
from bot.services.spending import Payer, Spending
from bot.services.subscriptions import Subscriptions
from bot.services.watch_dms import WatchDMs
from bot.settings import Defaults
from bot.store.feedback import FeedbackStore
from bot.store.ledger import PostLedger
from bot.store.threads import ThreadStore


@dataclass(frozen=True)
class SlackDeps:
    directory: ChannelDirectory
    access: AccessPolicy
    members: ChannelMembers
    people: PeopleLanguages
    cards: CardService
    qa: QAService
    threads: ThreadStore
    ledger: PostLedger
    command: str
    # Slow work (GitHub, the model, posting) runs here, never on Bolt's listener threads,
    # which must stay free to acknowledge the next request within Slack's 3 seconds.
    work: Executor
    # Channel subscriptions from Slack (issue 12). The store behind them is the single-workspace
    # install's (team None); a multi-workspace install hands each team's here.
    subscriptions: Subscriptions
    digests: DigestPosting
    defaults: Defaults
    # The channel's Useful / Not for us clicks (issue 13); the workspace's keys, like threads.
    feedback: FeedbackStore | None = None
    # Personal watches and their daily DMs (issue 13); the workspace's, like threads.
    watch_dms: WatchDMs | None = None
    # OAuth mode: the same deps over another workspace's stores (slack/app.py makes them).
    teams: Callable[[str | None], SlackDeps] | None = None
    # The model's tokens per day, channel and repository (services/spending.py), for the App Home.
    spending: Spending | None = None
    # Where the followed repositories' PRs are seen in a browser: github.com, or an Enterprise
    # server's host (services/refs.github_web_base). Only links there are unfurled.
    github_web: str = GITHUB_WEB
    # The workspace these deps are of: None for the single or home one, else its team id (OAuth
    # mode). Its budget pays for the cards made for its requests, and it sees only its own spend.
    workspace: str | None = None

    def payer(self, channel: str) -> Payer:
        """Who pays for a card a request in `channel` makes (services/spending.py)."""
        return Payer(channel, self.workspace)

    def of_team(self, team: str | None) -> SlackDeps:
        """These deps for the workspace a request comes from (`workspaces.team_of(context)`)."""
        return self if self.teams is None else self.teams(team)
