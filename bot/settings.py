"""Settings from the environment and config/prdigest.toml, read once.

The only module that reads os.environ. Unknown keys and bad values are errors that name the
key and the file, so a typo in the config never silently falls back to a default. Values are
parsed here, once, into their types (ZoneInfo, time, timedelta): nothing downstream re-reads text.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import time, timedelta
from pathlib import Path
from typing import Annotated, TypeVar
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from bot.core.globs import MAX_GLOB_CHARS, MAX_GLOB_WILDCARDS, glob_problem
from bot.core.usage import Price
from bot.errors import ConfigError, one_line, quoted
from bot.models import Language, OutputMode, QuietDays, SkipClass

DEFAULT_CONFIG_PATH = "config/prdigest.toml"
DEFAULT_GITHUB_API_URL = "https://api.github.com"
DEFAULT_SLACK_API_URL = "https://slack.com/api/"
DEFAULT_OPENAI_URL = "https://api.openai.com/v1"  # when OPENAI_BASE_URL is not set
REPO_PATTERN = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")  # for fullmatch: `$` allows a final newline
DURATION_PATTERN = re.compile(r"([0-9]{1,9})([mhd])")
TIME_OF_DAY_PATTERN = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9])")
# A digest looks back a year at most: longer spans are typos (365d for 36.5d), and a few
# thousand years would overflow datetime (OverflowError, not a message).
MAX_DURATION = timedelta(days=365)


def parse_duration(text: str) -> timedelta:
    """'90m', '24h', '7d' -> timedelta. Raises ValueError with a message a person can act on."""
    match = DURATION_PATTERN.fullmatch(text.strip())
    if not match or int(match.group(1)) == 0:
        raise ValueError(f"{quoted(text)} is not a duration; use minutes, hours or days such as 90m, 24h or 7d")
    amount, unit = int(match.group(1)), match.group(2)
    span = {"m": timedelta(minutes=amount), "h": timedelta(hours=amount), "d": timedelta(days=amount)}[unit]
    if span > MAX_DURATION:
        raise ValueError(f"{quoted(text)} is longer than a year; use at most 365d")
    return span


def duration_text(span: timedelta) -> str:
    """A duration as the config spells one ('24h', '7d', '90m'): parse_duration reads it back."""
    minutes = int(span.total_seconds()) // 60
    if minutes % (24 * 60) == 0 and minutes > 24 * 60:
        return f"{minutes // (24 * 60)}d"
    if minutes % 60 == 0:
        return f"{minutes // 60}h"
    return f"{minutes}m"


def parse_time_of_day(text: str) -> time:
    """'09:30' -> time(9, 30): HH:MM in ASCII digits. Raises ValueError like parse_duration."""
    match = TIME_OF_DAY_PATTERN.fullmatch(text)
    if not match:
        raise ValueError(f"{quoted(text)} is not a time of day; use HH:MM such as 09:30")
    return time(int(match.group(1)), int(match.group(2)))


def parse_timezone(text: str) -> ZoneInfo:
    """An IANA name such as 'Asia/Shanghai' -> ZoneInfo. Raises ValueError like parse_duration."""
    try:
        return ZoneInfo(text)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        # OSError: ZoneInfo opens the name as a file, so "America" is IsADirectoryError and a
        # 300-character name is "File name too long".
        raise ValueError(f"unknown time zone {quoted(text)} (use an IANA name such as Europe/Paris)") from None


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


# How long a card's follow-ups wait for a later PR to answer them (services/followups.py); a year at
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
    # PR classes whose card comes from metadata, no model call (core/skipping.py).
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
# held to what a person means, and each pattern to the glob limits (core/globs.py).
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
    for pattern in value:
        problem = glob_problem(pattern, "filter")
        if problem is not None:
            shown = pattern if len(pattern) <= 40 else pattern[:40] + "…"
            raise ValueError(f"{quoted(shown)}: {GLOB_RULES[problem]}")
    return value


class SlackConfig(_Strict):
    command: str = "/pr"
    # Unfurl pasted links to followed PRs with their card (slack/unfurls.py); off: Slack may prefer
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
    # channels may follow from Slack, and the channels it may set up (services/spending.py,
    # services/subscriptions.py).
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

    @field_validator("id")
    @classmethod
    def _channel_id(cls, value: str) -> str:
        if not re.fullmatch(r"[CGD][A-Z0-9]{6,}", value):
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


@dataclass(frozen=True)
class SlackOAuth:
    """What Bolt's OAuth flow needs, under the names Bolt reads (SLACK_CLIENT_ID…), and our key."""

    client_id: str
    client_secret: str = field(repr=False)
    scopes: tuple[str, ...]
    redirect_uri: str | None  # SLACK_REDIRECT_URI: only when the app lists several redirect URLs
    secret_key: str = field(repr=False)  # PRDIGEST_SECRET_KEY: a Fernet key, checked at load


