"""Suggested prompts for a person who opens the app's Messages tab (the agent messaging experience).

Slack sends app_home_opened with tab "messages" on every visit: prompts are set once, then not
again for PROMPTS_TTL_SECONDS per person (a key in Redis, any replica), so a person's channels
joined since show within that time. When Redis cannot say, nothing is set (it would be set on
every visit otherwise). The ideas come from the person's own channels only (access/reach.py): a
recent digest's area and PR are shown only where that channel may show their repository.

A rule, not a surface: the listener (slack/listeners/direct.py) builds it from the workspace's
parts; the prompts' words are the PromptWords it is given (bot/ports/wording.py,
render/slack/suggestions.py's `prompt_words`). Imports no slack/ nor render/.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from bot.access import AccessPolicy, channels_of, shown_repos
from bot.channels import ChannelDirectory, ChannelMembers, ChannelPlan, PeopleLanguages
from bot.errors import SlackError, StoreError
from bot.models import Audience, DigestItem
from bot.ports.slack import SlackPort
from bot.ports.wording import PromptWords
from bot.questions.qa import visible_part
from bot.store.ledger import PostLedger
from bot.store.threads import ThreadStore
from bot.store.workspace import scoped

log = logging.getLogger(__name__)

# A day: a person opens the tab many times a day, their channels and digests change daily.
PROMPTS_TTL_SECONDS = 24 * 3600


class DigestLeads(Protocol):
    """Where a channel's posted digest begins (the posting run's DigestPosting)."""

    def lead_ts(self, channel: str, day: str) -> str | None: ...


@dataclass(frozen=True)
class PromptSuggestions:
    """One workspace's Messages-tab prompts: its channels, members, access and digests."""

    directory: ChannelDirectory
    members: ChannelMembers
    access: AccessPolicy
    people: PeopleLanguages
    threads: ThreadStore
    ledger: PostLedger
    digests: DigestLeads
    words: PromptWords

    def set_prompts(self, slack: SlackPort, user: str, dm: str) -> None:
        """Set the Messages tab's prompts for `user` in their DM `dm`, unless set lately."""
        key = scoped(self.threads.team, f"prompts:{user}")
        kv = self.threads.kv.strict()
        try:
            if not kv.set_nx(key, b"1", PROMPTS_TTL_SECONDS * 1000):
                return
        except StoreError:
            return
        try:
            language = self.people.language(slack, user)
            plans = [plan for plan in channels_of(self.directory, self.members, slack, user) if self._shown(plan)]
            items = list(self._recent_items(plans))
            pr = f"{items[0].listing.repo}#{items[0].listing.number}" if items else None
            title, prompts = self.words(bool(plans), [path for item in items for path in item.paths], pr, language)
            slack.suggest_prompts(dm, title, prompts)
        except Exception as exc:
            if isinstance(exc, SlackError) and exc.code != SlackError.TRANSPORT:
                # not_agent_app: "Agents & AI Apps" is off in the app's settings (README, Install in Slack).
                log.warning("Slack refused the Messages tab's prompts: %s", exc.code)
            else:
                log.exception("setting the Messages tab's prompts failed")
            with contextlib.suppress(StoreError):
                kv.delete(key)  # the next visit tries again

    def _shown(self, plan: ChannelPlan) -> tuple[str, ...]:
        return shown_repos(self.access, plan)

    def _recent_items(self, plans: list[ChannelPlan]) -> Iterator[DigestItem]:
        """The cards of each channel's last digest, of the repositories that channel may show."""
        for plan in plans:
            run = self.ledger.last_run(plan.id)
            if run is None:
                continue
            try:
                lead = self.digests.lead_ts(plan.id, run.day)
            except StoreError:
                continue
            digest = self.threads.digest(plan.id, lead) if lead else None
            if digest is not None:
                shown = Audience(plan.id, frozenset(repo.lower() for repo in self._shown(plan)), plan.language)
                yield from visible_part(digest, shown).items
