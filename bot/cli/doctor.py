"""`prdigest doctor`: one line per dependency, what works and what to fix. Secrets masked:
keys and tokens by `mask`, and every URL printed through `redact_url`, since service URLs
carry passwords too (REDIS_URL, a proxy in OPENAI_BASE_URL).

Exit status 0 when nothing failed; warnings (an optional part not configured) do not fail.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from http import HTTPStatus
from typing import TYPE_CHECKING

from bot.errors import StoreError
from bot.models import OUTPUT_MODES
from bot.ops.redact import redact_url
from bot.settings import Settings

if TYPE_CHECKING:
    from bot.llm.lazy import ModelOnFirstUse
    from bot.ports.slack import SlackPort
    from bot.wiring.process import Process
    from bot.wiring.slack import SlackWiring

OK, WARN, FAIL = "ok", "warn", "FAIL"
# The test card the output modes are probed with: small, so a local model answers in seconds.
PROBE_PR = (
    "Repository: acme/widgets\nPR: #1\nTitle: Fix a typo in README.md\n\n## Files\n### README.md (modified, +1 -1)"
)
PING_SECONDS = 10.0
# A small local model writes the test card in seconds; a large one on a CPU may take this long.
PROBE_SECONDS = 60.0
Check = tuple[str, str, str]  # status, name, detail
# Libraries log their own failures, and those messages may quote a URL's credentials
# (http.client under slack_sdk: "nonnumeric port: 'password@host'"). Each check already reports
# its failure on its own line, naming only the exception's type, so they are silent meanwhile.
LIBRARY_LOGGERS = ("slack_sdk", "github", "urllib3", "requests", "openai", "httpx2", "httpcore2", "redis")


def mask(secret: str | None) -> str:
    if not secret:
        return "not set"
    return f"set ({secret[:4]}…, {len(secret)} characters)"


def _config(settings: Settings) -> Check:
    where = settings.config_path or "built-in defaults (no config file)"
    channels = len(settings.config.channels)
    return OK, "config", f"{where}; {channels} channel(s); model {settings.model}"


def _redis(settings: Settings) -> Check:
    if not settings.redis_url:
        return _cache_file(settings)
    where = redact_url(settings.redis_url)
    from bot.store.backends.connect import redis_kv

    kv = redis_kv(settings.redis_url)
    answering = kv.ping()
    clustered = kv.clustered
    kv.close()
    if answering and clustered:
        queue = (
            f"card queue at {redact_url(settings.queue_url)}"
            if settings.queue_url
            else "no QUEUE_URL: cards made in each process"
        )
        return OK, "redis", f"{where} answering, a Redis Cluster; {queue}"
    if answering:
        return OK, "redis", f"{where} answering"
    return FAIL, "redis", f"no answer at {where} (REDIS_URL); is redis-server running?"


def _cache_file(settings: Settings) -> Check:
    """Without REDIS_URL: the SQLite file the store is kept in (wiring/store.py), opened to see,
    with its modes while it is open (its -wal and -shm exist only then)."""
    if settings.cache is None:
        return WARN, "store", "REDIS_URL not set and PRDIGEST_CACHE=off: in memory, nothing kept between runs"
    from bot.errors import ConfigError
    from bot.store.backends.private_file import modes
    from bot.store.backends.sqlite_kv import SqliteKV

    try:
        kv = SqliteKV.open(settings.cache, own_directory=not settings.cache_named)
    except ConfigError as exc:
        return FAIL, "store", str(exc)
    try:
        kv.exists("doctor")  # a read: SQLite makes the -wal and -shm at the first one
        shown = modes(settings.cache)
    finally:
        kv.close()
    return OK, "store", f"{settings.cache} (REDIS_URL not set: one host only; several replicas need Redis); {shown}"


def _github(settings: Settings) -> list[Check]:
    """GITHUB_TOKEN's (or anonymous) access, unless a GitHub App alone reads; the App's."""
    checks: list[Check] = []
    if settings.github_app is None or settings.github_token:
        checks.append(_github_token(replace(settings, github_app=None)))
    if settings.github_app is not None:
        checks.append(_github_app(settings))
    return checks


def _github_app(settings: Settings) -> Check:
    """Whether GitHub takes the App's key (GET /app, GET /app/installations), and where it is installed."""
    from bot.errors import ConfigError, SourceError
    from bot.sources.github_app_source import AppSource
    from bot.wiring.process import github_source
    from bot.wiring.timing import Timing

    app = settings.github_app
    assert app is not None
    where = redact_url(settings.github_api_url)
    try:
        source = github_source(settings, Timing(), retries=0, rate_limit_wait=0)
    except ConfigError as exc:  # a key that does not read as one
        return FAIL, "github", str(exc)
    assert isinstance(source, AppSource)
    try:
        name, accounts = source.installed_on()
    except SourceError as exc:
        return FAIL, "github", f"{where}: {exc}"
    finally:
        source.close()
    about = f"{where}, GitHub App {app.app_id} ({name}, key from {app.key_from})"
    if not accounts:
        return WARN, "github", f"{about}: installed nowhere yet; install it where the repositories are"
    return OK, "github", f"{about}: installed on {len(accounts)} account(s): {', '.join(sorted(accounts))}"


