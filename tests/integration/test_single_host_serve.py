"""`serve` on one host without Redis: the post ledger is in the cache file, so a restart (or a
second process on the host) posts nothing twice."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack

from bot.models import DigestOptions, Filters, Window
from bot.settings import load_settings
from bot.store.backends.sqlite_kv import SqliteKV
from bot.wiring.process import build_process
from bot.wiring.slack import slack_app, wire_slack
from bot.wiring.timing import Timing
from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import CONFIG, DIGEST_CHANNEL, fakes_env

WINDOW = Window(day(0), day(24))
DAY = "2026-08-05"
OPTIONS = DigestOptions("en", Filters(), "note")


def _server(github: FakeGitHub, model: FakeOpenAI, slack: FakeSlack, config: Path, cache: Path) -> Any:
    env = fakes_env(github, model, slack, "", config) | {
        "SLACK_BOT_TOKEN": slack.bot_token,
        "PRDIGEST_CACHE": str(cache),
    }
    services = build_process(load_settings(env), Timing(model_retries=0, pace=0.0), warn=lambda message: None)
    assert isinstance(services.kv, SqliteKV) and services.queue is None
    return services, slack_app(wire_slack(services))


def test_a_restarted_server_without_redis_does_not_post_the_day_again(
    github: FakeGitHub, model: FakeOpenAI, tmp_path: Path
) -> None:
    for number in (1, 2, 3):
        github.add_pr(REPO, number, title=f"Fix the scheduler, part {number}", merged_at=day(number), files=[])
    config, cache = tmp_path / "prdigest.toml", tmp_path / "cache.sqlite3"
    config.write_text(CONFIG, encoding="utf-8")
    with FakeSlack() as slack:
        services, parts = _server(github, model, slack, config, cache)
        first = parts.digests.run(DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=OPTIONS)
        assert first is not None and first.posted > 0
        (lead,) = slack.messages(DIGEST_CHANNEL)
        replies = slack.thread(DIGEST_CHANNEL, lead["ts"])
        services.close()

        # The restart, and beside it a second process on the host, both at post time.
        servers = [_server(github, model, slack, config, cache) for _ in range(2)]
        results: list[Any] = []
        threads = [
            threading.Thread(
                target=lambda p=p: results.append(p.digests.run(DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=OPTIONS))
            )
            for _, p in servers
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [result.posted for result in results if result is not None] in ([0], [0, 0])
        assert slack.messages(DIGEST_CHANNEL) == [lead]
        assert slack.thread(DIGEST_CHANNEL, lead["ts"]) == replies
        for services, _ in servers:
            services.close()