@dataclass(frozen=True)
class Settings:
    config: FileConfig
    config_path: str | None  # None: no file, built-in defaults
    github_token: str | None
    github_api_url: str
    openai_api_key: str | None
    openai_base_url: str | None
    model: str
    slack_bot_token: str | None
    slack_signing_secret: str | None
    slack_app_token: str | None
    slack_api_url: str
    redis_url: str | None
    no_color: bool = False  # NO_COLOR (no-color.org): plain text even on a terminal
    # Installed in any workspace through OAuth (SLACK_CLIENT_ID…); None: one SLACK_BOT_TOKEN.
    slack_oauth: SlackOAuth | None = None
    # GITHUB_WEBHOOK_SECRET: verifies POST /github/webhook (None: the endpoint is off).
    github_webhook_secret: str | None = field(default=None, repr=False)

    @property
    def oauth(self) -> bool:
        return self.slack_oauth is not None

    @property
    def home_team(self) -> str | None:
        """The workspace of the config file's channels in OAuth mode (None: single workspace)."""
        return self.config.slack.home_team if self.oauth else None

    @property
    def defaults(self) -> Defaults:
        return self.config.defaults

    @property
    def model_options(self) -> ModelConfig:
        """The config's [models."NAME"] table of the model in use (PRDIGEST_MODEL's, if set)."""
        return self.config.models.get(self.model, ModelConfig())


def _describe(error: ValidationError, path: str) -> str:
    first = error.errors()[0]
    # channels[0].repos; built part by part, as a key from the file may itself hold ".[".
    key = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"]).removeprefix(".")
    if first["type"] == "extra_forbidden":
        return f"{path}: unknown key {quoted(key)}"  # the key is the file's, so it may hold anything
    message = first["msg"].removeprefix("Value error, ")
    return f"{path}: {one_line(key)}: {message}"  # a model's name in [models."…"] may hold anything


def load_file_config(path: str) -> FileConfig:
    try:
        raw = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file (PRDIGEST_CONFIG names it)") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot be read ({exc.strerror})") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML (not UTF-8 text: byte {exc.start})") from None
    try:
        data = tomllib.loads(raw)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:
        # tomllib parses nested arrays and inline tables recursively: a thousand `[` exhaust the stack.
        raise ConfigError(f"{path}: not valid TOML (nested too deeply)") from None
    try:
        return FileConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_describe(exc, path)) from None


def _blank_to_none(value: str | None) -> str | None:
    return value if value else None


# The schemes redis-py's from_url accepts, spelled as it checks them (lower case).
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")


def _check_redis_url(url: str | None) -> str | None:
    """REDIS_URL, checked as redis-py will read it, so a typo is one line at start and not a
    traceback from deep in the first Redis call. The messages never repeat the URL: it may hold
    a password."""
    if url is None:
        return None
    if not url.startswith(REDIS_SCHEMES):
        raise ConfigError(
            "REDIS_URL is not a Redis URL: start it with redis://, rediss:// (TLS) or unix://, "
            "as in redis://localhost:6379/0"
        )
    try:
        parts = urlsplit(url)
    except ValueError:  # an unclosed [ of an IPv6 address
        raise ConfigError(
            "REDIS_URL has a host that cannot be read: an IPv6 address goes in [], as in redis://[::1]:6379"
        ) from None
    try:
        _ = parts.port  # read for its check: a port that is no number, or above 65535
    except ValueError:
        raise ConfigError("REDIS_URL has a port that is not a number from 1 to 65535") from None
    if parts.scheme == "unix" and not parts.path:
        raise ConfigError("REDIS_URL names no socket: use unix:// and the socket's path, as in unix:///run/redis.sock")
    return url


# What the app asks for when SLACK_SCOPES is not set: the bot scopes of config/manifest.yml
# (a test keeps the two the same).
DEFAULT_BOT_SCOPES = (
    "chat:write",
    "commands",
    "app_mentions:read",
    "channels:history",
    "groups:history",
    "channels:read",
    "groups:read",
    "users:read",
    "im:write",
    "im:history",
    "assistant:write",
    "links:read",
    "links:write",
)
# A Fernet key is 32 bytes in URL-safe base64 (cryptography's Fernet.generate_key()).
SECRET_KEY_BYTES = 32
MAKE_KEY = 'python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"'


