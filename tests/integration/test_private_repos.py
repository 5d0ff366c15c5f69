"""Private repositories stay in the channels configured for them, never in shared ones."""

from __future__ import annotations

import json

import pytest

from bot.errors import PublishError
from bot.models import DigestOptions, Filters, Window
from tests.integration.conftest import day
from tests.integration.slack_harness import OTHER_CHANNEL, OTHER_REPO, SlackHarness, secret_pr, wait_for

WINDOW = Window(day(0), day(24))


def test_mention_elsewhere_is_refused_to_the_asker_alone(harness: SlackHarness) -> None:
    secret_pr(harness)
    ts, _ = harness.mention("C0RANDOM01", f"what does {OTHER_REPO}#7 change?")
    (refusal,) = wait_for(lambda: harness.slack.ephemeral)
    assert refusal["user"] == "U0HUMAN001"
    assert "Rotate" not in json.dumps(refusal) and "keys" not in json.dumps(refusal).lower()
    assert harness.slack.thread("C0RANDOM01", ts) == []
    assert harness.model.calls == 0


def test_slash_command_elsewhere_is_refused(harness: SlackHarness) -> None:
    secret_pr(harness)
    hook, _ = harness.command(f"{OTHER_REPO}#7", channel="C0RANDOM01")
    (payload,) = wait_for(lambda: harness.slack.responses[hook])
    assert "can't answer about acme/widgets here" in payload["text"]
    assert "Rotate" not in json.dumps(payload)
    assert harness.model.calls == 0


def test_its_own_channel_is_answered(harness: SlackHarness) -> None:
    secret_pr(harness)
    ts, _ = harness.mention(OTHER_CHANNEL, f"what does {OTHER_REPO}#7 change?")
    wait_for(lambda: any("rotates keys" in json.dumps(m["blocks"]) for m in harness.slack.thread(OTHER_CHANNEL, ts)))


def test_private_digest_never_goes_to_an_externally_shared_channel(harness: SlackHarness) -> None:
    secret_pr(harness)
    harness.slack.channel_info[OTHER_CHANNEL] = {"is_ext_shared": True, "is_shared": True}
    with pytest.raises(PublishError, match="private and C0OTHER001 is shared"):
        harness.parts.digests.run(
            OTHER_CHANNEL, "2026-08-05", WINDOW, (OTHER_REPO,), options=DigestOptions("en", Filters(), "note")
        )
    assert harness.slack.messages(OTHER_CHANNEL) == []
    hook, _ = harness.command(f"{OTHER_REPO}#7", channel=OTHER_CHANNEL)
    assert "can't answer about" in wait_for(lambda: harness.slack.responses[hook])[0]["text"]


def test_public_repo_of_a_shared_channel_is_still_posted(harness: SlackHarness) -> None:
    harness.slack.channel_info[OTHER_CHANNEL] = {"is_ext_shared": True}
    harness.github.add_pr(
        OTHER_REPO,
        8,
        title="Public change",
        merged_at=day(3),
        files=[{"path": "a.py", "additions": 40, "deletions": 2}],
    )
    result = harness.parts.digests.run(
        OTHER_CHANNEL, "2026-08-05", WINDOW, (OTHER_REPO,), options=DigestOptions("en", Filters(), "note")
    )
    assert result is not None and result.posted == 2
