"""Redis unreachable: what must happen once fails closed, what is a cache stays open.

The post lease, the ledger and the delivery de-duplication raise StoreError (no post, no
answer that might be a second one); cards and snapshots are simply not cached. Redis back, the
next scheduler tick posts what is due, once.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import redis
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.redis_server import RedisServer

from bot.cli.main import main
from bot.errors import StoreError
from bot.models import DigestOptions, Filters
from bot.slack.app import SlackParts
from bot.store.backends.redis_store import RedisKV
from bot.store.ledger import PostLedger
from bot.wiring.process import build_process
from bot.wiring.slack import slack_app, wire_slack
from bot.wiring.timing import Timing
from tests.integration.conftest import REPO, day, told
from tests.integration.slack_harness import CONFIG, DIGEST_CHANNEL, OTHER_REPO, app_settings, serve_harness, wait_for
from tests.integration.test_reliability import DAY, WINDOW, add_prs, good_card

# After 09:00 UTC, the channel's post_at: the digest of 2026-08-05 is due.
POST_TIME = datetime(2026, 8, 5, 9, 5, tzinfo=UTC)


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


@contextlib.contextmanager
def replica(
    github: FakeGitHub, model: FakeOpenAI, slack: FakeSlack, redis_url: str, tmp_path: Path
) -> Iterator[SlackParts]:
    """One replica of the app, its scheduler stopped and its clients closed on exit (a client left
    open is a socket the garbage collector finds in some later test)."""
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG, encoding="utf-8")
    timing = Timing(now=lambda: POST_TIME, model_retries=0, pace=0.0)  # the replica's clock
    process = build_process(app_settings(github, model, slack, redis_url, config), timing, warn=lambda message: None)
    try:
        parts = slack_app(wire_slack(process))
        try:
            yield parts
        finally:
            parts.drain()
    finally:
        process.close()


def test_strict_view_raises_and_open_view_misses_while_redis_is_down(own_redis: RedisServer) -> None:
    kv = RedisKV.from_url(own_redis.url)
    kv.set("card:x", b"1", 60)
    own_redis.stop()
    assert kv.get("card:x") is None  # a cache: a miss, the work is done again
    assert kv.set_nx("lock:card:x", b"t", 1000) is True  # single flight: granted, never blocked
    with pytest.raises(StoreError):
        kv.strict().set_nx("seen:Ev1", b"1", 1000)
    with pytest.raises(StoreError):
        PostLedger(kv).entries("C1", DAY)
    with pytest.raises(StoreError):
        PostLedger(kv).take_lease("C1", DAY, "token", 60)
    assert kv.degraded and kv.strict().degraded
    own_redis.start()
    assert PostLedger(kv).entries("C1", DAY) == {}
    assert not kv.degraded
    kv.close()


def test_three_replicas_post_nothing_while_redis_is_down_then_exactly_one_digest(
    github: FakeGitHub,
    model: FakeOpenAI,
    slack: FakeSlack,
    own_redis: RedisServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    add_prs(github, 6)
    github.add_repo(OTHER_REPO)
    model.responder = good_card
    with contextlib.ExitStack() as stack:
        replicas = [stack.enter_context(replica(github, model, slack, own_redis.url, tmp_path)) for _ in range(3)]
        outage_then_one_digest(replicas, slack, own_redis, caplog)


def outage_then_one_digest(
    replicas: list[SlackParts], slack: FakeSlack, own_redis: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    own_redis.stop()
    with caplog.at_level(logging.WARNING):
        for _ in range(4):  # four ticks each: two minutes of a real scheduler
            for parts in replicas:
                parts.scheduler.tick()
        assert slack.calls("chat.postMessage") == []
        assert all(parts.scheduler.problem == "redis unreachable" for parts in replicas)
        # Once per outage and replica, not once per tick.
        outage_lines = [r for r in caplog.records if "no digest is posted until Redis answers again" in r.message]
        assert len(outage_lines) == 3
        own_redis.start()
        for parts in replicas:
            parts.scheduler.tick()
    wait_for(lambda: slack.messages(DIGEST_CHANNEL), timeout=20)
    for parts in replicas:
        wait_for(lambda p=parts: not p.scheduler._running, timeout=20)  # type: ignore[misc]
    for _ in range(2):
        for parts in replicas:
            parts.scheduler.tick()
    for parts in replicas:
        wait_for(lambda p=parts: not p.scheduler._running, timeout=20)  # type: ignore[misc]
        assert parts.scheduler.problem is None
    assert len(slack.messages(DIGEST_CHANNEL)) == 1
    (lead,) = slack.messages(DIGEST_CHANNEL)
    text = " ".join(message["text"] for message in slack.thread(DIGEST_CHANNEL, lead["ts"]))
    assert sorted(int(n) for n in re.findall(r"#(\d+)\b", text)) == [1, 2, 3, 4, 5, 6]


def test_healthz_says_degraded_while_redis_is_down(
    github: FakeGitHub, model: FakeOpenAI, own_redis: RedisServer, tmp_path: Path
) -> None:
    with serve_harness(github, model, own_redis.url, tmp_path) as harness:
        health = harness.events_url.replace("/slack/events", "/healthz")
        harness.parts.scheduler.tick()
        assert requests.get(health, timeout=5).text == "ok\n"
        own_redis.stop()
        harness.parts.scheduler.tick()
        answer = requests.get(health, timeout=5)
        assert (answer.status_code, answer.text) == (200, "degraded: redis unreachable\n")
        own_redis.start()
        harness.parts.scheduler.tick()
        assert requests.get(health, timeout=5).text == "ok\n"


def test_a_mention_is_not_answered_while_redis_is_down_and_is_answered_after(
    github: FakeGitHub, model: FakeOpenAI, own_redis: RedisServer, tmp_path: Path
) -> None:
    add_prs(github, 2)
    model.responder = good_card
    with serve_harness(github, model, own_redis.url, tmp_path) as harness:
        own_redis.stop()
        text = f"<@UBOT> what does {REPO}#1 change?"
        ts = harness.slack.add_message("C0RANDOM01", text)
        event = {"type": "app_mention", "channel": "C0RANDOM01", "user": "U0HUMAN001", "text": text, "ts": ts}
        assert harness.event(event, event_id="EvDown1").status_code == 200
        # Its retry, maybe to another replica: none may answer, since none can tell it is a retry.
        assert harness.event(event, event_id="EvDown1", retry=1).status_code == 200
        own_redis.start()
        ts2, _ = harness.mention("C0RANDOM01", f"what does {REPO}#2 change?")
        wait_for(lambda: any("An answer." in json.dumps(m["blocks"]) for m in harness.slack.thread("C0RANDOM01", ts2)))
        assert not [m for m in harness.slack.thread("C0RANDOM01", ts) if m.get("bot_id")]


@pytest.fixture
def post_env(
    github: FakeGitHub, slack: FakeSlack, own_redis: RedisServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG, encoding="utf-8")
    env = {
        "PRDIGEST_CONFIG": str(config),
        "GITHUB_API_URL": github.url,
        "REDIS_URL": own_redis.url,
        "SLACK_BOT_TOKEN": slack.bot_token,
        "SLACK_API_URL": slack.api_url,
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    add_prs(github, 3)
    return env


def test_post_with_redis_unreachable_posts_nothing_and_exits_non_zero(
    post_env: dict[str, str], slack: FakeSlack, own_redis: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["digest", REPO, "--date", DAY, "--post", DIGEST_CHANNEL]
    assert main(argv) == 0
    posted = len(slack.all_messages())
    capsys.readouterr()
    own_redis.stop()
    assert main(argv) == 1
    err = told(capsys.readouterr().err)
    assert len(err) == 1 and "Redis cannot be reached" in err[-1] and "nothing was posted" in err[-1]
    assert len(slack.all_messages()) == posted


def test_a_ledger_lost_after_posting_is_read_back_from_slack(
    post_env: dict[str, str], slack: FakeSlack, own_redis: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["digest", REPO, "--date", DAY, "--post", DIGEST_CHANNEL]
    assert main(argv) == 0
    posted = len(slack.all_messages())
    redis.Redis.from_url(own_redis.url).flushdb()  # Redis restarted without persistence
    capsys.readouterr()
    assert main(argv) == 0
    assert capsys.readouterr().out.strip() == f"{DIGEST_CHANNEL} {DAY}: 0 messages posted, {posted} already there"
    assert len(slack.all_messages()) == posted


def test_redis_lost_mid_thread_pauses_posting_and_the_next_run_finishes_every_card_once(
    github: FakeGitHub, model: FakeOpenAI, slack: FakeSlack, own_redis: RedisServer, tmp_path: Path
) -> None:
    add_prs(github, 40)  # a lead and several thread messages
    model.responder = good_card
    with replica(github, model, slack, own_redis.url, tmp_path) as parts:
        post = parts.client.chat_postMessage

        def post_then_lose_redis(**kwargs: Any) -> Any:
            response = post(**kwargs)
            if len(slack.calls("chat.postMessage")) == 2:
                own_redis.stop()  # started again below, empty: the ledger is gone too
            return response

        parts.client.chat_postMessage = post_then_lose_redis  # type: ignore[method-assign]
        with pytest.raises(StoreError):
            parts.digests.run(DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("en", Filters(), "note"))
        assert len(slack.calls("chat.postMessage")) == 2
        own_redis.start()
        result = parts.digests.run(DIGEST_CHANNEL, DAY, WINDOW, (REPO,), options=DigestOptions("en", Filters(), "note"))
        assert result is not None and result.already == 2
        (lead,) = slack.messages(DIGEST_CHANNEL)
        text = " ".join(message["text"] for message in slack.thread(DIGEST_CHANNEL, lead["ts"]))
        numbers = sorted(int(n) for n in re.findall(r"#(\d+)\b", text))
        assert numbers == list(range(1, 41))


def test_post_of_a_private_repo_to_a_channel_not_configured_for_it_is_refused(
    post_env: dict[str, str], github: FakeGitHub, slack: FakeSlack, capsys: pytest.CaptureFixture[str]
) -> None:
    github.add_repo("acme/secret", private=True)
    github.add_pr("acme/secret", 1, title="Billing rework", merged_at=day(1))
    assert main(["digest", "acme/secret", "--date", DAY, "--post", DIGEST_CHANNEL]) == 1
    err = capsys.readouterr().err
    assert "acme/secret is private" in err and "not configured for it" in err
    assert slack.calls("chat.postMessage") == []


def test_a_redis_url_option_redis_py_cannot_read_is_one_line_without_the_password(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REDIS_URL", "redis://:s3cret-pw@127.0.0.1:6379/0?socket_timeout=abc")
    assert main(["digest", REPO, "--date", DAY]) == 1
    err = capsys.readouterr().err
    assert len(told(err)) == 1 and "REDIS_URL" in told(err)[0] and "s3cret-pw" not in err
