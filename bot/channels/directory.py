"""ChannelDirectory: what each Slack channel is configured for, from config/prdigest.toml and
from the subscriptions made in Slack (channels/subscriptions.py).

Who may be told what is decided in access/policy.py from these plans.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import time, timedelta
from typing import TypeVar
from zoneinfo import ZoneInfo

from bot.core.config import ChannelConfig, Defaults, FileConfig
from bot.errors import StoreError
from bot.models import Cadence, Filters, Language, QuietDays, ReleasesMode

log = logging.getLogger(__name__)

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
    cadence: Cadence = "daily"
    weekly_on: int = 0  # the weekly roll-up's weekday (Monday 0), at post_at
    releases: ReleasesMode = "off"

    @property
    def daily(self) -> bool:
        return self.cadence in ("daily", "both")

    @property
    def weekly(self) -> bool:
        return self.cadence in ("weekly", "both")


def _or(value: T | None, default: T) -> T:
    # Not `value or default`: a value may be falsy and still set.
    return default if value is None else value


def plan_for(config: ChannelConfig, defaults: Defaults) -> ChannelPlan:
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
        cadence=_or(config.cadence, "daily"),
        weekly_on=_or(config.weekly_on, 0),
        releases=_or(config.releases, "off"),
    )


class ChannelDirectory:
    """The channels that get a digest: the config file's, and (with `configs`) those followed
    from Slack, read again by `refresh()` so a change made on any replica is seen at the next
    scheduler tick. Between refreshes every reader sees one consistent snapshot."""

    def __init__(
        self,
        config: FileConfig,
        configs: Callable[[], Sequence[ChannelConfig]] | None = None,
        *,
        team: str | None = None,
    ) -> None:
        self._config = config  # the file's channels, defaults and [slack] rules
        self._defaults = config.defaults
        self._default_language: Language = config.defaults.language
        self._configs = configs
        # OAuth mode: the workspace these channels are in (None: the single or home one, whose
        # channels the file lists); its plans carry it, so its digests post with its token.
        self._team = team
        self._set(config.channels if team is None else ())

    def _set(self, configs: Sequence[ChannelConfig]) -> None:
        plans = tuple(replace(plan_for(channel, self._defaults), team=self._team) for channel in configs)
        by_id = {plan.id: plan for plan in plans}
        all_repos = tuple(dict.fromkeys(repo for plan in plans for repo in plan.repos))
        # One assignment: a reader never sees plans and their index from two different reads.
        self._snapshot = (plans, by_id, all_repos)

    def refresh(self) -> None:
        """Read the channels again (the file's and Slack's). When the store cannot be read, the
        last snapshot stays: a Redis outage must not unsubscribe every Slack channel."""
        if self._configs is None:
            return
        try:
            configs = self._configs()
        except StoreError as exc:
            log.warning("cannot read the channels followed from Slack (%s); keeping the last known", exc)
            return
        self._set(configs)

    @property
    def plans(self) -> tuple[ChannelPlan, ...]:
        return self._snapshot[0]

    @property
    def all_repos(self) -> tuple[str, ...]:
        return self._snapshot[2]

    def repos(self) -> tuple[str, ...]:
        """Every repository the workspace's channels follow (questions across days look them up)."""
        return self.all_repos

    def timezone(self, channel: str) -> ZoneInfo:
        """The channel's time zone: its plan's, else the workspace's default ("today" there)."""
        plan = self.plan(channel)
        return plan.timezone if plan else self._defaults.timezone

    def current_plans(self) -> tuple[ChannelPlan, ...]:
        """The plans after a refresh: what the scheduler reads at every tick."""
        self.refresh()
        return self.plans

    def plan(self, channel: str) -> ChannelPlan | None:
        return self._snapshot[1].get(channel)

    def default_repo(self, channel: str) -> str | None:
        """The repository `#123` means here: the channel's first, or the workspace's only one."""
        plan = self.plan(channel)
        if plan:
            return plan.repos[0]
        all_repos = self.all_repos
        return all_repos[0] if len(all_repos) == 1 else None

    def private_allowed(self, channel: str, repo: str) -> bool:
        """Whether the config file allows `repo`, if private, in `channel`: the file lists it for
        the channel, or lets Slack follow it (`[slack] followable_private_repos`). A private
        repository followed from Slack stops being posted once the file no longer lists it."""
        name = repo.lower()
        file_channel = next((channel_ for channel_ in self._config.channels if channel_.id == channel), None)
        if file_channel is not None and name in {listed.lower() for listed in file_channel.repos}:
            return True
        return name in {listed.lower() for listed in self._config.slack.followable_private_repos}

    def language(self, channel: str) -> Language:
        plan = self.plan(channel)
        return plan.language if plan else self._default_language
