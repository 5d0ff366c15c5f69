"""`prdigest doctor`: one line per dependency, what works and what to fix. Secrets masked.

Exit status 0 when nothing failed; warnings (an optional part not configured) do not fail.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from bot.settings import Settings

OK, WARN, FAIL = "ok", "warn", "FAIL"
Check = tuple[str, str, str]  # status, name, detail


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
        return WARN, "redis", "REDIS_URL not set: in-memory store, nothing shared or kept between runs"
    from bot.store.redis_store import RedisKV

    kv = RedisKV.from_url(settings.redis_url)
    answering = kv.ping()
    kv.close()
    if answering:
        return OK, "redis", "answering"
    return FAIL, "redis", "no answer at REDIS_URL; is redis-server running?"


def _github(settings: Settings) -> Check:
    from github import GithubException

    from bot.sources.github import build_github

    client = build_github(settings.github_api_url, settings.github_token, retries=0, max_rate_limit_wait=0)
    try:
        core = client.get_rate_limit().resources.core
    except GithubException as exc:
        return FAIL, "github", f"{settings.github_api_url} answered {exc.status}; check GITHUB_TOKEN"
    except Exception as exc:  # any transport failure is a failed check, not a crash
        return FAIL, "github", f"cannot reach {settings.github_api_url} ({type(exc).__name__})"
    finally:
        client.close()
    who = "token " + mask(settings.github_token) if settings.github_token else "anonymous (60 requests an hour)"
    return OK, "github", f"{settings.github_api_url}, {who}, {core.remaining}/{core.limit} requests left"


def _model(settings: Settings) -> Check:
    if not settings.openai_api_key:
        return WARN, "model", "OPENAI_API_KEY not set: cards come from metadata (heuristic)"
    import openai

    from bot.llm.summarizer import build_openai

    client = build_openai(settings.openai_api_key, settings.openai_base_url, timeout=10, max_retries=0)
    where = settings.openai_base_url or "api.openai.com"
    try:
        client.models.list()
    except openai.AuthenticationError:
        return FAIL, "model", f"{where} refused OPENAI_API_KEY {mask(settings.openai_api_key)}"
    except openai.OpenAIError as exc:
        return FAIL, "model", f"{where} did not answer ({type(exc).__name__})"
    finally:
        client.close()
    return OK, "model", f"{where} answering; model {settings.model}; key {mask(settings.openai_api_key)}"


def _slack(settings: Settings) -> Check:
    if not settings.slack_bot_token:
        return WARN, "slack", "SLACK_BOT_TOKEN not set: terminal only"
    from slack_sdk import WebClient
    from slack_sdk.errors import SlackApiError

    client = WebClient(token=settings.slack_bot_token, base_url=settings.slack_api_url, timeout=10)
    try:
        answer = client.auth_test()
    except SlackApiError as exc:
        return FAIL, "slack", f"auth.test failed: {exc.response.get('error', 'unknown error')}"
    except Exception as exc:  # transport failure
        return FAIL, "slack", f"cannot reach {settings.slack_api_url} ({type(exc).__name__})"
    secret = "signing secret " + mask(settings.slack_signing_secret)
    return OK, "slack", f"team {answer.get('team')}, bot {answer.get('user')}; {secret}"


CHECKS: tuple[Callable[[Settings], Check], ...] = (_config, _redis, _github, _model, _slack)


def run_doctor(settings: Settings) -> int:
    failed = False
    for check in CHECKS:
        status, name, detail = check(settings)
        failed = failed or status == FAIL
        print(f"{status:>4}  {name:<7} {detail}")
    if failed:
        print("prdigest: some checks failed", file=sys.stderr)
    return 1 if failed else 0
