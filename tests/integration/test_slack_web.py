"""SlackWeb (slack/web.py) through the real WebClient to the fake Slack: each call carries only
the arguments Slack's reference lists for its method (the fake warns on any other)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from devkit.fakes.slack import FakeSlack

from bot.slack.clients import build_web_client
from bot.slack.web import SlackWeb

CHANNEL = "C0WEB00001"


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


def test_an_edit_sends_only_what_chat_update_takes(slack: FakeSlack) -> None:
    web = SlackWeb(build_web_client(slack.bot_token, slack.api_url))
    blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": "*Done*"}}]
    ts = web.post(CHANNEL, "Working…")

    web.update(CHANNEL, ts, "Done", blocks)

    (update,) = slack.calls("chat.update")
    assert set(update) == {"channel", "ts", "text", "blocks"}
    assert slack.message(CHANNEL, ts)["text"] == "Done"
    assert slack.rejections == [] and slack.warnings == []