def _github_token(settings: Settings) -> Check:
    from bot.errors import NotFound, RateLimited, SourceNotAPI, SourceRefused, SourceUnreachable
    from bot.sources.github import GitHubSource
    from bot.wiring.process import github_source
    from bot.wiring.timing import Timing

    where = redact_url(settings.github_api_url)
    source = github_source(settings, Timing(), retries=0, rate_limit_wait=0)
    assert isinstance(source, GitHubSource)  # no App in these settings
    try:
        remaining, limit = source.rate_limit()
    except SourceUnreachable as exc:  # no answer at all
        return FAIL, "github", f"cannot reach {where} ({exc.kind})"
    except SourceNotAPI as exc:  # an answer, but a web page
        return (
            FAIL,
            "github",
            f"{where} answered with a web page, not GitHub's API; for GitHub Enterprise use {exc.suggested}",
        )
    except (SourceRefused, NotFound) as exc:
        status = exc.status if isinstance(exc, SourceRefused) else 404
        return FAIL, "github", f"{where} answered {status}; check GITHUB_TOKEN"
    except RateLimited as exc:
        return FAIL, "github", f"{where}: {exc}"
    except Exception as exc:  # anything else is a failed check too, not a crash; the request was answered
        suggested = SourceNotAPI.at(settings.github_api_url).suggested
        return (
            FAIL,
            "github",
            f"{where} answered, but not as GitHub's API does ({type(exc).__name__}); "
            f"for GitHub Enterprise use {suggested}",
        )
    finally:
        source.close()
    who = "token " + mask(settings.github_token) if settings.github_token else "anonymous (60 requests an hour)"
    if remaining <= 0:  # every request until the reset would be refused: a digest now is titles only
        return FAIL, "github", f"{where}, {who}, rate limit spent: 0/{limit} requests left until the hour resets"
    return OK, "github", f"{where}, {who}, {remaining}/{limit} requests left"


def _model(settings: Settings) -> Check:
    if not settings.openai_api_key:
        return WARN, "model", "OPENAI_API_KEY not set: cards come from metadata (heuristic)"
    from bot.errors import ModelRejected, SummarizerError
    from bot.wiring.process import build_process
    from bot.wiring.timing import Timing

    built = build_process(settings, Timing(model_timeout=PING_SECONDS), warn=lambda message: None)
    model = built.model
    assert model is not None  # OPENAI_API_KEY is set
    where = redact_url(settings.openai_base_url) if settings.openai_base_url else "api.openai.com"
    answering = f"{where} answering; model {settings.model}; key {mask(settings.openai_api_key)}"
    try:
        model.ping()
        status, mode = _output_mode(settings, built, model)
    except ModelRejected as exc:
        if exc.status == HTTPStatus.UNAUTHORIZED:
            return FAIL, "model", f"{where} refused OPENAI_API_KEY {mask(settings.openai_api_key)}"
        return FAIL, "model", f"{where} did not answer ({type(exc).__name__} {exc.status})"
    except SummarizerError as exc:
        return FAIL, "model", f"{where} did not answer ({type(exc).__name__})"
    finally:
        built.close()
    return status, "model", f"{answering}; {mode}"


