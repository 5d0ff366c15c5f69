"""The app in OAuth mode on loopback: two replicas sharing one Redis and one fake Slack, an
"Add to Slack" driven as a browser and Slack would drive it, and signed events per workspace."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import requests
from cryptography.fernet import Fernet
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.fakes.slack_oauth import CLIENT_ID, CLIENT_SECRET
from devkit.slack_signing import signed_headers

from bot.http.server import http_server
from bot.settings import load_settings
from bot.slack.app import SlackParts
from bot.store.installations import SealedInstallationStore
from bot.wiring.process import Process, build_process
from bot.wiring.slack import OAuthParts, SlackWiring, slack_app, wire_slack
from bot.workspaces.tenant import Tenant
from tests.integration.conftest import REPO
from tests.integration.slack_harness import SECRET, fakes_env, harness_timing, wait_for

HOME, SECOND = "T0TEST", "T0SECOND"
HOME_CHANNEL, SECOND_CHANNEL = "C0DIGEST01", "C0SECOND01"
HUMAN = "U0HUMAN001"
SECRET_KEY = Fernet.generate_key().decode()

CONFIG = f"""
[defaults]
timezone = "UTC"

[slack]
home_team = "{HOME}"

[[channels]]
id = "{HOME_CHANNEL}"
repos = ["{REPO}"]
post_at = "00:00"
"""


@dataclass
class Replica:
    services: Process
    wired: SlackWiring
    parts: SlackParts
    url: str  # http://127.0.0.1:PORT

    @property
    def home(self) -> Tenant:
        return self.wired.tenants.home

    @property
    def oauth(self) -> OAuthParts:
        assert self.wired.oauth is not None  # OAuth mode
        return self.wired.oauth

    @property
    def installations(self) -> SealedInstallationStore:
        return self.oauth.installations

    def settle(self) -> None:
        wait_for(self.parts.idle)


@dataclass
class OAuthHarness:
    slack: FakeSlack
    replicas: tuple[Replica, Replica]
    counter: Iterator[int]
    last_redirect: tuple[str, str] = ("", "")

    @property
    def first(self) -> Replica:
        return self.replicas[0]

    def settle(self) -> None:
        for replica in self.replicas:
            replica.settle()

    def install(self, team: str, *, start: int = 0, finish: int = 1) -> requests.Response:
        """ "Add to Slack" as a browser does it: the install page of replica `start`, Slack's
        consent (a code for `team`), and Slack's redirect to replica `finish`."""
        page = requests.get(f"{self.replicas[start].url}/slack/install", timeout=10)
        assert page.status_code == 200, page.text
        state = _state_in(page.text)
        cookie = page.headers["Set-Cookie"].split(";")[0]
        code = self.slack.install_code(team)
        query = urllib.parse.urlencode({"code": code, "state": state})
        self.last_redirect = (f"{self.replicas[finish].url}/slack/oauth_redirect?{query}", cookie)
        return self.redirect_again()

    def redirect_again(self) -> requests.Response:
        """The last redirect from Slack, once more (a reload, or someone who saw the URL)."""
        url, cookie = self.last_redirect
        return requests.get(url, headers={"Cookie": cookie}, timeout=10)

    def event(self, team: str, event: dict[str, Any], replica: int = 0) -> requests.Response:
        envelope = {
            "type": "event_callback",
            "team_id": team,
            "api_app_id": "A0TEST",
            "event_id": f"Ev{next(self.counter):08d}",
            "event_time": int(time.time()),
            "event": event,
        }
        return self._signed(json.dumps(envelope).encode(), "application/json", replica)

    def mention(self, team: str, channel: str, text: str) -> requests.Response:
        ts = self.slack.add_message(channel, f"<@UBOT> {text}")
        event = {"type": "app_mention", "channel": channel, "user": HUMAN, "text": f"<@UBOT> {text}", "ts": ts}
        return self.event(team, event)

    def command(self, team: str, channel: str, text: str, response_url: str | None = None) -> requests.Response:
        form = {
            "command": "/pr",
            "text": text,
            "channel_id": channel,
            "user_id": HUMAN,
            "team_id": team,
            "response_url": response_url or self.slack.new_response_url(),
            "trigger_id": f"{next(self.counter)}.1.abc",
        }
        return self._signed(urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded", 0)

    def _signed(self, body: bytes, content_type: str, replica: int) -> requests.Response:
        headers = signed_headers(SECRET, body, content_type)
        return requests.post(f"{self.replicas[replica].url}/slack/events", data=body, headers=headers, timeout=10)


def _state_in(page: str) -> str:
    """The `state` of the authorize link on Bolt's install page."""
    found = re.search(r"[?&]state=([^&\"']+)", page)
    assert found, page
    return urllib.parse.unquote(found.group(1))


def oauth_env(slack: FakeSlack, github: FakeGitHub, model: FakeOpenAI, redis_url: str, config: Path) -> dict[str, str]:
    return fakes_env(github, model, slack, redis_url, config) | {
        "SLACK_CLIENT_ID": CLIENT_ID,
        "SLACK_CLIENT_SECRET": CLIENT_SECRET,
        "SLACK_SCOPES": "chat:write,commands,app_mentions:read",
        "PRDIGEST_SECRET_KEY": SECRET_KEY,
    }


@contextlib.contextmanager
def serve_oauth(
    github: FakeGitHub,
    model: FakeOpenAI,
    redis_url: str,
    config_dir: Path,
    *,
    config_text: str = CONFIG,
    now: Callable[[], datetime] | None = None,
) -> Iterator[OAuthHarness]:
    """`config_text` (CONFIG: the home workspace's one channel) and `now` (the real clock) as in
    serve_harness."""
    with FakeSlack() as slack, contextlib.ExitStack() as stack:
        config = config_dir / "prdigest.toml"
        config.write_text(config_text, encoding="utf-8")
        settings = load_settings(oauth_env(slack, github, model, redis_url, config))
        replicas = []
        for _ in range(2):
            services = build_process(settings, harness_timing(now), warn=lambda message: None)
            stack.callback(services.close)
            wired = wire_slack(services)
            parts = slack_app(wired)
            server = http_server(parts, "127.0.0.1", 0)
            thread = threading.Thread(target=server.run, daemon=True)
            thread.start()
            stack.callback(thread.join, 10)
            stack.callback(server.stop)
            replicas.append(Replica(services, wired, parts, f"http://127.0.0.1:{server.effective_port}"))
        yield OAuthHarness(slack, (replicas[0], replicas[1]), iter(range(1, 10**9)))


@pytest.fixture
def oauth(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[OAuthHarness]:
    with serve_oauth(github, model, redis_url, tmp_path) as served:
        yield served
