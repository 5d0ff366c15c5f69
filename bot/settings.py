"""Settings from the environment and config/prdigest.toml, read once.

The only module that reads os.environ and the config file. Unknown keys and bad values are errors
that name the key and the file, so a typo in the config never silently falls back to a default.
Values are parsed once, into their types (ZoneInfo, time, timedelta), by the file's schema
(core/config.py) and the parsers (core/strings/parsing.py): nothing downstream re-reads text.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import ValidationError

from bot.core.config import ChannelConfig, Defaults, FileConfig, ModelConfig, QueueConfig, SlackConfig
from bot.core.strings.parsing import duration_text, parse_duration
from bot.errors import ConfigError, one_line, quoted

# The file's tables and the duration parsers, for code that holds a Settings (their home is core/).
__all__ = [
    "DEFAULT_BOT_SCOPES",
    "DEFAULT_CONFIG_PATH",
    "DEFAULT_GITHUB_API_URL",
    "DEFAULT_OPENAI_URL",
    "DEFAULT_SLACK_API_URL",
    "ChannelConfig",
    "Defaults",
    "FileConfig",
    "GitHubApp",
    "ModelConfig",
    "QueueConfig",
    "Settings",
    "SlackConfig",
    "SlackOAuth",
    "duration_text",
    "load_file_config",
    "load_settings",
    "parse_duration",
]

DEFAULT_CONFIG_PATH = "config/prdigest.toml"
DEFAULT_GITHUB_API_URL = "https://api.github.com"
DEFAULT_SLACK_API_URL = "https://slack.com/api/"
DEFAULT_OPENAI_URL = "https://api.openai.com/v1"  # when OPENAI_BASE_URL is not set
CACHE_FILE = Path("prdigest") / "cache.sqlite3"  # under the user's cache directory
CACHE_OFF = "off"  # PRDIGEST_CACHE=off: memory only


@dataclass(frozen=True)
class SlackOAuth:
    """What Bolt's OAuth flow needs, under the names Bolt reads (SLACK_CLIENT_ID…), and our key."""

    client_id: str
    client_secret: str = field(repr=False)
    scopes: tuple[str, ...]
    redirect_uri: str | None  # SLACK_REDIRECT_URI: only when the app lists several redirect URLs
    secret_key: str = field(repr=False)  # PRDIGEST_SECRET_KEY: a Fernet key, checked at load


@dataclass(frozen=True)
class GitHubApp:
    """A GitHub App prdigest reads as (GITHUB_APP_ID and its private key): each repository through
    the token of the installation that holds it."""

    app_id: int
    private_key: str = field(repr=False)  # the PEM text, its armour checked at load
    key_from: str  # the variable the key was read from, for messages (never the key itself)


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
    # GITHUB_APP_ID and its key: installation tokens instead of GITHUB_TOKEN where it is installed.
    github_app: GitHubApp | None = None
    # Without REDIS_URL, the store's SQLite file (None: memory only), and whether PRDIGEST_CACHE
    # named it (a file asked for by name must open; the default one may fall back to memory).
    cache: Path | None = None
    cache_named: bool = False
    # QUEUE_URL: the card queue's Redis when REDIS_URL is a cluster, or to keep jobs apart (None:
    # REDIS_URL's, unless that is a cluster: then no queue, cards made in each process).
    queue_url: str | None = None

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


def _check_redis_url(url: str | None, name: str = "REDIS_URL") -> str | None:
    """REDIS_URL, checked as redis-py will read it, so a typo is one line at start and not a
    traceback from deep in the first Redis call. The messages never repeat the URL: it may hold
    a password."""
    if url is None:
        return None
    if not url.startswith(REDIS_SCHEMES):
        raise ConfigError(
            f"{name} is not a Redis URL: start it with redis://, rediss:// (TLS) or unix://, "
            "as in redis://localhost:6379/0"
        )
    try:
        parts = urlsplit(url)
    except ValueError:  # an unclosed [ of an IPv6 address
        raise ConfigError(
            f"{name} has a host that cannot be read: an IPv6 address goes in [], as in redis://[::1]:6379"
        ) from None
    try:
        _ = parts.port  # read for its check: a port that is no number, or above 65535
    except ValueError:
        raise ConfigError(f"{name} has a port that is not a number from 1 to 65535") from None
    if parts.scheme == "unix" and not parts.path:
        raise ConfigError(f"{name} names no socket: use unix:// and the socket's path, as in unix:///run/redis.sock")
    return url


