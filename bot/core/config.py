"""The config file's schema (config/prdigest.toml): its tables as strict, frozen pydantic models,
every value parsed into its type (core/strings/parsing.py) and held to its limits here.

What the file holds, not where it is: reading the file and os.environ is bot/settings.py's alone.
Services that hold a Slack edit to the file's own rules (channels/subscriptions.py) use these models.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import time, timedelta
from typing import Annotated, TypeVar
from zoneinfo import ZoneInfo

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationInfo, field_validator, model_validator
from pydantic_core import PydanticCustomError

from bot.core.strings.globs import MAX_GLOB_CHARS, MAX_GLOB_WILDCARDS, first_problem
from bot.core.strings.parsing import REPO_PATTERN, parse_duration, parse_time_of_day, parse_timezone, parse_weekday
from bot.core.usage import Price
from bot.errors import quoted
from bot.models import Cadence, Language, OutputMode, QuietDays, ReleasesMode, SkipClass

T = TypeVar("T")


def _from_text(parse: Callable[[str], T]) -> BeforeValidator:
    """A config value written as a string, parsed once into its type by `parse`."""

    def validate(value: object) -> T:
        if not isinstance(value, str):
            # What pydantic says of a str field: a TOML time (09:30:00) or a number stays an
            # error, with the message it always had.
            raise PydanticCustomError("string_type", "Input should be a valid string")
        return parse(value)

    return BeforeValidator(validate)


TimeZone = Annotated[ZoneInfo, _from_text(parse_timezone)]
TimeOfDay = Annotated[time, _from_text(parse_time_of_day)]
Duration = Annotated[timedelta, _from_text(parse_duration)]
Weekday = Annotated[int, _from_text(parse_weekday)]  # Monday is 0


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# Seconds one card may wait for the model, its retries included (llm/deadline.py). A small
# local model needs about a minute for a card; an hour is surely a typo (and would hold a card's
# lease that long).
DEFAULT_MODEL_TIMEOUT = 120.0
MAX_MODEL_TIMEOUT = 3600.0


def _check_model_timeout(value: object) -> object:
    # Checked before pydantic converts: it would read "120" (a string) or true as a number.
    # A comparison with NaN is false, so `nan` fails too; `inf` fails the upper bound.
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_MODEL_TIMEOUT:
        if isinstance(value, bool):
            shown = str(value).lower()  # as TOML spells it
        else:
            shown = str(value) if isinstance(value, int | float) else quoted(str(value))
        raise ValueError(f"{shown} is not a number of seconds; use a number above 0 and up to 3600, such as 120")
    return value


# How long a card's follow-ups wait for a later PR to answer them (digests/followups.py); a year at
# most: a digest reads one Redis key per day of it.
MAX_WATCH_DAYS = 365


def _check_watch_days(value: object) -> object:
    # Checked before pydantic converts: it would read "30" (a string), 30.0 or true as a number.
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_WATCH_DAYS:
        shown = (
            str(value).lower()
            if isinstance(value, bool)
            else str(value)
            if isinstance(value, int | float)
            else quoted(str(value))
        )
        raise ValueError(f"{shown} is not a number of days; use a whole number from 1 to {MAX_WATCH_DAYS}, such as 30")
    return value


class Defaults(_Strict):
    language: Language = "en"
    timezone: TimeZone = ZoneInfo("UTC")
    post_at: TimeOfDay = time(9, 0)
    window: Duration = timedelta(hours=24)
    model: str = "gpt-5-mini"
    concurrency: int = Field(default=16, ge=1, le=64)
    token_budget: int = Field(default=12000, ge=2000, le=400000)
    quiet_days: QuietDays = "note"
    model_timeout: float = DEFAULT_MODEL_TIMEOUT
    watch_days: int = 30
    # Tokens (in + out, every repository) the model may spend per UTC day; 0: no cap.
    daily_token_budget: int = Field(default=0, ge=0, le=10_000_000_000, strict=True)
    # PR classes whose card comes from metadata, no model call (core/heuristic/skipping.py).
    skip_model_for: tuple[SkipClass, ...] = ()

    _model_timeout = field_validator("model_timeout", mode="before")(_check_model_timeout)
    _watch_days = field_validator("watch_days", mode="before")(_check_watch_days)


def _check_repos(value: tuple[str, ...]) -> tuple[str, ...]:
    for repo in value:
        if not REPO_PATTERN.fullmatch(repo):
            raise ValueError(f"{quoted(repo)} is not a repository; use owner/name")
    return value


# A channel's author and path filters are globs a person types (the config file, the settings
# form): every pattern is matched against every changed file of every merged PR, so a list is
# held to what a person means, and each pattern to the glob limits (core/strings/globs.py).
MAX_GLOBS = 50
GLOB_RULES = {
    "empty": "an empty pattern matches nothing",
    "long": f"a pattern holds at most {MAX_GLOB_CHARS} characters",
    "wildcards": f"a pattern holds at most {MAX_GLOB_WILDCARDS} wildcards (* or ?)",
    "space": "a pattern holds no control characters",
}


def _check_globs(value: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
    if (info.context or {}).get("saved"):
        # Saved from Slack before these limits: kept as saved (the matcher is linear whatever
        # they hold), so that nobody's channel loses its settings; the next edit must pass them.
        return value
    if len(value) > MAX_GLOBS:
        raise ValueError(f"list at most {MAX_GLOBS} patterns, not {len(value)}")
    found = first_problem(value, "filter")
    if found is not None:
        problem, shown = found
        raise ValueError(f"{quoted(shown)}: {GLOB_RULES[problem]}")
    return value


class SlackConfig(_Strict):
    command: str = "/pr"
    # Unfurl pasted links to followed PRs with their card (unfurls/unfurling.py); off: Slack may prefer
    # GitHub's own app for github.com.
    unfurl: bool = Field(default=False, strict=True)
    # Who may change a channel's subscriptions from Slack: these user ids; empty = its members.
    editors: tuple[str, ...] = ()
    # Whether Slack may override the channels of this file (kept in Redis, shown as from Slack).
    allow_channel_edits: bool = Field(default=False, strict=True)
    # Private repositories a channel may follow from Slack (the GitHub token is the operator's).
    followable_private_repos: tuple[str, ...] = ()
    # OAuth mode: the workspace the [[channels]] are in (its data keeps the keys of the
    # single-workspace install, so switching modes posts nothing twice).
    home_team: str | None = None
    # OAuth mode, each installed workspace but the home one (which keeps [defaults]
    # daily_token_budget): its model tokens per UTC day (0: no cap), the distinct repositories its
    # channels may follow from Slack, and the channels it may set up (spending/budgets.py,
    # channels/subscriptions.py).
    workspace_daily_token_budget: int = Field(default=200_000, ge=0, le=10_000_000_000, strict=True)
    workspace_max_repos: int = Field(default=20, ge=1, le=10_000, strict=True)
    workspace_max_channels: int = Field(default=50, ge=1, le=10_000, strict=True)

    @field_validator("editors")
    @classmethod
    def _editors(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for user in value:
            if not re.fullmatch(r"[UW][A-Z0-9]{2,}", user):
                raise ValueError(f"{quoted(user)} is not a Slack user id (it looks like U0123456789)")
        return value

    _followable = field_validator("followable_private_repos")(_check_repos)

    @field_validator("home_team")
    @classmethod
    def _team(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"[TE][A-Z0-9]{2,31}", value):
            raise ValueError(f"{quoted(value)} is not a Slack team id (it looks like T0123456789)")
        return value

    @field_validator("command")
    @classmethod
    def _slash(cls, value: str) -> str:
        if not re.fullmatch(r"/[a-z0-9_-]{1,31}", value):
            raise ValueError(f"{quoted(value)} is not a slash command; use a slash and lower-case letters such as /pr")
        return value


def is_channel_id(value: str) -> bool:
    """A Slack channel id as conversations.* return them: C (public), G (private), D (a DM), then
    upper-case letters and digits (C0123456789)."""
    return re.fullmatch(r"[CGD][A-Z0-9]{6,}", value) is not None


class ChannelConfig(_Strict):
    id: str
    repos: tuple[str, ...] = Field(min_length=1)
    language: Language | None = None
    timezone: TimeZone | None = None
    post_at: TimeOfDay | None = None
    window: Duration | None = None
    quiet_days: QuietDays | None = None
    exclude_authors: tuple[str, ...] = ()
    labels_include: tuple[str, ...] = ()
    labels_exclude: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()
    cadence: Cadence | None = None  # daily | weekly | both (default daily)
    weekly_on: Weekday | None = None  # the weekly roll-up's day, at post_at (default Mon)
    releases: ReleasesMode | None = None  # off | post: each new release of its repositories

    @field_validator("id")
    @classmethod
    def _channel_id(cls, value: str) -> str:
        if not is_channel_id(value):
            raise ValueError(f"{quoted(value)} is not a Slack channel id (it looks like C0123456789)")
        return value

    _repos = field_validator("repos")(_check_repos)
    _globs = field_validator("exclude_authors", "paths")(_check_globs)


# A card's instructions alone take about 650 estimated tokens: a window must leave a prompt at
# least this much besides the answer's room. The largest windows served today are a few million.
MIN_PROMPT_TOKENS = 1000
MAX_CONTEXT_WINDOW = 10_000_000


class ModelConfig(_Strict):
    """What one model needs said about it ([models."NAME"]); every key optional.

    mode pins the output mode (no other is tried); context_window bounds every prompt;
    max_output_tokens caps each answer and is the room a prompt leaves for it; temperature and
    seed make a small local model's cards repeatable; system_role false folds the instructions
    into the first user message, for chat templates that drop system messages (Gemma's);
    input_per_million and output_per_million are prices, for cost estimates.
    """

    mode: OutputMode | None = None
    # Strict: a number in quotes or true is a typo here, not a number.
    context_window: int | None = Field(default=None, ge=MIN_PROMPT_TOKENS, le=MAX_CONTEXT_WINDOW, strict=True)
    max_output_tokens: int | None = Field(default=None, ge=1, le=MAX_CONTEXT_WINDOW, strict=True)
    temperature: float | None = Field(default=None, ge=0.0, le=2.0, strict=True)
    seed: int | None = Field(default=None, strict=True)
    system_role: bool = Field(default=True, strict=True)
    input_per_million: float | None = Field(default=None, ge=0.0)
    output_per_million: float | None = Field(default=None, ge=0.0)

    @property
    def price(self) -> Price | None:
        """Both prices, or None: a cost is estimated only when the table gives both."""
        if self.input_per_million is None or self.output_per_million is None:
            return None
        return Price(self.input_per_million, self.output_per_million)

    @model_validator(mode="after")
    def _answer_fits(self) -> ModelConfig:
        window, answer = self.context_window, self.max_output_tokens
        if window is not None and answer is not None and window - answer < MIN_PROMPT_TOKENS:
            raise ValueError(
                f"max_output_tokens {answer} leaves less than {MIN_PROMPT_TOKENS} tokens of "
                f"context_window {window} for the prompt"
            )
        return self


# Redis key names: letters, digits and a few separators, so the queue's keys are easy to list.
_NAMESPACE = r"^[A-Za-z0-9_.:-]{1,64}$"


class QueueConfig(_Strict):
    """Card jobs shared by every replica (queue/broker.py): where their keys live, how often each
    followed repository is polled for merged PRs, how many cards a worker makes at once."""

    namespace: str = Field(default="prdigest:jobs", pattern=_NAMESPACE)
    poll_minutes: int = Field(default=15, ge=0, le=1440)  # 0: no poller (webhook or digests only)
    worker_threads: int = Field(default=4, ge=1, le=64)


class FileConfig(_Strict):
    defaults: Defaults = Defaults()
    slack: SlackConfig = SlackConfig()
    queue: QueueConfig = QueueConfig()
    channels: tuple[ChannelConfig, ...] = ()
    models: dict[str, ModelConfig] = {}
