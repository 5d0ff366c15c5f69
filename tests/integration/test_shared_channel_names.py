"""In a channel shared with another organisation, a reply names nothing private the asker did
not type: `/pr following`, `/pr digest`, the refusals of `/pr #N`, an @mention's #N, a question
across days and a Share click say "a private repository" instead (access/disclosure.py);
`/pr watch #N` asks for the repository, and the settings form is not shown."""

from __future__ import annotations

import json
import urllib.parse
from pathlib import Path
from typing import Any

import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.render.slack.subscriptions import SETTINGS_ACTION, SETTINGS_CALLBACK
from tests.integration.slack_harness import (
    HUMAN,
    OTHER_CHANNEL,
    OTHER_REPO,
    SlackHarness,
    add_secret_pr,
    wait_for,
)
from tests.integration.test_subscriptions import NEW, PRIVATE, prepare, run, served

# Every Web API method a reply in a channel goes through (posts, edits, streams, statuses).
REPLY_METHODS = (
    "chat.postMessage",
    "chat.postEphemeral",
    "chat.update",
    "chat.startStream",
    "chat.appendStream",
    "chat.stopStream",
    "assistant.threads.setStatus",
)


def share_channel(harness: SlackHarness, channel: str = OTHER_CHANNEL) -> None:
    """The channel becomes a Slack Connect one; the hour of remembered sharing is over."""
    harness.slack.channel_info[channel] = {"is_ext_shared": True, "is_shared": True}
    harness.services.kv.delete(f"sharing:{channel}")


def told(harness: SlackHarness, channel: str, hooks: list[str], acks: list[requests.Response]) -> list[str]:
    """Everything the bot told `channel`: Web API calls there, the commands' response_url
    payloads and the acknowledgements Slack showed the asker."""
    texts = [
        json.dumps(call)
        for method in REPLY_METHODS
        for call in harness.slack.calls(method)
        if call.get("channel") == channel
    ]
    texts += [json.dumps(payload) for hook in hooks for payload in harness.slack.responses[hook]]
    return texts + [ack.text for ack in acks]


def names(texts: list[str], repo: str = OTHER_REPO) -> int:
    """How many times `repo` is named in `texts` (any case)."""
    return sum(text.lower().count(repo.lower()) for text in texts)


def command(harness: SlackHarness, text: str, hooks: list[str], acks: list[requests.Response]) -> list[dict[str, Any]]:
    hook, ack = harness.command(text, channel=OTHER_CHANNEL)
    hooks.append(hook)
    acks.append(ack)
    assert ack.status_code == 200
    return wait_for(lambda: harness.slack.responses[hook])  # type: ignore[no-any-return]


def test_a_shared_channels_replies_name_no_private_repository_nobody_typed(harness: SlackHarness) -> None:
    add_secret_pr(harness)  # OTHER_CHANNEL's repository, private, configured for it in the file
    hooks: list[str] = []
    acks: list[requests.Response] = []
    # While the channel is the organisation's own, its repository is named.
    (own,) = command(harness, "following", hooks, acks)
    assert OTHER_REPO in own["text"]

    share_channel(harness)
    hooks, acks = [], []
    (following,) = command(harness, "following", hooks, acks)
    (digest,) = command(harness, "digest", hooks, acks)
    (bare,) = command(harness, "#2", hooks, acks)
    (watch,) = command(harness, "watch #7", hooks, acks)
    mention_ts, ack = harness.mention(OTHER_CHANNEL, "what does #3 change?")
    acks.append(ack)
    week_ts, ack = harness.mention(OTHER_CHANNEL, "what merged this week?")
    acks.append(ack)
    share = json.dumps({"pr": f"{OTHER_REPO}#7", "by": HUMAN}, separators=(",", ":"))
    hook, ack = harness.action(share, channel=OTHER_CHANNEL)
    hooks.append(hook)
    acks.append(ack)
    harness.settle()

    assert names(told(harness, OTHER_CHANNEL, hooks, acks)) == 0
    assert "a private repository" in following["text"]
    assert "a private repository can't be shown in" in digest["text"]
    assert (
        bare["text"]
        == "This channel is set up for other repositories, so I can't answer about a private repository here."
    )
    # Neither named back nor assumed: the person is asked to name the repository.
    assert watch["text"] == "'#7' does not say which repository; write owner/repo#7"
    refusals = {e["thread_ts"]: e["text"] for e in harness.slack.ephemeral}
    assert "a private repository" in refusals[mention_ts]
    week = refusals.get(week_ts) or json.dumps(harness.slack.thread(OTHER_CHANNEL, week_ts))
    assert "a private repository" in week
    (shared,) = harness.slack.responses[hook]
    assert "a private repository" in shared["text"]
    assert harness.model.calls == 0


