"""Private names in a shared channel's replies, on a real `prdigest serve --http`.

    .venv/bin/python scripts/probes/shared_names.py

Starts fake Slack, GitHub and OpenAI on loopback, a redis-server of its own and `prdigest serve
--http` pointed at them, with one channel configured for a private repository that Slack says
is shared with another organisation (conversations.info: is_ext_shared). Then, with signed
requests, as a person there who types no repository: `/pr following`, `/pr digest`, `/pr #2`,
`/pr watch #7`, an @mention of "#3", "what merged this week?" and a click on a Share button of the repository's
#7. Prints how often the repository's name reached Slack in the replies (chat.* calls, the
response_url payloads and the acknowledgements): issue 23's target is 0. A `/pr acme/secret#7`
typed by the person is named back; it is asked last and counted apart.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.ports import free_port
from devkit.redis_server import RedisServer
from devkit.slack_signing import signed_headers

ROOT = Path(__file__).resolve().parents[2]
SECRET = "shared-names-signing-secret"
CHANNEL = "C0SHARED01"
REPO = "acme/secret"
USER = "U0GUEST001"  # of the other organisation


def serve(slack: FakeSlack, github: FakeGitHub, model: FakeOpenAI, redis_url: str, workdir: Path) -> Any:
    config = workdir / "prdigest.toml"
    config.write_text(f'[[channels]]\nid = "{CHANNEL}"\nrepos = ["{REPO}"]\n', encoding="utf-8")
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "GITHUB_", "OPENAI_", "REDIS_"))},
        "PRDIGEST_CONFIG": str(config),
        "GITHUB_API_URL": github.url,
        "GITHUB_TOKEN": "probe",
        "OPENAI_API_KEY": "probe",
        "OPENAI_BASE_URL": f"{model.url}/v1",
        "REDIS_URL": redis_url,
        "SLACK_BOT_TOKEN": slack.bot_token,
        "SLACK_SIGNING_SECRET": SECRET,
        "SLACK_API_URL": slack.api_url,
    }
    command = [sys.executable, "-m", "bot.cli", "serve", "--http", "--host", "127.0.0.1", "--port", str(port)]
    process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if requests.get(f"{base}/healthz", timeout=1).ok:
                return process, base
        except requests.ConnectionError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"the server did not start: {process.communicate()[1].decode(errors='replace')}")


def post(base: str, body: bytes, content_type: str) -> requests.Response:
    headers = signed_headers(SECRET, body, content_type)
    return requests.post(f"{base}/slack/events", data=body, headers=headers, timeout=10)


def command(base: str, slack: FakeSlack, text: str) -> tuple[str, requests.Response]:
    url = slack.new_response_url()
    form = {
        "command": "/pr",
        "text": text,
        "channel_id": CHANNEL,
        "user_id": USER,
        "team_id": "T0TEST",
        "response_url": url,
        "trigger_id": f"{time.time_ns()}.1.abc",
    }
    return url.rsplit("/", 1)[-1], post(
        base, urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
    )


def mention(base: str, slack: FakeSlack, text: str, index: int) -> tuple[str, requests.Response]:
    ts = slack.add_message(CHANNEL, f"<@UBOT> {text}")
    event = {"type": "app_mention", "channel": CHANNEL, "user": USER, "text": f"<@UBOT> {text}", "ts": ts}
    envelope = {"type": "event_callback", "team_id": "T0TEST", "event_id": f"EvShared{index}", "event": event}
    return ts, post(base, json.dumps(envelope).encode(), "application/json")


def share(base: str, slack: FakeSlack, ref: str) -> tuple[str, requests.Response]:
    url = slack.new_response_url()
    payload = {
        "type": "block_actions",
        "team": {"id": "T0TEST"},
        "user": {"id": USER},
        "channel": {"id": CHANNEL},
        "response_url": url,
        "trigger_id": f"{time.time_ns()}.2.abc",
        "actions": [
            {
                "action_id": "share_card",
                "block_id": "b",
                "type": "button",
                "action_ts": f"{time.time():.6f}",
                "value": json.dumps({"pr": ref, "by": USER}, separators=(",", ":")),
            }
        ],
    }
    body = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
    return url.rsplit("/", 1)[-1], post(base, body, "application/x-www-form-urlencoded")


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 20.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise RuntimeError(f"no answer in time: {what}")


def replies(slack: FakeSlack, paths: tuple[str, ...] = ("/api/chat.", "/api/assistant.", "/response/")) -> list[str]:
    """The bodies of every reply-bearing request fake Slack got (chat.*, assistant.*, response_url)."""
    return [request.body.decode(errors="replace") for request in slack.requests if request.path.startswith(paths)]


def main() -> None:
    with (
        TemporaryDirectory() as tmp,
        RedisServer() as redis,
        FakeSlack() as slack,
        FakeGitHub() as github,
        FakeOpenAI() as model,
    ):
        github.add_repo(REPO, private=True)
        merged = datetime.now(UTC) - timedelta(hours=30)
        for number in (2, 3, 7):
            github.add_pr(
                REPO,
                number,
                title=f"Secret change {number}",
                merged_at=merged,
                files=[{"path": f"secret/{number}.py", "additions": 4, "deletions": 1}],
            )
        slack.channel_info[CHANNEL] = {"is_ext_shared": True, "is_shared": True}
        process, base = serve(slack, github, model, redis.url, Path(tmp))
        try:
            acks: list[requests.Response] = []
            hooks = []
            for text in ("following", "digest", "#2", "watch #7"):
                hook, ack = command(base, slack, text)
                hooks.append(hook)
                acks.append(ack)
            hook, ack = share(base, slack, f"{REPO}#7")
            hooks.append(hook)
            acks.append(ack)
            bare_ts, ack = mention(base, slack, "what does #3 change?", 1)
            acks.append(ack)
            _, ack = mention(base, slack, "what merged this week?", 2)
            acks.append(ack)
            # Each command and the click answer once through their response_url.
            wait_for(lambda: all(slack.responses[hook] for hook in hooks), "the commands' answers")
            wait_for(lambda: any(e.get("thread_ts") == bare_ts for e in slack.ephemeral), "@mention #3")
            # The two refusals through the Web API (the @mention's ephemeral, the week's reply),
            # besides the response_url ones above.
            wait_for(
                lambda: sum("can't answer" in body for body in replies(slack, ("/api/chat.",))) >= 2,
                "what merged this week?",
            )
            told = replies(slack) + [ack.text for ack in acks]
            named = sum(text.lower().count(REPO) for text in told)
            leaking = [text for text in told if REPO in text.lower()]
            print(
                f"shared channel: {len(told)} replies to a person who typed no repository; "
                f"{REPO} named {named} times, in {len(leaking)} of them (target: 0)"
            )
            for text in leaking:
                print("  ", text[:160])
            before = len(replies(slack))
            hook, ack = command(base, slack, f"{REPO}#7")
            wait_for(lambda: slack.responses[hook], "typed /pr")
            typed = [*replies(slack)[before:], ack.text]
            print(
                f"typed by the person (/pr {REPO}#7): named {sum(t.lower().count(REPO) for t in typed)} times, "
                f"e.g. {slack.responses[hook][-1]['text']!r}"
            )
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


if __name__ == "__main__":
    main()
