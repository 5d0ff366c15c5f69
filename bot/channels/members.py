"""ChannelMembers: who is in a configured channel, so the App Home shows each person only the
channels they are in.

Read from conversations.members, page by page, and remembered for a few minutes per channel:
one list serves everyone who opens the Home, and it includes members from other organisations
in shared channels. When Slack cannot say, the person counts as not a member (fail closed).
"""

from __future__ import annotations

import logging

from bot.errors import SlackError
from bot.ports.slack import SlackPort
from bot.store.repos.facts import FactStore

log = logging.getLogger(__name__)

# Slack recommends no more than 200 results per page (pagination reference).
PAGE_SIZE = 200
# 50,000 members: a cursor that never ends cannot keep the Home from being published. A member
# beyond it is not seen (fail closed).
MAX_PAGES = 250


class ChannelMembers:
    def __init__(self, facts: FactStore) -> None:
        self._facts = facts

    def is_member(self, slack: SlackPort, channel: str, user: str) -> bool:
        members = self._members(slack, channel)
        return members is not None and user in members

    def _members(self, slack: SlackPort, channel: str) -> frozenset[str] | None:
        cached = self._facts.members(channel)
        if cached is not None:
            return cached
        members: list[str] = []
        cursor = ""
        try:
            for _ in range(MAX_PAGES):
                page, cursor = slack.members_page(channel, PAGE_SIZE, cursor or None)
                members.extend(page)
                if not cursor:
                    break
        except SlackError as exc:
            if exc.code == SlackError.TRANSPORT:
                raise  # no answer at all: the Home is not published (its caller logs why)
            log.warning("cannot read the members of %s (%s)", channel, exc.code)
            return None
        self._facts.remember_members(channel, members)
        return frozenset(members)
