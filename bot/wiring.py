"""Builds the GitHub, model and Redis clients and the services once from Settings and hands them
down (the Slack client and app are built in slack/app.py, from these); tests build the same
objects against loopback fakes through the same functions."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from github import Github

from bot.core.deadline import DEFAULT_RETRIES, Budget
from bot.llm.openai_model import OpenAIModel, build_openai
from bot.services.answers import ModelAnswerer
from bot.services.cards import CardService, lease_for
from bot.services.digest import DigestService
from bot.services.writer import ModelCardWriter
from bot.settings import Settings
from bot.sources.github import GitHubSource, build_github
from bot.store.cards import CardStore
from bot.store.kv import KV
from bot.store.memory import MemoryKV
from bot.store.redis_store import RedisKV

EMBEDDED_STORE_NOTE = "REDIS_URL is not set: using an in-memory store, so nothing is cached between runs."


@dataclass
class Services:
    settings: Settings
    kv: KV
    store: CardStore
    github: Github
    source: GitHubSource
    model: OpenAIModel | None  # None without OPENAI_API_KEY, and so are the writer and the answerer
    writer: ModelCardWriter | None
    answerer: ModelAnswerer | None
    cards: CardService
    digests: DigestService

    @property
    def summarizer(self) -> ModelCardWriter | None:
        """The card writer by the name bot/cli.py reads to tell whether a model is configured."""
        return self.writer

    def close(self) -> None:
        self.github.close()
        if self.model is not None:
            self.model.close()
        if isinstance(self.kv, RedisKV):
            self.kv.close()


def build_kv(settings: Settings, warn: Callable[[str], None]) -> KV:
    if settings.redis_url:
        return RedisKV.from_url(settings.redis_url)
    warn(EMBEDDED_STORE_NOTE)
    return MemoryKV()


def _stderr(message: str) -> None:
    print(f"prdigest: {message}", file=sys.stderr)


def build_services(
    settings: Settings,
    *,
    kv: KV | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
    warn: Callable[[str], None] = _stderr,
    github_retries: int = 4,
    github_backoff: float = 0.5,
    model_timeout: float | None = None,
    model_retries: int = DEFAULT_RETRIES,
) -> Services:
    kv = kv if kv is not None else build_kv(settings, warn)
    store = CardStore(kv)
    github = build_github(
        settings.github_api_url, settings.github_token, retries=github_retries, backoff=github_backoff
    )
    source = GitHubSource(
        github, authenticated=settings.github_token is not None, api_url=settings.github_api_url, now=now
    )
    # Seconds a card (or an answer) may wait for the model, its retries included.
    timeout = model_timeout if model_timeout is not None else settings.defaults.model_timeout
    model: OpenAIModel | None = None
    writer: ModelCardWriter | None = None
    answerer: ModelAnswerer | None = None
    if settings.openai_api_key:
        model = OpenAIModel(
            build_openai(settings.openai_api_key, settings.openai_base_url, timeout=timeout), settings.model
        )
        budget = Budget(timeout, model_retries)
        writer = ModelCardWriter(model, token_budget=settings.defaults.token_budget, budget=budget)
        answerer = ModelAnswerer(model, token_budget=settings.defaults.token_budget, budget=budget)
    cards = CardService(source, store, writer, lease_seconds=lease_for(timeout))
    digests = DigestService(source, cards, concurrency=settings.defaults.concurrency)
    return Services(settings, kv, store, github, source, model, writer, answerer, cards, digests)
