"""Every kind of message the app posts, made from PRs and a release whose every GitHub field is
hostile: the scheduled digest and its thread's answers, the weekly roll-up, a release posted from
GitHub's `release` event, `/pr release`'s preview and its shared lead and thread, `/pr`'s card,
an unfurl, the App Home and a DM's answer. Every string Slack would parse (the fallback `text`,
mrkdwn in blocks, unfurls, views, streamed markdown) is walked, and none holds a mention, a
channel link or a link to anywhere but the repository that the hostile values brought.

Written apart from bot/render/mrkdwn.py: markup is recognised here by Slack's own rules (the
formatting reference's `<!…>`, `<@…>`, `<#…>`, `<url|label>`), so a blind spot of the escaping is
not repeated by its test."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from devkit.clocks import WallClock
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack_agent import im_message, link_shared

from bot.models import DigestOptions, Filters, Window
from bot.render.slack.release_blocks import SHARE_RELEASE_ACTION
from tests.adversarial.responders import plain
from tests.integration.conftest import REPO
from tests.integration.slack_harness import DIGEST_CHANNEL, HUMAN, SlackHarness, serve_harness, wait_for
from tests.integration.test_github_webhook import SECRET, deliver

WEEKLY = "C0WEEKLY01"
READER_DM = "D0READER01"
CHANNELS = (DIGEST_CHANNEL, WEEKLY)
# Slack ids the app itself may write as mentions or links (the asker, its channels).
OUR_USERS = (HUMAN,)
MONDAY = datetime(2026, 11, 9, tzinfo=UTC)  # 2026-11-01 is a Sunday
BASE, TAG = "v0.1.0", "<!channel>"  # `<!channel>` is a valid git tag name (git check-ref-format)
EVIL_LINK = "<http://evil.example/x|github.com>"
HOSTILE = f"<!channel> <!here> <@U0ADMIN> <#C0GENERAL> <!subteam^S0ONCALL> {EVIL_LINK} &"
CONFIG = f"""
[defaults]
timezone = "UTC"
post_at = "09:00"

[[channels]]
id = "{DIGEST_CHANNEL}"
repos = ["{REPO}"]
releases = "post"

[[channels]]
id = "{WEEKLY}"
repos = ["{REPO}"]
cadence = "weekly"
weekly_on = "Mon"

