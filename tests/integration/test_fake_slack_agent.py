"""FakeSlack's setSuggestedPrompts and chat.unfurl answer the real WebClient as Slack does."""

from __future__ import annotations

from typing import Any

from devkit.fakes.slack import FakeSlack
from slack_sdk import WebClient

from tests.integration import fake_slack_server
from tests.integration.fake_slack_server import error_of

server, slack, client = fake_slack_server.server, fake_slack_server.slack, fake_slack_server.client

URL = "https://github.com/a/b/pull/1"


def unfurl(text: str) -> dict[str, Any]:
    return {URL: {"blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]}}


def test_prompts_are_one_to_four_each_with_a_title_and_a_message(slack: FakeSlack, client: WebClient) -> None:
    prompt = {"title": "T", "message": "M"}
    client.assistant_threads_setSuggestedPrompts(channel_id="D1", title="Try", prompts=[prompt])
    assert slack.prompts == [{"channel_id": "D1", "title": "Try", "prompts": [prompt]}]
    for bad in ([], [prompt] * 5, [{"title": "T"}], [{"title": "", "message": "M"}]):
        assert error_of(lambda bad=bad: client.assistant_threads_setSuggestedPrompts(channel_id="D1", prompts=bad)) == (
            "invalid_arguments"
        )
    assert len(slack.prompts) == 1


def test_a_second_unfurl_of_the_same_message_replaces_the_first(slack: FakeSlack, client: WebClient) -> None:
    ts = slack.add_message("C1", f"see {URL}")
    client.chat_unfurl(channel="C1", ts=ts, unfurls=unfurl("first"))
    client.chat_unfurl(channel="C1", ts=ts, unfurls=unfurl("second"))
    assert list(slack.unfurls) == [("C1", ts)]
    assert "second" in str(slack.unfurls[("C1", ts)]) and "first" not in str(slack.unfurls[("C1", ts)])
    client.chat_unfurl(unfurl_id="U-1", source="composer", unfurls=unfurl("typed"))
    assert ("U-1", "composer") in slack.unfurls


def test_unfurl_refusals_are_slacks(slack: FakeSlack, client: WebClient) -> None:
    ts = slack.add_message("C1", "no link here")
    assert error_of(lambda: client.chat_unfurl(channel="C1", ts=ts, unfurls=unfurl("x"))) == "cannot_unfurl_message"
    assert error_of(lambda: client.chat_unfurl(channel="C1", ts="1.2", unfurls=unfurl("x"))) == "cannot_find_message"
    assert error_of(lambda: client.chat_unfurl(channel="C1", unfurls=unfurl("x"))) == "missing_ts"
    assert error_of(lambda: client.chat_unfurl(unfurl_id="U-1", unfurls=unfurl("x"))) == "missing_source"
    assert error_of(lambda: client.chat_unfurl(channel="C1", ts=ts)) == "missing_unfurls"
    assert error_of(lambda: client.chat_unfurl(channel="C1", ts=ts, unfurls={URL: {}})) == "cannot_parse_attachment"
