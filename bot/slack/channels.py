"""ChannelDirectory: what each Slack channel is configured for, from config/prdigest.toml.

Who may be told what is decided in slack/access.py from these plans.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import time, timedelta
from typing import TypeVar
from zoneinfo import ZoneInfo

from bot.models import Filters, Language, QuietDays
from bot.settings import ChannelConfig, Settings

T = TypeVar("T")


@dataclass(frozen=True)
class ChannelPlan:
    """One configured channel with its defaults filled in."""

    id: str
    repos: tuple[str, ...]
    language: Language
    timezone: ZoneInfo
    post_at: time
    window: timedelta
    quiet_days: QuietDays
    filters: Filters
    # The workspace posted in (OAuth mode); None: the single or home workspace, as the file's.
    team: str | None = None


def _or(value: T | None, default: T) -> T:
    # Not `value or default`: a value may be falsy and still set.
    return default if value is None else value


def plan_for(config: ChannelConfig, settings: Settings) -> ChannelPlan:
    defaults = settings.defaults
    return ChannelPlan(
        id=config.id,
        repos=config.repos,
        language=_or(config.language, defaults.language),
        timezone=_or(config.timezone, defaults.timezone),
        post_at=_or(config.post_at, defaults.post_at),
        window=_or(config.window, defaults.window),
        quiet_days=_or(config.quiet_days, defaults.quiet_days),
        filters=Filters(
            exclude_authors=config.exclude_authors,
            labels_include=config.labels_include,
            labels_exclude=config.labels_exclude,
            paths=config.paths,
        ),
    )


class ChannelDirectory:
    def __init__(self, settings: Settings) -> None:
        self._default_language: Language = settings.defaults.language
        self.plans = tuple(plan_for(channel, settings) for channel in settings.config.channels)
        self._by_id = {plan.id: plan for plan in self.plans}
        self.all_repos = tuple(dict.fromkeys(repo for plan in self.plans for repo in plan.repos))

    def plan(self, channel: str) -> ChannelPlan | None:
        return self._by_id.get(channel)

    def default_repo(self, channel: str) -> str | None:
        """The repository `#123` means here: the channel's first, or the workspace's only one."""
        plan = self._by_id.get(channel)
        if plan:
            return plan.repos[0]
        return self.all_repos[0] if len(self.all_repos) == 1 else None

    def language(self, channel: str) -> Language:
        plan = self._by_id.get(channel)
        return plan.language if plan else self._default_language
