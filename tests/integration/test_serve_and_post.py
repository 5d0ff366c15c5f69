"""`prdigest digest --post` and `prdigest serve` as an operator runs them, and the scheduler."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.ports import free_port
from devkit.slack_signing import signed_headers

from bot.cli.main import main
from bot.settings import load_settings
from bot.store.ledger import PostLedger
from bot.wiring.process import build_process
from bot.wiring.slack import slack_app, wire_slack
from bot.wiring.timing import Timing
from tests.integration.conftest import REPO, day, told
from tests.integration.slack_harness import CONFIG, DIGEST_CHANNEL, SECRET, wait_for


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


@pytest.fixture
def operator_env(
    github: FakeGitHub, slack: FakeSlack, redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG, encoding="utf-8")
    env = {
        "PRDIGEST_CONFIG": str(config),
        "GITHUB_API_URL": github.url,
        "REDIS_URL": redis_url,
        "SLACK_BOT_TOKEN": slack.bot_token,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": slack.api_url,
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    for number in range(1, 4):
        github.add_pr(
            REPO,
            number,
            title=f"Change {number}",
            merged_at=day(number),
            files=[{"path": f"vllm/m{number}.py", "additions": 60, "deletions": 2}],
        )
    return env


def test_post_twice_posts_once(
    operator_env: dict[str, str], slack: FakeSlack, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["digest", REPO, "--date", "2026-08-05", "--post", DIGEST_CHANNEL]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert first.strip() == f"{DIGEST_CHANNEL} 2026-08-05: 2 messages posted, 0 already there"
    assert main(argv) == 0
    assert capsys.readouterr().out.strip() == f"{DIGEST_CHANNEL} 2026-08-05: 0 messages posted, 2 already there"
    assert len(slack.all_messages()) == 2


def test_post_without_redis_keeps_its_ledger_in_the_cache_file(
    operator_env: dict[str, str],
    slack: FakeSlack,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.delenv("REDIS_URL")
    monkeypatch.setenv("PRDIGEST_CACHE", str(tmp_path / "cache.sqlite3"))
    argv = ["digest", REPO, "--date", "2026-08-05", "--post", DIGEST_CHANNEL]
    assert main(argv) == 0
    assert capsys.readouterr().out.strip() == f"{DIGEST_CHANNEL} 2026-08-05: 2 messages posted, 0 already there"
    assert main(argv) == 0  # another process on this host: the file remembers what was posted
    assert capsys.readouterr().out.strip() == f"{DIGEST_CHANNEL} 2026-08-05: 0 messages posted, 2 already there"
    assert len(slack.all_messages()) == 2
    # In memory only, nothing would remember: refused before anything is built or posted.
    assert main([*argv, "--no-cache"]) == 1
    assert "--post needs a store kept after this run" in capsys.readouterr().err
    assert len(slack.all_messages()) == 2


@pytest.mark.parametrize(
    ("unset", "message"),
    [("SLACK_BOT_TOKEN", "--post needs SLACK_BOT_TOKEN"), ("REDIS_URL", "--post needs a store kept after this run")],
)
def test_post_needs_slack_and_redis(
    operator_env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    unset: str,
    message: str,
) -> None:
    monkeypatch.delenv(unset)
    assert main(["digest", REPO, "--date", "2026-08-05", "--post", DIGEST_CHANNEL]) == 1
    assert message in capsys.readouterr().err


def test_serve_answers_health_and_signed_events_and_stops_on_sigterm(
    operator_env: dict[str, str], slack: FakeSlack, tmp_path: Path
) -> None:
    port = free_port()
    env = {**os.environ, **operator_env}
    process = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "serve", "--http", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        base = f"http://127.0.0.1:{port}"

        def healthy() -> bool:
            try:
                return requests.get(f"{base}/healthz", timeout=1).text == "ok\n"
            except requests.ConnectionError:
                return False

        wait_for(healthy, timeout=20)
        ts = slack.add_message("C0RANDOM01", "<@UBOT> hello")
        event = {"type": "app_mention", "channel": "C0RANDOM01", "user": "U1", "text": "<@UBOT> hello", "ts": ts}
        envelope = json.dumps({"type": "event_callback", "event_id": "Ev1", "event": event}).encode()

        def post(secret: str) -> int:
            headers = signed_headers(secret, envelope, "application/json")
            return requests.post(f"{base}/slack/events", data=envelope, headers=headers, timeout=10).status_code

        assert post(SECRET) == 200
        assert post("nope") == 401
        wait_for(lambda: any("/pr" in (m.get("text") or "") for m in slack.thread("C0RANDOM01", ts)))
    finally:
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=10)
    assert process.returncode == 0, err.decode()
    assert b"serving http://127.0.0.1" in err
    assert b"Traceback" not in err


def test_sigterm_lets_an_answer_in_progress_finish_before_the_clients_close(
    operator_env: dict[str, str], slack: FakeSlack, model: FakeOpenAI
) -> None:
    """SIGTERM right after a /pr is acknowledged: its card, waiting on a slow model, still
    reaches the asker, and serve exits cleanly, instead of the answer failing on a closed client."""
    model.latency = 2.0
    model.responder = lambda request: {
        "headline": "Speeds things up",
        "verdict": "read",
        "minutes": 5,
        "why": ["A"],
        "caveats": [],
        "watch": [],
    }
    port = free_port()
    env = {**os.environ, **operator_env, "OPENAI_API_KEY": "test", "OPENAI_BASE_URL": f"{model.url}/v1"}
    command = [sys.executable, "-m", "bot.cli", "serve", "--http", "--no-worker", "--host", "127.0.0.1"]
    process = subprocess.Popen([*command, "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        try:
            return requests.get(f"{base}/healthz", timeout=1).status_code == 200
        except requests.ConnectionError:
            return False

    try:
        wait_for(healthy, timeout=20)
        response_url = slack.new_response_url()
        form = {
            "command": "/pr",
            "text": f"{REPO}#1",
            "channel_id": DIGEST_CHANNEL,
            "user_id": "U0HUMAN001",
            "team_id": "T0TEST",
            "response_url": response_url,
            "trigger_id": "1.2.sigterm",
        }
        body = urllib.parse.urlencode(form).encode()
        headers = signed_headers(SECRET, body, "application/x-www-form-urlencoded")
        assert requests.post(f"{base}/slack/events", data=body, headers=headers, timeout=10).status_code == 200
        wait_for(lambda: model.calls == 1)  # the card is being written
    finally:
        process.send_signal(signal.SIGTERM)
        _out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err.decode()
    (answer,) = slack.responses[response_url.rsplit("/", 1)[-1]]
    assert "Speeds things up" in json.dumps(answer["blocks"])
    assert b"#1 failed" not in err and b"refused the card" not in err and b"Traceback" not in err


# 192.0.2.0/24 is TEST-NET-1 (RFC 5737): documentation only, never an address of this host.
NOT_HERE = "192.0.2.1"
BUSY = "busy"  # stands for the port of a socket the test holds open


@pytest.mark.parametrize(
    ("args", "env", "status", "message"),
    [
        (["--host", "127.0.0.1", "--port", BUSY], {}, 1, "cannot serve on 127.0.0.1:{port}: port {port} is in use"),
        (["--host", NOT_HERE, "--port", "0"], {}, 1, f"cannot serve on {NOT_HERE}:0: {NOT_HERE} is not an address"),
        (["--host", "127.0.0.1", "--port", "0"], {"REDIS_URL": "rediss//localhost"}, 1, "REDIS_URL is not a Redis URL"),
        (["--host", "127.0.0.1", "--port", "99999"], {}, 2, "argument --port: '99999' is not a port"),
    ],
    ids=["port in use", "address not on this host", "malformed REDIS_URL", "port out of range"],
)
def test_serve_mistakes_are_one_line_and_a_non_zero_exit(
    operator_env: dict[str, str], args: list[str], env: dict[str, str], status: int, message: str
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as busy:
        port = str(busy.getsockname()[1])
        process = subprocess.Popen(
            [sys.executable, "-m", "bot.cli", "serve", "--http", *(port if arg == BUSY else arg for arg in args)],
            env={**os.environ, **operator_env, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            _out, err = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:  # it serves (on 99999 modulo 65536, say) instead of refusing
            process.kill()
            _out, err = process.communicate()
    lines = told(err.decode())
    assert (process.returncode, len(lines)) == (status, 1), lines
    assert lines[0].startswith("prdigest: " + message.format(port=port)), lines


def test_scheduler_posts_each_channel_once_a_day(operator_env: dict[str, str], slack: FakeSlack) -> None:
    settings = load_settings(operator_env)
    now = datetime(2026, 8, 5, 9, 5, tzinfo=UTC)  # after 09:00 UTC, the default post_at
    services = build_process(
        settings, Timing(now=lambda: now, pace=0.0), warn=lambda message: None
    )  # the replica's clock
    try:
        wired = wire_slack(services)
        parts = slack_app(wired)
        parts.scheduler.tick()
        wait_for(lambda: slack.messages(DIGEST_CHANNEL))
        wait_for(lambda: "done" in PostLedger(services.kv).entries(DIGEST_CHANNEL, "2026-08-05"))
        parts.scheduler.tick()
        wait_for(parts.idle)
        assert len(slack.messages(DIGEST_CHANNEL)) == 1
        assert "3 merged" in json.dumps(slack.messages(DIGEST_CHANNEL)[0]["blocks"])
        parts.scheduler.stop()
    finally:
        services.close()
