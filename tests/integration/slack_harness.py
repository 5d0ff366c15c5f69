"""The Slack app served on loopback, driven with signed HTTP requests, talking to fake Slack,
GitHub and model servers and to a real Redis: what production does, minus the internet."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import threading
import time
import urllib.parse
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.slack_signing import signed_headers

from bot.http.server import http_server
from bot.settings import GitHubApp, Settings, load_settings
from bot.slack.app import SlackParts
from bot.store.feedback import FeedbackStore
from bot.store.ledger import PostLedger
from bot.store.subscriptions import SubscriptionStore
from bot.store.threads import ThreadStore
from bot.wiring.process import Process, build_process
from bot.wiring.slack import SlackWiring, slack_app, wire_slack
from bot.wiring.timing import Timing
from bot.workspaces.tenant import Tenant
from tests.integration.conftest import REPO, day

SECRET = "test-signing-secret"
DIGEST_CHANNEL = "C0DIGEST01"
OTHER_CHANNEL = "C0OTHER001"
OTHER_REPO = "acme/widgets"
HUMAN = "U0HUMAN001"

CONFIG = f"""
[defaults]
timezone = "UTC"

[[channels]]
id = "{DIGEST_CHANNEL}"
repos = ["{REPO}"]

[[channels]]
id = "{OTHER_CHANNEL}"
repos = ["{OTHER_REPO}"]
"""


@dataclass
class SlackHarness:
    slack: FakeSlack
    github: FakeGitHub
    model: FakeOpenAI
    services: Process
    wired: SlackWiring
    parts: SlackParts
    events_url: str
    _ids: Iterator[int] = field(default_factory=lambda: iter(range(1, 10**9)))

    @property
    def home(self) -> Tenant:
        """The single workspace's parts, as the app's listeners use them."""
        return self.wired.tenants.home

    # The single workspace's stores, read directly: what the tests look at behind the app's doors.
    @property
    def ledger(self) -> PostLedger:
        return PostLedger(self.services.kv)

    @property
    def feedback(self) -> FeedbackStore:
        return FeedbackStore(self.services.kv)

    @property
    def threads(self) -> ThreadStore:
        return ThreadStore(self.services.kv)

    @property
    def subscription_store(self) -> SubscriptionStore:
        return SubscriptionStore(self.services.kv, team=None)

    def settle(self) -> None:
        """Wait until the app has finished everything it was handed (listeners, work, digests),
        so that "nothing else happened" can be asserted without sleeping on a guess."""
        wait_for(self.parts.idle)

    # -- requests Slack would send -------------------------------------------------------

    def signed(
        self, body: bytes, content_type: str, *, secret: str = SECRET, age: int = 0, headers: Mapping[str, str] = {}
    ) -> requests.Response:
        sent = signed_headers(secret, body, content_type, timestamp=int(time.time()) - age) | dict(headers)
        return requests.post(self.events_url, data=body, headers=sent, timeout=10)

    def event(
        self, event: dict[str, Any], *, event_id: str | None = None, retry: int | None = None
    ) -> requests.Response:
        envelope = {
            "type": "event_callback",
            "team_id": "T0TEST",
            "api_app_id": "A0TEST",
            "event_id": event_id or f"Ev{next(self._ids):08d}",
            "event_time": int(time.time()),
            "event": event,
        }
        headers = {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"} if retry else {}
        return self.signed(json.dumps(envelope).encode(), "application/json", headers=headers)

    def settled(self, message: dict[str, Any]) -> bool:
        """A bot message is in its final form: not a streamed answer still to be settled into its
        reply (chat.stopStream, then one chat.update: questions/stream.py)."""
        if "stream" not in message:
            return True
        return any(call.get("ts") == message["ts"] for call in self.slack.calls("chat.update"))

    def thread_reply(self, channel: str, thread_ts: str, text: str, **extra: Any) -> tuple[str, requests.Response]:
        ts = self.slack.add_message(channel, text, thread_ts=thread_ts)
        event = {"type": "message", "channel": channel, "user": HUMAN, "text": text, "ts": ts, "thread_ts": thread_ts}
        return ts, self.event({**event, **extra})

    def mention(self, channel: str, text: str) -> tuple[str, requests.Response]:
        ts = self.slack.add_message(channel, f"<@UBOT> {text}")
        event = {"type": "app_mention", "channel": channel, "user": HUMAN, "text": f"<@UBOT> {text}", "ts": ts}
        return ts, self.event(event)

    def trigger_id(self) -> str:
        """A fresh trigger_id: Slack gives every command and every click its own, and the app
        handles each one once, so two requests sharing one would be a replay."""
        return f"{next(self._ids)}.{uuid.uuid4().int % 10**12}.{uuid.uuid4().hex[:20]}"

    def command_form(
        self, text: str, channel: str = DIGEST_CHANNEL, *, user: str = HUMAN, response_url: str | None = None
    ) -> tuple[str, bytes]:
        """A slash command's form body, as Slack would sign it, and the id of its response_url."""
        response_url = response_url or self.slack.new_response_url()
        form = {
            "command": self.services.settings.config.slack.command,
            "text": text,
            "channel_id": channel,
            "user_id": user,
            "team_id": "T0TEST",
            "response_url": response_url,
            "trigger_id": self.trigger_id(),
        }
        return response_url.rsplit("/", 1)[-1], urllib.parse.urlencode(form).encode()

    def command(self, text: str, channel: str = DIGEST_CHANNEL, **form: Any) -> tuple[str, requests.Response]:
        hook, body = self.command_form(text, channel, **form)
        return hook, self.signed(body, "application/x-www-form-urlencoded")

    def action_form(
        self,
        value: str,
        channel: str = DIGEST_CHANNEL,
        *,
        user: str = HUMAN,
        response_url: str | None = None,
        action_id: str = "share_card",
    ) -> tuple[str, bytes]:
        """A click on the Share button as Slack would sign it, and the id of its response_url."""
        response_url = response_url or self.slack.new_response_url()
        payload = {
            "type": "block_actions",
            "team": {"id": "T0TEST"},
            "user": {"id": user},
            "channel": {"id": channel},
            "response_url": response_url,
            "trigger_id": self.trigger_id(),
            "actions": [
                {
                    "action_id": action_id,
                    "block_id": "b",
                    "value": value,
                    "type": "button",
                    "action_ts": f"{time.time():.6f}",
                }
            ],
        }
        return response_url.rsplit("/", 1)[-1], urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()

    def action(self, value: str, channel: str = DIGEST_CHANNEL, **form: Any) -> tuple[str, requests.Response]:
        hook, body = self.action_form(value, channel, **form)
        return hook, self.signed(body, "application/x-www-form-urlencoded")