[slack]
unfurl = true
"""

# Keys whose values Slack does not parse or show as text: ids, a button's value, metadata.
_NOT_SHOWN = {"value", "metadata", "private_metadata", "action_id", "block_id", "callback_id"}
_MARKUP = re.compile(r"<([^<>]*)>")
_OUR_LINK = re.compile(rf"https://github\.com/{re.escape(REPO)}(?:[/?#][^\s|]*)?\Z")


def hostile_prs(github: FakeGitHub) -> list[int]:
    """PRs whose title, body, author, labels, paths and review comments are all hostile, one
    per way an area is found (a title tag, a directory, a label), merged over the week."""
    prs: list[dict[str, Any]] = [
        {
            "title": f"[{HOSTILE}] Faster attention {HOSTILE}",
            "files": [{"path": "<!channel>/attention.py", "additions": 400, "deletions": 30}],
        },
        {
            "title": f"Remove the --old-flag option {HOSTILE} BREAKING",
            "files": [{"path": "<!channel>/kernels/<@U0ADMIN>.cu", "additions": 120, "deletions": 80}],
        },
        {"title": f"Tidy {EVIL_LINK}", "files": [{"path": "README.md", "additions": 2, "deletions": 1}]},
        {
            "title": f"Fix <#C0GENERAL> attention crash {EVIL_LINK}",
            "files": [
                {"path": "vllm/<#C0GENERAL>/attention/backend.py", "additions": 60, "deletions": 4},
                {"path": f"tests/{EVIL_LINK}/test_backend.py", "additions": 30, "deletions": 0},
            ],
        },
    ]
    numbers = []
    for index, pr in enumerate(prs):
        number = 700 + index
        github.add_pr(
            REPO,
            number,
            title=pr["title"],
            body=f"{HOSTILE}\n\nCuts latency by 12%. {HOSTILE}",
            author="<!channel>" if index % 2 == 0 else "<@U0ADMIN>",
            labels=[EVIL_LINK, "<!here>"],
            merged_at=MONDAY - timedelta(days=6 - index, hours=3),
            files=pr["files"],
            review_comments=[{"author": "<!everyone>", "body": HOSTILE, "path": pr["files"][0]["path"]}],
        )
        numbers.append(number)
    # The last one merged in the scheduled digest's day (the 24 hours before Monday 09:00).
    github.add_pr(
        REPO,
        710,
        title=f"[{HOSTILE}] Attention for the day {HOSTILE}",
        body=HOSTILE,
        author="<!channel>",
        labels=[EVIL_LINK],
        merged_at=MONDAY + timedelta(hours=2),
        files=[{"path": "<!channel>/attention_day.py", "additions": 500, "deletions": 10}],
    )
    github.add_release(REPO, BASE, MONDAY - timedelta(days=8))
    github.add_release(REPO, TAG, MONDAY + timedelta(hours=5))
    return [*numbers, 710]


@pytest.fixture(params=["plain model", "no model"])
def world(request: pytest.FixtureRequest, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    with FakeGitHub() as github, FakeOpenAI() as model:
        github.add_repo(REPO)
        model.responder = plain  # copies the PR's title and paths into what it writes
        hostile_prs(github)
        clock = WallClock(MONDAY + timedelta(hours=9, minutes=1))
        with serve_harness(
            github,
            model,
            redis_url,
            tmp_path,
            config_text=CONFIG,
            now=clock,
            webhook_secret=SECRET,
            with_model=request.param == "plain model",
        ) as harness:
            harness.slack.members = {DIGEST_CHANNEL: [HUMAN], WEEKLY: [HUMAN]}
            yield harness


def markup_problems(value: Any, where: str = "", shown: bool = True) -> list[str]:
    """Every piece of Slack markup in what Slack parses that the app did not mean to write."""
    if isinstance(value, dict):
        # plain_text objects are not parsed for mentions or links (formatting reference).
        parsed = shown and value.get("type") != "plain_text"
        return [
            problem
            for key, item in value.items()
            for problem in markup_problems(item, f"{where}.{key}", parsed and key not in _NOT_SHOWN)
        ]
    if isinstance(value, list):
        return [problem for index, item in enumerate(value) for problem in markup_problems(item, f"{where}[{index}]")]
    if not isinstance(value, str) or not shown:
        return []
    found = []
    for match in _MARKUP.finditer(value):
        inner = match[1]
        target = inner.partition("|")[0]
        if inner.startswith("!"):
            found.append(f"{where}: special mention {match[0]!r}")
        elif inner.startswith("@"):
            if target[1:] not in OUR_USERS:
                found.append(f"{where}: user mention {match[0]!r}")
        elif inner.startswith("#"):
            if target[1:] not in CHANNELS:
                found.append(f"{where}: channel link {match[0]!r}")
        elif not _OUR_LINK.match(target):
            found.append(f"{where}: link {match[0]!r}")
    return found


def everything_posted(harness: SlackHarness) -> list[tuple[str, Any]]:
    """Every Web API call's arguments and every response_url payload the app sent."""
    calls: list[tuple[str, Any]] = list(harness.slack.all_calls())
    calls += [("response_url", payload) for payloads in harness.slack.responses.values() for payload in payloads]
    return calls


def answers(harness: SlackHarness, channel: str, thread_ts: str, after: str) -> list[dict[str, Any]]:
    """The bot's settled replies in a thread since the message `after` (a question)."""
    return [
        message
        for message in harness.slack.thread(channel, thread_ts)
        if float(message["ts"]) > float(after)
        and message.get("bot_id")
        and harness.settled(message)
        and "Looking into it" not in (message.get("text") or "")
    ]


def ask(harness: SlackHarness, text: str) -> dict[str, Any]:
    hook, response = harness.command(text)
    assert response.status_code == 200
    if response.content:  # the acknowledgement's own words, shown to the asker
        harness.slack.responses.setdefault("ack", []).append({"text": response.text})
    (payload, *_) = wait_for(lambda: harness.slack.responses[hook], timeout=30)
    return dict(payload)


def release_event() -> dict[str, Any]:
    return {
        "action": "published",
        "release": {"tag_name": TAG, "draft": False, "prerelease": False, "name": HOSTILE},
        "repository": {"full_name": REPO, "private": False},
        "sender": {"login": "<!channel>"},
    }