def _scopes(text: str | None) -> tuple[str, ...]:
    """SLACK_SCOPES as Bolt reads it: names separated by commas."""
    if text is None:
        return DEFAULT_BOT_SCOPES
    scopes = tuple(scope.strip() for scope in text.split(",") if scope.strip())
    for scope in scopes:
        if not re.fullmatch(r"[a-z0-9_.:-]{1,100}", scope):
            raise ConfigError(f"SLACK_SCOPES: {quoted(scope)} is not a scope name (such as chat:write)")
    if not scopes:
        raise ConfigError("SLACK_SCOPES is empty: leave it unset for the app's own scopes, or list them with commas")
    return scopes


def _check_secret_key(key: str | None) -> str:
    """PRDIGEST_SECRET_KEY, checked without the key ever appearing in a message."""
    if key is None:
        raise ConfigError(
            "PRDIGEST_SECRET_KEY is not set: OAuth mode keeps each workspace's tokens encrypted with it; "
            f"make one with {MAKE_KEY}"
        )
    try:
        raw = base64.urlsafe_b64decode(key.encode("ascii"))
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raw = b""
    if len(raw) != SECRET_KEY_BYTES:
        raise ConfigError(
            f"PRDIGEST_SECRET_KEY is not a Fernet key (32 bytes in URL-safe base64); make one with {MAKE_KEY}"
        )
    return key


def _oauth(env: Mapping[str, str], config: FileConfig) -> SlackOAuth | None:
    """The OAuth settings, when SLACK_CLIENT_ID or SLACK_CLIENT_SECRET is set; each mistake one line."""
    client_id = _blank_to_none(env.get("SLACK_CLIENT_ID"))
    client_secret = _blank_to_none(env.get("SLACK_CLIENT_SECRET"))
    if client_id is None and client_secret is None:
        return None
    if client_id is None or client_secret is None:
        missing = "SLACK_CLIENT_ID" if client_id is None else "SLACK_CLIENT_SECRET"
        raise ConfigError(f"{missing} is not set: OAuth mode needs both SLACK_CLIENT_ID and SLACK_CLIENT_SECRET")
    if _blank_to_none(env.get("SLACK_BOT_TOKEN")):
        raise ConfigError(
            "SLACK_BOT_TOKEN and SLACK_CLIENT_ID are both set: unset SLACK_BOT_TOKEN for OAuth mode "
            "(each workspace's token comes from its installation), or the client id and secret for one workspace"
        )
    if config.channels and config.slack.home_team is None:
        raise ConfigError(
            'the config file lists channels but not their workspace: OAuth mode needs [slack] home_team = "T…"'
        )
    return SlackOAuth(
        client_id=client_id,
        client_secret=client_secret,
        scopes=_scopes(_blank_to_none(env.get("SLACK_SCOPES"))),
        redirect_uri=_blank_to_none(env.get("SLACK_REDIRECT_URI")),
        secret_key=_check_secret_key(_blank_to_none(env.get("PRDIGEST_SECRET_KEY"))),
    )


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if environ is None else environ
    explicit = _blank_to_none(env.get("PRDIGEST_CONFIG"))
    path = explicit or DEFAULT_CONFIG_PATH
    if explicit or Path(path).is_file():
        config, config_path = load_file_config(path), path
    else:
        config, config_path = FileConfig(), None
    return Settings(
        config=config,
        config_path=config_path,
        github_token=_blank_to_none(env.get("GITHUB_TOKEN")),
        github_api_url=(env.get("GITHUB_API_URL") or DEFAULT_GITHUB_API_URL).rstrip("/"),
        openai_api_key=_blank_to_none(env.get("OPENAI_API_KEY")),
        openai_base_url=_blank_to_none(env.get("OPENAI_BASE_URL")),
        model=env.get("PRDIGEST_MODEL") or config.defaults.model,
        slack_bot_token=_blank_to_none(env.get("SLACK_BOT_TOKEN")),
        slack_signing_secret=_blank_to_none(env.get("SLACK_SIGNING_SECRET")),
        slack_app_token=_blank_to_none(env.get("SLACK_APP_TOKEN")),
        slack_api_url=env.get("SLACK_API_URL") or DEFAULT_SLACK_API_URL,
        redis_url=_check_redis_url(_blank_to_none(env.get("REDIS_URL"))),
        no_color="NO_COLOR" in env,
        slack_oauth=_oauth(env, config),
        github_webhook_secret=_blank_to_none(env.get("GITHUB_WEBHOOK_SECRET")),
    )