def _output_mode(settings: Settings, built: Process, model: ModelOnFirstUse) -> tuple[str, str]:
    """The output mode cards are asked in: the one remembered in Redis, or a tiny card request
    in each mode from the strongest (the pinned one alone) until the endpoint takes one."""
    from bot.core.deadline import Budget
    from bot.core.prompting.drafts import CardDraft
    from bot.core.prompting.prompts import card_prompt
    from bot.errors import ModeRefused, SummarizerError

    pinned = settings.model_options.mode
    kept = settings.redis_url or settings.cache is not None  # else nothing was remembered
    learned = built.modes.recall() if kept and pinned is None else None
    if learned is not None:
        return OK, f"output mode {learned.mode} (remembered)"
    messages = card_prompt(PROBE_PR, "en").messages()
    refused: list[str] = []
    for mode in (pinned,) if pinned else OUTPUT_MODES:
        try:
            model.parse(messages, CardDraft, Budget(PROBE_SECONDS, retries=0).start(), mode)
        except ModeRefused:
            refused.append(mode)
            continue
        except SummarizerError as exc:  # taken, but no card came: the model's answer, or time
            return WARN, f"a card in output mode {mode} failed ({type(exc).__name__})"
        return OK, f"output mode {mode}" + (f" ({', '.join(refused)} refused)" if refused else "")
    return FAIL, f"refuses every output mode tried ({', '.join(refused)})"


def _slack(settings: Settings) -> Check:
    if not settings.slack_bot_token:
        return WARN, "slack", "SLACK_BOT_TOKEN not set: terminal only"
    # Without OAuth, the single workspace's port is over the app's own client (bot token).
    with _wired(settings) as wired:
        status, detail = _auth_test(settings, wired.clients.slack(None))
    if status != OK:
        return status, "slack", detail
    secret = "signing secret " + mask(settings.slack_signing_secret)
    return OK, "slack", f"one workspace (SLACK_BOT_TOKEN {mask(settings.slack_bot_token)}): {detail}; {secret}"


def _auth_test(settings: Settings, slack: SlackPort) -> tuple[str, str]:
    """auth.test through `slack`: OK and who the token is, or FAIL and why."""
    from bot.errors import SlackError

    where = redact_url(settings.slack_api_url)
    try:
        answer = slack.identity()
    except SlackError as exc:
        if exc.code == SlackError.TRANSPORT:
            return FAIL, f"cannot reach {where} ({exc.kind})"
        return FAIL, f"auth.test at {where} failed: {exc.code}"
    except Exception as exc:  # anything else is a failed check too, not a crash
        return FAIL, f"cannot reach {where} ({type(exc).__name__})"
    return OK, f"team {answer.get('team')}, bot {answer.get('user')}"


def _slack_oauth(settings: Settings, team: str | None) -> list[Check]:
    """OAuth mode: the app's credentials, then one line per installed workspace, tokens masked;
    with --team, that workspace's token tried with auth.test."""
    oauth = settings.slack_oauth
    assert oauth is not None
    mode = (
        f"OAuth mode: client id {oauth.client_id}, secret {mask(oauth.client_secret)}, "
        f"PRDIGEST_SECRET_KEY {mask(oauth.secret_key)}, scopes {','.join(oauth.scopes)}, "
        f"home workspace {settings.home_team or 'none'}"
    )
    checks: list[Check] = [(OK, "slack", mode)]
    if not settings.redis_url:
        return [*checks, (FAIL, "slack", "OAuth mode needs REDIS_URL: installations are kept there")]
    with _wired(settings) as wired:
        return [*checks, *_installed(settings, wired, team)]


