"""A channel Slack will not describe (conversations.info refuses) counts as shared with another
organisation: a private repository configured for it is neither posted nor answered about there,
until Slack says the channel is not shared. Served for real, fake Slack refusing."""

from __future__ import annotations

import json

import pytest

from bot.errors import PublishError
from bot.models import DigestOptions, Filters, Window
from tests.integration.conftest import day
from tests.integration.slack_harness import OTHER_CHANNEL, OTHER_REPO, SlackHarness, secret_pr, wait_for

WINDOW = Window(day(0), day(24))


def post(harness: SlackHarness) -> object:
    return harness.parts.digests.run(
        OTHER_CHANNEL, "2026-08-05", WINDOW, (OTHER_REPO,), options=DigestOptions("en", Filters(), "note")
    )


@pytest.mark.parametrize("error", ["channel_not_found", "missing_scope"])
def test_a_channel_slack_will_not_describe_gets_no_private_digest_or_answer(harness: SlackHarness, error: str) -> None:
    secret_pr(harness)  # OTHER_REPO is private and configured for OTHER_CHANNEL
    harness.slack.fail_next("conversations.info", error, times=1000)
    with pytest.raises(PublishError, match=f"{OTHER_REPO} is private and {OTHER_CHANNEL} is shared"):
        post(harness)
    assert harness.slack.messages(OTHER_CHANNEL) == []
    hook, _ = harness.command(f"{OTHER_REPO}#7", channel=OTHER_CHANNEL)
    (refusal,) = wait_for(lambda: harness.slack.responses[hook])
    assert f"can't answer about {OTHER_REPO} here" in refusal["text"]
    assert "Rotate" not in json.dumps(refusal) and "keys" not in json.dumps(refusal).lower()
    harness.settle()
    assert harness.model.calls == 0
    assert len(harness.slack.calls("conversations.info")) >= 2  # asked each time, never remembered as shared


def test_once_slack_describes_the_channel_as_not_shared_its_private_digest_is_posted(harness: SlackHarness) -> None:
    secret_pr(harness)
    harness.slack.fail_next("conversations.info", "channel_not_found")
    with pytest.raises(PublishError, match="is shared"):
        post(harness)
    result = post(harness)  # Slack answers now: is_ext_shared false
    assert result is not None and harness.slack.messages(OTHER_CHANNEL)
