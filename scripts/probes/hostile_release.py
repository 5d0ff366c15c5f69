"""What a real `prdigest serve --http` posts for a release whose tag is `<!channel>` (a valid git
tag name) and whose PRs carry hostile directories, labels, titles and logins: GitHub's signed
`release` event posts the lead and its thread, then `/pr release` shows the asker its preview.

    PYTHONPATH=. .venv/bin/python scripts/probes/hostile_release.py [--code DIR]

Starts a redis-server and fakes of GitHub, the model and Slack on loopback, then serve (from DIR's
code, by default this tree's: give an export of an older commit to measure it), and prints, for
each surface, the messages posted and the raw `<!`, `<@`, `<#` and foreign `<http…>` strings found
in their top-level `text` (what Slack notifies with) and in their blocks' mrkdwn.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import re
import tempfile
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.redis_server import RedisServer
from devkit.tables import table

from scripts.probes import served
from scripts.probes.served import ROOT

REPO, CHANNEL, USER = "vllm-project/vllm", "C0RELEASE1", "U0PROBE001"
WEBHOOK_SECRET = "probe-webhook-secret"
TAG, BASE = "<!channel>", "v0.1.0"
EVIL_LINK = "<http://evil.example/x|github.com>"
HOSTILE = f"<!channel> <@U0ADMIN> <#C0GENERAL> {EVIL_LINK}"
START = datetime.now(UTC) - timedelta(days=3)
CONFIG = f'[[channels]]\nid = "{CHANNEL}"\nrepos = ["{REPO}"]\nreleases = "post"\n'
# Raw markup only our own code may write: mentions, channel links, links off the repository.
RAW = re.compile(r"<[!@#]|<(?!https://github\.com/vllm-project/vllm[/|>])https?:")


def responder(request: dict[str, Any]) -> dict[str, Any] | str:
    if "response_format" in request:
        return {"headline": "A change", "verdict": "read", "minutes": 9, "why": [], "caveats": [], "watch": []}
    return "It changes the code."


def hostile_prs(github: FakeGitHub) -> None:
    paths = ("<!channel>/attention.py", "<#C0GENERAL>/kernels/a.cu", "README.md", f"{EVIL_LINK}/x.py")
    for index, path in enumerate(paths):
        github.add_pr(
            REPO,
            900 + index,
            title=f"Change {index} {HOSTILE}" if index % 2 else f"[{HOSTILE}] Change {index}",
            body=HOSTILE,
            author="<!channel>",
            labels=[EVIL_LINK, "<!here>"],
            merged_at=START + timedelta(hours=index + 1),
            files=[{"path": path, "additions": 200, "deletions": 10}],
        )
    github.add_release(REPO, BASE, START)
    github.add_release(REPO, TAG, START + timedelta(hours=10))


def deliver(base: str, payload: dict[str, Any]) -> requests.Response:
    body = json.dumps(payload).encode()
    signature = hmac.new(WEBHOOK_SECRET.encode(), body, hashlib.sha256).hexdigest()
    headers = {
        "Content-Type": "application/json",
        "X-GitHub-Event": "release",
        "X-GitHub-Delivery": str(uuid.uuid4()),
        "X-Hub-Signature-256": f"sha256={signature}",
    }
    return requests.post(f"{base}/github/webhook", data=body, headers=headers, timeout=10)


def releases(slack: FakeSlack) -> list[dict[str, Any]]:
    return [message for message in slack.messages(CHANNEL) if BASE in json.dumps(message)]


def mrkdwn(value: Any) -> list[str]:
    """The strings of blocks that Slack parses (not plain_text objects, not button values)."""
    if isinstance(value, dict):
        if value.get("type") == "plain_text":
            return []
        return [text for key, item in value.items() if key != "value" for text in mrkdwn(item)]
    if isinstance(value, list):
        return [text for item in value for text in mrkdwn(item)]
    return [value] if isinstance(value, str) else []


def raw_counts(messages: list[dict[str, Any]]) -> tuple[int, int]:
    """(raw strings in the `text` fields, raw strings in the blocks)."""
    in_text = sum(len(RAW.findall(str(message.get("text") or ""))) for message in messages)
    in_blocks = sum(len(RAW.findall(text)) for message in messages for text in mrkdwn(message.get("blocks") or []))
    return in_text, in_blocks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose bot/ to serve")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as folder,
        RedisServer() as redis_server,
        FakeGitHub() as github,
        FakeOpenAI(responder=responder) as model,
        FakeSlack() as slack,
    ):
        workdir = Path(folder)
        config = workdir / "prdigest.toml"
        config.write_text(CONFIG, encoding="utf-8")
        github.add_repo(REPO)
        hostile_prs(github)
        env = served.environment(config, slack=slack, github=github, redis_url=redis_server.url, model=model)
        env |= {"GITHUB_WEBHOOK_SECRET": WEBHOOK_SECRET, "PRDIGEST_CACHE": str(workdir / "cache.sqlite")}
        with served.Served(env, workdir, code=args.code) as server:
            release = {"tag_name": TAG, "name": HOSTILE, "draft": False, "prerelease": False}
            payload = {"action": "published", "release": release, "repository": {"full_name": REPO, "private": False}}
            assert deliver(server.base, payload).status_code in (200, 202)
            # The channel's daily digest may come too (its post time passed): the lead names the base.
            lead: dict[str, Any] = served.until(lambda: next(iter(releases(slack)), {}), 60, "release lead")
            served.until(lambda: slack.thread(CHANNEL, lead["ts"]), 60, "release thread")
            hook = slack.new_response_url()
            served.command(server.base, f"release {REPO} {TAG}", channel=CHANNEL, user=USER, response_url=hook)
            hook_id = hook.rsplit("/", 1)[-1]
            served.until(lambda: slack.responses.get(hook_id), 60, "/pr release preview")
            served.until(lambda: server.process.poll() is None, 1, "server")  # it is still up
        thread = slack.thread(CHANNEL, lead["ts"])
        rows = []
        for surface, messages in (
            ("release lead (webhook)", [lead]),
            ("release thread", thread),
            ("/pr release preview", list(slack.responses[hook_id])),
        ):
            in_text, in_blocks = raw_counts(messages)
            rows.append([surface, str(len(messages)), str(in_text), str(in_blocks)])
        print(table(["surface", "messages", "raw in text", "raw in blocks"], rows))


if __name__ == "__main__":
    main()
