"""Fakes on loopback and services wired to them exactly as the CLI wires itself."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot import words
from bot.settings import Settings, load_settings
from bot.store.kv import KV
from bot.wiring.process import Process, build_process
from bot.wiring.slack import wire_slack
from bot.wiring.store import MEMORY_STORE_NOTE
from bot.wiring.timing import Timing
from bot.workspaces.tenant import Tenant

REPO = "vllm-project/vllm"
NOW = datetime(2026, 8, 6, 12, 0, tzinfo=UTC)


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub() as fake:
        fake.add_repo(REPO)
        yield fake


@pytest.fixture
def model() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def settings_for(
    github: FakeGitHub, model: FakeOpenAI | None = None, redis_url: str | None = None, **extra: str
) -> Settings:
    env = {"GITHUB_API_URL": github.url, "GITHUB_TOKEN": "test-token", **extra}
    if model is not None:
        env |= {"OPENAI_API_KEY": "test", "OPENAI_BASE_URL": f"{model.url}/v1"}
    if redis_url is not None:
        env["REDIS_URL"] = redis_url
    return load_settings(env)


ServicesFactory = Callable[..., Process]


@pytest.fixture
def make_services() -> Iterator[ServicesFactory]:
    """Services with quick retries, closed after the test."""
    built: list[Process] = []

    # model_timeout covers a card's retries and second request: room for a loaded machine.
    def factory(
        settings: Settings, *, kv: KV | None = None, now: datetime = NOW, model_timeout: float = 5.0
    ) -> Process:
        timing = Timing(
            now=lambda: now, github_retries=2, github_backoff=0.01, model_timeout=model_timeout, model_retries=1
        )
        services = build_process(settings, timing, kv=kv, warn=lambda message: None)
        built.append(services)
        return services

    yield factory
    for services in built:
        services.close()


def _note_pattern(key: str) -> str:
    before, after = (re.escape(part) for part in words.CATALOGUES["en"][key].split("{path}"))
    patterns = [f"{before}.+{after}"]
    before, after = (re.escape(part) for part in words.CATALOGUES["zh-CN"][key].split("{path}"))
    return "|".join([*patterns, f"{before}.+{after}"])


# The lines every CLI run says once on stderr, whatever it does: the config file in use (or where
# none was found), and the store's note without Redis.
ONCE_A_RUN = re.compile(
    f"prdigest: (?:{_note_pattern('cli.config_file')}|{_note_pattern('cli.no_config_file')}"
    f"|{re.escape(MEMORY_STORE_NOTE)})"
)


def told(err: str) -> list[str]:
    """What a CLI run told on stderr besides what every run says once (ONCE_A_RUN), blank lines left out."""
    return [line for line in err.splitlines() if line.strip() and not ONCE_A_RUN.fullmatch(line)]


def day(offset_hours: float = 0.0) -> datetime:
    """A moment on 2026-08-05 (UTC), the day most tests digest."""
    return datetime(2026, 8, 5, tzinfo=UTC) + timedelta(hours=offset_hours)


# The Slack harness fixture lives with its helpers; importing it here makes it visible to tests.
from tests.integration.oauth_harness import oauth  # noqa: E402, F401
from tests.integration.slack_harness import harness  # noqa: E402, F401


def home_of(process: Process) -> Tenant:
    """The single workspace's parts over `process`, as `serve` wires them."""
    return wire_slack(process).tenants.home