def _check_queue_url(url: str | None) -> str | None:
    """QUEUE_URL: the card queue's broker, a single Redis (Dramatiq's Redis broker needs one node)
    or RabbitMQ (amqp://, amqps://), checked as pika will read it."""
    if url is None or not url.startswith(("amqp://", "amqps://")):
        return _check_redis_url(url, "QUEUE_URL")
    try:
        parts = urlsplit(url)
        _ = parts.port  # read for its check
    except ValueError:
        raise ConfigError(
            "QUEUE_URL has a host or port that cannot be read, as in amqp://USER:PASSWORD@HOST:5672/"
        ) from None
    if not parts.hostname:
        raise ConfigError("QUEUE_URL names no RabbitMQ host, as in amqp://USER:PASSWORD@HOST:5672/")
    return url


def _check_github_api_url(url: str) -> str:
    """GITHUB_API_URL, checked as PyGithub will read it (an http(s) URL with a host), so a typo is
    one line at start and not a traceback from inside the client. Never repeated: it may hold a
    password (a proxy's)."""
    example = f"use {DEFAULT_GITHUB_API_URL}, or https://HOST/api/v3 for GitHub Enterprise"
    try:
        parts = urlsplit(url)
        _ = parts.port  # read for its check: a port that is no number, or above 65535
    except ValueError:
        raise ConfigError(f"GITHUB_API_URL has a host or port that cannot be read; {example}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"GITHUB_API_URL is not an http(s) URL with a host; {example}")
    return url.rstrip("/")


APP_KEY, APP_KEY_FILE = "GITHUB_APP_PRIVATE_KEY", "GITHUB_APP_PRIVATE_KEY_FILE"
# The armour of an unencrypted RSA private key: PKCS#1 (what GitHub's .pem download holds) or
# PKCS#8 (`openssl pkcs8 -topk8 -nocrypt`). What is inside is read when the key is first used
# (sources/github_app.py): this keeps a wrong file or a pasted certificate from going that far.
_PEM_KEY = re.compile(
    r"-----BEGIN (RSA |)PRIVATE KEY-----\s*(?P<body>[A-Za-z0-9+/=\s]+?)\s*-----END \1PRIVATE KEY-----\s*"
)


def _github_app(env: Mapping[str, str]) -> GitHubApp | None:
    """GITHUB_APP_ID and its key, when either is set; each mistake one line that names the
    variable and never shows the key."""
    app_id = _blank_to_none(env.get("GITHUB_APP_ID"))
    text = _blank_to_none(env.get("GITHUB_APP_PRIVATE_KEY"))
    path = _blank_to_none(env.get("GITHUB_APP_PRIVATE_KEY_FILE"))
    if app_id is None and text is None and path is None:
        return None
    named = APP_KEY if text is not None else APP_KEY_FILE
    if app_id is None:
        raise ConfigError(f"{named} is set but not GITHUB_APP_ID: set the App's ID (its settings page, About)")
    if not app_id.strip().isdecimal() or int(app_id) <= 0:
        raise ConfigError("GITHUB_APP_ID is not a number: use the App ID from the App's settings page (About)")
    if text is not None and path is not None:
        raise ConfigError(f"{APP_KEY} and {APP_KEY_FILE} are both set: keep one (the key's text, or its file)")
    if text is None and path is None:
        raise ConfigError(f"GITHUB_APP_ID is set but not its key: set {APP_KEY_FILE} (the .pem file) or {APP_KEY}")
    if path is not None:
        try:
            text = Path(path).expanduser().read_text(encoding="ascii")
        except OSError as exc:
            raise ConfigError(f"{APP_KEY_FILE} '{one_line(path)}' cannot be read ({exc.strerror})") from None
        except UnicodeDecodeError:
            text = ""  # not PEM text: said below
    assert text is not None
    # A key pasted into one line of an env file keeps its line breaks as the two characters \n.
    key = text.replace("\\n", "\n").strip() + "\n"
    if not _is_pem_key(key):
        raise ConfigError(
            f"{named} is not an RSA private key in PEM form "
            "(the .pem file GitHub generates, from -----BEGIN RSA PRIVATE KEY----- to its END line)"
        )
    return GitHubApp(int(app_id), key, named)


def _is_pem_key(text: str) -> bool:
    found = _PEM_KEY.fullmatch(text)
    if found is None:
        return False
    try:
        base64.b64decode("".join(found.group("body").split()), validate=True)
    except binascii.Error:
        return False
    return True


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


def _cache(env: Mapping[str, str]) -> tuple[Path | None, bool]:
    """The embedded store's file and whether PRDIGEST_CACHE named it: that file, none for `off`,
    else $XDG_CACHE_HOME/prdigest/cache.sqlite3, else ~/.cache/prdigest/cache.sqlite3 (the XDG Base
    Directory spec: a relative XDG_CACHE_HOME is invalid and ignored). None without either, as in an
    environment handed in whole (the tests', the benchmark's): memory then."""
    named = env.get("PRDIGEST_CACHE", "").strip()
    if named.lower() == CACHE_OFF:
        return None, True
    if named:
        return Path(named).expanduser(), True
    xdg = env.get("XDG_CACHE_HOME", "")
    if xdg and Path(xdg).is_absolute():
        return Path(xdg) / CACHE_FILE, False
    home = env.get("HOME")
    return (Path(home) / ".cache" / CACHE_FILE if home else None), False


def load_settings(environ: Mapping[str, str] | None = None) -> Settings:
    env = os.environ if environ is None else environ
    explicit = _blank_to_none(env.get("PRDIGEST_CONFIG"))
    path = explicit or DEFAULT_CONFIG_PATH
    if explicit or Path(path).is_file():
        config, config_path = load_file_config(path), path
    else:
        config, config_path = FileConfig(), None
    cache, cache_named = _cache(env)
    if env.get("QUEUE_URL") and not env.get("REDIS_URL"):
        raise ConfigError(
            "QUEUE_URL is set without REDIS_URL: card workers keep the cards they make in REDIS_URL's Redis"
        )
    return Settings(
        config=config,
        config_path=config_path,
        github_token=_blank_to_none(env.get("GITHUB_TOKEN")),
        github_api_url=_check_github_api_url(env.get("GITHUB_API_URL") or DEFAULT_GITHUB_API_URL),
        openai_api_key=_blank_to_none(env.get("OPENAI_API_KEY")),
        openai_base_url=_blank_to_none(env.get("OPENAI_BASE_URL")),
        model=env.get("PRDIGEST_MODEL") or config.defaults.model,
        slack_bot_token=_blank_to_none(env.get("SLACK_BOT_TOKEN")),
        slack_signing_secret=_blank_to_none(env.get("SLACK_SIGNING_SECRET")),
        slack_app_token=_blank_to_none(env.get("SLACK_APP_TOKEN")),
        slack_api_url=env.get("SLACK_API_URL") or DEFAULT_SLACK_API_URL,
        redis_url=_check_redis_url(_blank_to_none(env.get("REDIS_URL"))),
        queue_url=_check_queue_url(_blank_to_none(env.get("QUEUE_URL"))),
        no_color="NO_COLOR" in env,
        slack_oauth=_oauth(env, config),
        github_webhook_secret=_blank_to_none(env.get("GITHUB_WEBHOOK_SECRET")),
        github_app=_github_app(env),
        cache=cache,
        cache_named=cache_named,
    )