def wait_for(condition: Callable[[], Any], timeout: float = 10.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.02)
    pytest.fail("condition not met in time")


def fakes_env(github: FakeGitHub, model: FakeOpenAI, slack: FakeSlack, redis_url: str, config: Path) -> dict[str, str]:
    """The environment of a replica pointed at the fakes, without Slack's credentials."""
    return {
        "PRDIGEST_CONFIG": str(config),
        "GITHUB_API_URL": github.api_url,  # /api/v3 of an Enterprise fake
        "GITHUB_TOKEN": "test",
        "OPENAI_API_KEY": "test",
        "OPENAI_BASE_URL": f"{model.url}/v1",
        "REDIS_URL": redis_url,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": slack.api_url,
    }


# What a workspace that configured no model lacks: cards and answers then come from the rules.
MODEL_KEYS = ("OPENAI_API_KEY", "OPENAI_BASE_URL")


def app_settings(github: FakeGitHub, model: FakeOpenAI, slack: FakeSlack, redis_url: str, config: Path) -> Settings:
    """What a replica of the app reads from its environment, pointed at the fakes."""
    return load_settings(fakes_env(github, model, slack, redis_url, config) | {"SLACK_BOT_TOKEN": slack.bot_token})


def harness_timing(now: Callable[[], datetime] | None = None) -> Timing:
    """Quick retries and no pacing; `now` fixes the clock (the scheduler's and /pr digest's)."""
    timing = Timing(github_retries=1, github_backoff=0.01, model_timeout=10, model_retries=0, pace=0.0)
    return timing if now is None else dataclasses.replace(timing, now=now)


@contextlib.contextmanager
def serve_harness(
    github: FakeGitHub,
    model: FakeOpenAI,
    redis_url: str,
    config_dir: Path,
    *,
    config_text: str | None = None,
    now: Callable[[], datetime] | None = None,
    webhook_secret: str | None = None,
    with_model: bool = True,
    shared_slack: FakeSlack | None = None,
    github_app: GitHubApp | None = None,
) -> Iterator[SlackHarness]:
    """Fake Slack and the app served on loopback, wired to the given fakes and Redis; closed on
    exit. `with_model` False: the app is configured without a model (the fake is not asked).
    `shared_slack`: a fake Slack already serving (a second replica of the same workspace)."""
    with contextlib.nullcontext(shared_slack) if shared_slack is not None else FakeSlack() as slack:
        config = config_dir / "prdigest.toml"
        # CONFIG read at each call: a test may patch it (test_chinese_channel.py does).
        config.write_text(CONFIG if config_text is None else config_text, encoding="utf-8")
        github.add_repo(OTHER_REPO)
        env = fakes_env(github, model, slack, redis_url, config) | {"SLACK_BOT_TOKEN": slack.bot_token}
        settings = load_settings(env if with_model else {k: v for k, v in env.items() if k not in MODEL_KEYS})
        if webhook_secret is not None:
            settings = dataclasses.replace(settings, github_webhook_secret=webhook_secret)
        if github_app is not None:  # the App reads what it is installed on, GITHUB_TOKEN the rest
            settings = dataclasses.replace(settings, github_app=github_app)
        timing = harness_timing(now)
        services = build_process(settings, timing, warn=lambda message: None)
        wired = wire_slack(services)
        parts = slack_app(wired)
        server = http_server(parts, "127.0.0.1", 0)
        thread = threading.Thread(target=server.run, daemon=True)
        thread.start()
        try:
            yield SlackHarness(
                slack, github, model, services, wired, parts, f"http://127.0.0.1:{server.effective_port}/slack/events"
            )
        finally:
            # The server closes its sockets in its own thread once its loop has returned; closing
            # them from here, under its poll(), was an EBADF one run in two.
            server.stop()
            thread.join(timeout=10)
            parts.drain()  # as serve stops: no answer outlives the test to meet closed clients
            services.close()


@pytest.fixture
def harness(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    with serve_harness(github, model, redis_url, tmp_path) as served:
        yield served


def add_secret_pr(harness: SlackHarness) -> None:
    """OTHER_REPO made private, with one merged PR, #7."""
    harness.github.add_repo(OTHER_REPO, private=True)
    harness.github.add_pr(
        OTHER_REPO,
        7,
        title="Rotate the internal signing keys",
        merged_at=day(3),
        files=[{"path": "keys/rotate.py", "additions": 40, "deletions": 2}],
    )


def secret_pr(harness: SlackHarness) -> None:
    """add_secret_pr, and a model that writes its card and answers about it."""
    add_secret_pr(harness)
    harness.model.responder = lambda request: (
        {"headline": "Keys rotate daily", "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}
        if "response_format" in request
        else "It rotates keys in `keys/rotate.py`."
    )
