"""What the probes share: `prdigest serve --http` (and the other commands) run against the
loopback fakes in a clean environment, Slack's signed requests to it, and waiting on what the
fakes record. Each probe keeps its own scenario and figures; nothing here measures anything.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import requests
from cryptography.fernet import Fernet
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.fakes.slack_oauth import CLIENT_ID, CLIENT_SECRET
from devkit.ports import free_port
from devkit.slack_signing import signed_headers

ROOT = Path(__file__).resolve().parents[2]
SECRET = "probe-signing-secret"
TEAM = "T0TEST"
FORM = "application/x-www-form-urlencoded"
# A developer's own tokens and settings never reach a probe's server (as bench.scenarios' rule).
PRODUCT_ENV_PREFIXES = ("GITHUB_", "OPENAI_", "SLACK_", "REDIS_", "PRDIGEST_")

T = TypeVar("T")


def environment(
    config: Path,
    *,
    slack: FakeSlack,
    github: FakeGitHub,
    redis_url: str,
    model: FakeOpenAI | None = None,
    oauth: bool = False,
) -> dict[str, str]:
    """What the bot reads to use the fakes, a Redis and `config`: installed in one workspace (a
    bot token), or with `oauth` in any through fake Slack's OAuth endpoints (each install its token)."""
    env = {
        "PRDIGEST_CONFIG": str(config),
        "GITHUB_API_URL": github.url,
        "GITHUB_TOKEN": "probe",
        "REDIS_URL": redis_url,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": slack.api_url,
    }
    if model is not None:
        env |= {"OPENAI_API_KEY": "probe", "OPENAI_BASE_URL": f"{model.url}/v1"}
    if not oauth:
        return env | {"SLACK_BOT_TOKEN": slack.bot_token}
    return env | {
        "SLACK_CLIENT_ID": CLIENT_ID,
        "SLACK_CLIENT_SECRET": CLIENT_SECRET,
        "SLACK_SCOPES": "chat:write,commands,app_mentions:read",
        "PRDIGEST_SECRET_KEY": Fernet.generate_key().decode(),
    }


def _process_env(env: Mapping[str, str], code: Path) -> dict[str, str]:
    clean = {name: value for name, value in os.environ.items() if not name.startswith(PRODUCT_ENV_PREFIXES)}
    return clean | dict(env) | {"PYTHONPATH": str(code)}


def prdigest(env: Mapping[str, str], *args: str, code: Path = ROOT) -> subprocess.CompletedProcess[bytes]:
    """`prdigest ARGS` run to its end from `code`'s bot/ (e.g. `digest --post` before serving)."""
    command = [sys.executable, "-m", "bot.cli", *args]
    return subprocess.run(command, env=_process_env(env, code), cwd=code, capture_output=True, timeout=120, check=False)


class Served:
    """`prdigest serve --http ARGS` on a free loopback port from `code`'s bot/ (another checkout
    measures the code before a change), answering /healthz; its stderr kept in `workdir/serve.log`."""

    def __init__(self, env: Mapping[str, str], workdir: Path, *args: str, code: Path = ROOT) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.log = workdir / "serve.log"
        command = [
            sys.executable,
            "-m",
            "bot.cli",
            "serve",
            "--http",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
        ]
        with self.log.open("wb") as err:
            self.process = subprocess.Popen(
                [*command, *args], env=_process_env(env, code), cwd=code, stdout=subprocess.DEVNULL, stderr=err
            )
        if not within(lambda: healthy(self.base), 60):
            raise RuntimeError(f"the server did not start:\n{self.stop()[-3000:]}")

    def stop(self, grace: float = 30.0) -> str:
        """SIGTERM, then SIGKILL if it has not exited `grace` seconds later (0: SIGKILL at once, for
        a server too frozen to stop); what it wrote to stderr."""
        if self.process.poll() is None:
            if grace:
                self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.log.read_text(errors="replace")

    def __enter__(self) -> Served:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()


def healthy(base: str) -> bool:
    try:
        return requests.get(f"{base}/healthz", timeout=1).ok
    except requests.RequestException:
        return False


def signed(
    base: str, body: bytes, content_type: str, *, secret: str = SECRET, timeout: float = 10
) -> requests.Response:
    """POST /slack/events as Slack signs it."""
    headers = signed_headers(secret, body, content_type)
    return requests.post(f"{base}/slack/events", data=body, headers=headers, timeout=timeout)


def command(
    base: str,
    text: str,
    *,
    channel: str,
    user: str,
    response_url: str,
    team: str = TEAM,
    secret: str = SECRET,
    timeout: float = 10,
) -> requests.Response:
    """A signed `/pr TEXT`."""
    form = {
        "command": "/pr",
        "text": text,
        "channel_id": channel,
        "user_id": user,
        "team_id": team,
        "response_url": response_url,
        "trigger_id": trigger_id(),
    }
    return signed(base, urllib.parse.urlencode(form).encode(), FORM, secret=secret, timeout=timeout)


def event(base: str, event: dict[str, Any], *, team: str = TEAM, event_id: str | None = None) -> requests.Response:
    """A signed Events API delivery of `event`."""
    envelope = {
        "type": "event_callback",
        "team_id": team,
        "api_app_id": "A0PROBE",
        "event_id": event_id or f"Ev{uuid.uuid4().hex[:10]}",
        "event_time": int(time.time()),
        "event": event,
    }
    return signed(base, json.dumps(envelope).encode(), "application/json")


def interaction(base: str, payload: dict[str, Any], *, secret: str = SECRET, timeout: float = 10) -> requests.Response:
    """A signed click or form submission (Slack's `payload=` form)."""
    body = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
    return signed(base, body, FORM, secret=secret, timeout=timeout)


def trigger_id() -> str:
    """One per command and click: the bot answers each trigger_id once."""
    return f"T{uuid.uuid4().hex}.probe"


def within(condition: Callable[[], T], seconds: float) -> T | None:
    """The condition's first truthy value within `seconds`, else None."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            return None
        time.sleep(0.05)


def until(condition: Callable[[], T], seconds: float, what: str) -> T:
    """The condition's first truthy value; the probe stops if there is none within `seconds`."""
    value = within(condition, seconds)
    if not value:
        raise TimeoutError(f"probe: no {what} within {seconds:.0f} s")
    return value
