"""Suggested prompts for a person who opens the app's Messages tab (the agent messaging experience).

Slack sends app_home_opened with tab "messages" on every visit: prompts are set once, then not
again for PROMPTS_TTL_SECONDS per person (a key in Redis, any replica), so a person's channels
joined since show within that time. When Redis cannot say, nothing is set (it would be set on
every visit otherwise). The ideas come from the person's own channels only (services/reach.py): a
recent digest's area and PR are shown only where that channel may show their repository.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

from bot.errors import SlackError, StoreError
from bot.models import DigestItem
from bot.ports.slack import SlackPort
from bot.render.suggestions import PromptIdeas, area_of, suggested_prompts
from bot.services.channels import ChannelPlan
from bot.services.qa import visible_part
from bot.services.reach import channels_of, shown_repos
from bot.slack.deps import SlackDeps
from bot.store.workspace import scoped

log = logging.getLogger(__name__)

# A day: a person opens the tab many times a day, their channels and digests change daily.
PROMPTS_TTL_SECONDS = 24 * 3600


def set_prompts(deps: SlackDeps, slack: SlackPort, user: str, dm: str) -> None:
    """Set the Messages tab's prompts for `user` in their DM `dm`, unless set lately."""
    key = scoped(deps.threads.team, f"prompts:{user}")
    kv = deps.threads.kv.strict()
    try:
        if not kv.set_nx(key, b"1", PROMPTS_TTL_SECONDS * 1000):
            return
    except StoreError:
        return
    try:
        language = deps.people.language(slack, user)
        prompts = suggested_prompts(ideas_for(deps, slack, user), language)
        slack.suggest_prompts(dm, prompts.title, prompts.prompts)
    except Exception as exc:
        if isinstance(exc, SlackError) and exc.code != SlackError.TRANSPORT:
            # not_agent_app: "Agents & AI Apps" is off in the app's settings (README, Install in Slack).
            log.warning("Slack refused the Messages tab's prompts: %s", exc.code)
        else:
            log.exception("setting the Messages tab's prompts failed")
        with contextlib.suppress(StoreError):
            kv.delete(key)  # the next visit tries again


def ideas_for(deps: SlackDeps, slack: SlackPort, user: str) -> PromptIdeas:
    plans = [plan for plan in channels_of(deps.directory, deps.members, slack, user) if shown_repos(deps.access, plan)]
    if not plans:
        return PromptIdeas(follows=False)
    items = list(_recent_items(deps, plans))
    area = area_of(path for item in items for path in item.paths)
    pr = f"{items[0].listing.repo}#{items[0].listing.number}" if items else None
    return PromptIdeas(follows=True, area=area, pr=pr)


def _recent_items(deps: SlackDeps, plans: list[ChannelPlan]) -> Iterator[DigestItem]:
    """The cards of each channel's last digest, of the repositories that channel may show."""
    for plan in plans:
        run = deps.ledger.last_run(plan.id)
        if run is None:
            continue
        try:
            lead = deps.digests.lead_ts(plan.id, run.day)
        except StoreError:
            continue
        digest = deps.threads.digest(plan.id, lead) if lead else None
        if digest is not None:
            yield from visible_part(digest, frozenset(repo.lower() for repo in shown_repos(deps.access, plan))).items