def _installed(settings: Settings, wired: SlackWiring, team: str | None) -> list[Check]:
    checks: list[Check] = []
    assert wired.oauth is not None  # OAuth mode
    installations = wired.oauth.installations
    try:
        listed = installations.listed()
        for entry in listed:
            installation = installations.find_workspace(entry.workspace)
            token = mask(installation.bot_token) if installation is not None else "unreadable with this key"
            expires = f", rotates, expires {entry.expires_at:%Y-%m-%d %H:%M} UTC" if entry.expires_at else ""
            checks.append(
                (
                    OK if installation is not None else FAIL,
                    "slack",
                    f"installed in {entry.workspace} ({entry.team_name}): bot {entry.bot_user_id}, "
                    f"token {token}{expires}, installed {entry.installed_at:%Y-%m-%d}",
                )
            )
        if not listed:
            checks.append((WARN, "slack", "no workspace has installed the app yet: open /slack/install"))
        if team is not None:
            status, detail = _auth_test(settings, wired.clients.slack(team))
            checks.append((status, "slack", f"{team}: {detail}"))
    except StoreError:
        checks.append((FAIL, "slack", "installations cannot be read: Redis is unreachable"))
    return checks


@contextmanager
def _wired(settings: Settings) -> Iterator[SlackWiring]:
    """Slack's parts, with a 10-second timeout on each call, closed after."""
    from bot.wiring.process import build_process
    from bot.wiring.slack import wire_slack
    from bot.wiring.timing import Timing

    process = build_process(settings, Timing(slack_timeout=10), warn=lambda message: None)
    try:
        yield wire_slack(process)
    finally:
        process.close()


def _slack_checks(settings: Settings, team: str | None) -> list[Check]:
    if settings.oauth:
        return _slack_oauth(settings, team)
    if team is not None:
        return [
            (FAIL, "slack", "--team is for OAuth mode (SLACK_CLIENT_ID); with SLACK_BOT_TOKEN there is one workspace")
        ]
    return [_slack(settings)]


def _tokens(settings: Settings, team: str | None = None) -> list[Check]:
    """The model's tokens today and over the last 7 days: in total, per repository, per channel or
    surface, with the estimated cost from the config's prices; and the daily budget. One
    workspace's only: the home one's, or with --team another installed one's (spending/budgets.py)."""
    if not settings.redis_url and settings.cache is None:
        return [(WARN, "tokens", "REDIS_URL not set: tokens are counted in each process only, none to show here")]
    from bot.render.tokens import doctor_lines
    from bot.store.workspace import Scopes
    from bot.wiring.process import build_process

    built = build_process(settings, warn=lambda message: None)
    scope = Scopes(settings.oauth, settings.home_team).of(team)
    try:
        report = built.spending.report(workspace=scope)
    finally:
        built.close()
    if built.kv.degraded:
        return [(FAIL, "tokens", "cannot be read: Redis is unreachable")]
    if scope is None:
        return [(WARN if warn else OK, "tokens", line) for warn, line in doctor_lines(report)]
    lines = doctor_lines(report, "[slack] workspace_daily_token_budget")
    return [(WARN if warn else OK, "tokens", f"{scope}: {line}") for warn, line in lines]


CHECKS: tuple[Callable[[Settings], Check | list[Check]], ...] = (_config, _redis, _github, _model)


@contextmanager
def _libraries_quiet() -> Iterator[None]:
    if logging.getLogger().isEnabledFor(logging.DEBUG):  # --debug: everything, as asked
        yield
        return
    loggers = [logging.getLogger(name) for name in LIBRARY_LOGGERS]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def run_doctor(settings: Settings, team: str | None = None) -> int:
    def tokens(settings: Settings) -> list[Check]:
        return _tokens(settings, team)

    def slack(settings: Settings) -> list[Check]:
        return _slack_checks(settings, team)

    failed = False
    checks = (*CHECKS, tokens, slack)
    for check in checks:
        with _libraries_quiet():
            found = check(settings)
        for status, name, detail in found if isinstance(found, list) else [found]:
            failed = failed or status == FAIL
            print(f"{status:>4}  {name:<7} {detail}")
    if failed:
        print("prdigest: some checks failed", file=sys.stderr)
    return 1 if failed else 0
