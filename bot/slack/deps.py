"""What the Slack listeners need, built once and handed to every `register`."""

from __future__ import annotations

from dataclasses import dataclass

from bot.services.cards import CardService
from bot.services.qa import QAService
from bot.slack.access import AccessPolicy
from bot.slack.channels import ChannelDirectory
from bot.store.ledger import PostLedger
from bot.store.threads import ThreadStore


@dataclass(frozen=True)
class SlackDeps:
    directory: ChannelDirectory
    access: AccessPolicy
    cards: CardService
    qa: QAService
    threads: ThreadStore
    ledger: PostLedger
    command: str