def test_a_repository_the_asker_typed_is_named_back(harness: SlackHarness) -> None:
    add_secret_pr(harness)
    share_channel(harness)
    hooks: list[str] = []
    acks: list[requests.Response] = []
    (typed,) = command(harness, f"{OTHER_REPO.upper()}#7", hooks, acks)
    assert (
        typed["text"]
        == f"This channel is set up for other repositories, so I can't answer about {OTHER_REPO.upper()} here."
    )
    ts, _ = harness.mention(OTHER_CHANNEL, f"what merged in {OTHER_REPO} this week?")
    (refusal,) = wait_for(lambda: harness.slack.ephemeral)
    assert refusal["thread_ts"] == ts and OTHER_REPO in refusal["text"]
    assert harness.model.calls == 0


def test_following_a_channel_set_up_from_slack_unnames_its_private_repository_and_its_last_change(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    with served(github, model, redis_url, tmp_path, f'followable_private_repos = ["{PRIVATE}"]') as harness:
        prepare(harness)
        assert f"now follows {OTHER_REPO}, {PRIVATE}." in run(harness, f"follow {OTHER_REPO} {PRIVATE}")
        assert f"followed {OTHER_REPO}, {PRIVATE}" in run(harness, "following")

        share_channel(harness, NEW)
        shown = run(harness, "following")
        assert PRIVATE not in shown.lower()
        assert f"Repositories: {OTHER_REPO}, a private repository" in shown  # the public one is named
        assert f"followed {OTHER_REPO}, a private repository" in shown
        # Typed by the asker, it is named back.
        assert run(harness, f"unfollow {PRIVATE}") == f"This channel no longer follows {PRIVATE}."


def test_the_settings_form_of_a_shared_channel_with_a_private_repository_is_not_shown(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    """The form lists every repository the channel follows (to save them all): in a shared channel
    it would name the private one, so both ways in (/pr settings, the App Home) say why not."""
    with served(github, model, redis_url, tmp_path, f'followable_private_repos = ["{PRIVATE}"]') as harness:
        prepare(harness)
        run(harness, f"follow {OTHER_REPO} {PRIVATE}")
        share_channel(harness, NEW)

        assert "form is not shown here" in run(harness, "settings")
        click = {
            "type": "block_actions",
            "team": {"id": "T0TEST"},
            "user": {"id": HUMAN},
            "trigger_id": harness.trigger_id(),
            "view": {"id": "VHOME", "type": "home"},
            "actions": [{"action_id": SETTINGS_ACTION, "block_id": "b", "value": NEW, "type": "button"}],
        }
        harness.signed(
            urllib.parse.urlencode({"payload": json.dumps(click)}).encode(), "application/x-www-form-urlencoded"
        )
        (notice,) = wait_for(lambda: list(harness.slack.modals.values()))
        harness.settle()
        assert notice.get("callback_id") != SETTINGS_CALLBACK
        assert "form is not shown here" in json.dumps(notice) and PRIVATE not in json.dumps(notice)
        assert [call for call in harness.slack.calls("views.open") if PRIVATE in json.dumps(call)] == []