def drive_every_surface(harness: SlackHarness) -> set[str]:
    """Each surface once; the methods Slack was called with."""
    # The scheduled digest (Monday 09:00) and the weekly roll-up, at the scheduler's tick.
    harness.parts.scheduler.tick()
    wait_for(lambda: not harness.parts.scheduler.busy, timeout=60)
    wait_for(lambda: harness.slack.messages(DIGEST_CHANNEL), timeout=30)
    (weekly, *_) = wait_for(lambda: harness.slack.messages(WEEKLY), timeout=30)
    asked, _ = harness.thread_reply(WEEKLY, weekly["ts"], "anything about attention?")
    wait_for(lambda: answers(harness, WEEKLY, weekly["ts"], asked), timeout=30)
    # A digest of the whole week, so every hostile PR is in a thread.
    week = Window(MONDAY - timedelta(days=7), MONDAY + timedelta(hours=9))
    options = DigestOptions("en", Filters(), "note")
    result = harness.parts.digests.run(DIGEST_CHANNEL, "2026-11-08", week, (REPO,), options=options)
    assert result is not None and result.thread_ts
    thread_ts = result.thread_ts
    for question in ("what does #700 change?", "which of these touch attention?"):
        asked, _ = harness.thread_reply(DIGEST_CHANNEL, thread_ts, question)
        wait_for(lambda at=asked: answers(harness, DIGEST_CHANNEL, thread_ts, at), timeout=30)  # type: ignore[misc]
        harness.settle()
    # The release, from GitHub's event, in the channel that posts releases.
    assert deliver(harness, release_event(), event="release").status_code in (200, 202)
    wait_for(lambda: len(harness.slack.messages(DIGEST_CHANNEL)) > 2, timeout=60)
    harness.settle()
    # `/pr release`'s preview to the asker, then shared by the asker's click.
    preview = ask(harness, f"release {REPO} {TAG}")
    assert "merged" in json.dumps(preview), preview
    (value,) = [
        element["value"]
        for block in preview.get("blocks", [])
        if block["type"] == "actions"
        for element in block["elements"]
        if element["action_id"] == SHARE_RELEASE_ACTION
    ]
    harness.action(value, action_id=SHARE_RELEASE_ACTION)
    harness.settle()
    # `/pr`'s card, to the asker alone.
    ask(harness, f"{REPO}#700")
    # An unfurl of a pasted link.
    url = f"https://github.com/{REPO}/pull/701"
    ts = harness.slack.add_message(DIGEST_CHANNEL, f"look: {url}")
    assert harness.event(link_shared(HUMAN, DIGEST_CHANNEL, ts, [url])).status_code == 200
    wait_for(lambda: harness.slack.calls("chat.unfurl"), timeout=30)
    # The App Home.
    harness.event({"type": "app_home_opened", "user": HUMAN, "channel": "D1", "tab": "home"})
    wait_for(lambda: harness.slack.home_views.get(HUMAN), timeout=30)
    # A DM question.
    text = f"what does {REPO}#703 change?"
    dm_ts = harness.slack.add_message(READER_DM, text, user=HUMAN)
    assert harness.event(im_message(HUMAN, READER_DM, text, dm_ts)).status_code == 200
    wait_for(lambda: answers(harness, READER_DM, dm_ts, dm_ts), timeout=30)
    harness.settle()
    return {method for method, _ in harness.slack.all_calls()}


def test_no_hostile_github_value_reaches_slack_as_markup_on_any_surface(world: SlackHarness) -> None:
    methods = drive_every_surface(world)
    # Every kind of message was made: posts (digest, weekly, release), updates, an unfurl, a view.
    assert {"chat.postMessage", "chat.unfurl", "views.publish"} <= methods
    assert world.slack.responses, "no ephemeral reply to the asker"
    posted = everything_posted(world)
    shown = json.dumps(posted)
    assert "attention" in shown and "#700" in shown and "#710" in shown
    problems = [f"{method}: {problem}" for method, args in posted for problem in markup_problems(args)]
    assert problems == [], "\n".join(problems)
    assert world.slack.rejections == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("&lt;!channel&gt; and <https://github.com/vllm-project/vllm/pull/1|#1>", []),
        (f"{TAG} <@{HUMAN}> <#{WEEKLY}>", ["special mention '<!channel>'"]),
        ("<http://evil.example/x|github.com>", ["link '<http://evil.example/x|github.com>'"]),
        ("<@U0ADMIN> <#C0GENERAL>", ["user mention '<@U0ADMIN>'", "channel link '<#C0GENERAL>'"]),
    ],
)
def test_the_walk_finds_markup_the_app_did_not_mean(text: str, expected: list[str]) -> None:
    message = {"text": text, "blocks": [{"type": "header", "text": {"type": "plain_text", "text": TAG}}]}
    assert [problem.partition(": ")[2] for problem in markup_problems(message)] == expected
