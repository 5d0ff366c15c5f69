"""What each caller does when Slack refuses a call, and when Slack does not answer at all, through
the real WebClient (errors mapped in bot/slack/web.py): refusals are handled where they
happen, silence is never taken for an answer."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.slack import FakeSlack
from slack_sdk import WebClient

from bot.access.policy import AccessPolicy
from bot.access.visibility import Visibility
from bot.channels.directory import ChannelDirectory
from bot.channels.members import ChannelMembers
from bot.digests.publisher import PostPace, Publisher
from bot.errors import PublishError, SlackError
from bot.models import Digest, Window
from bot.render.slack.digest_messages import DigestBlocks
from bot.settings import load_settings
from bot.slack.clients import build_web_client
from bot.slack.web import SlackWeb
from bot.sources.github import GitHubSource, build_github
from bot.sources.github_clients import ClientPerThread
from bot.store.backends.memory import MemoryKV
from bot.store.ledger import PostLedger
from bot.store.repos.facts import FactStore
from bot.store.threads import ThreadStore
from tests.integration.conftest import REPO, day

CHANNEL = "C0ERRORS01"
DAY = "2026-08-05"
QUIET = Digest(repos=(REPO,), window=Window(day(0), day(24)), total_merged=0, items=())


@pytest.fixture
def slack() -> Iterator[FakeSlack]:
    with FakeSlack() as fake:
        yield fake


def nobody_answers() -> WebClient:
    # Port 1 on loopback: nothing listens there, so the connection is refused at once.
    return build_web_client("xoxb-test", "http://127.0.0.1:1/api/")


def publisher(client: WebClient, kv: MemoryKV) -> Publisher:
    return Publisher(SlackWeb(client), PostLedger(kv), ThreadStore(kv), messages=DigestBlocks(), pace=PostPace(0.0))


def test_a_refused_post_names_slacks_error_and_what_to_do(slack: FakeSlack) -> None:
    slack.not_in_channel = {CHANNEL}  # the read-back is refused too, and only logged
    kv = MemoryKV()
    with pytest.raises(PublishError) as raised:
        publisher(build_web_client(slack.bot_token, slack.api_url), kv).publish(CHANNEL, DAY, QUIET)
    assert str(raised.value) == (
        f"Slack refused a message in {CHANNEL} (not_in_channel): "
        "invite the bot to the channel first (/invite @prdigest)"
    )
    assert "done" not in PostLedger(kv).entries(CHANNEL, DAY)


def test_when_slack_does_not_answer_nothing_is_posted_on_a_guess() -> None:
    kv = MemoryKV()
    with pytest.raises(SlackError) as raised:
        publisher(nobody_answers(), kv).publish(CHANNEL, DAY, QUIET)
    assert (raised.value.code, raised.value.kind) == (SlackError.TRANSPORT, "URLError")
    assert PostLedger(kv).entries(CHANNEL, DAY) == {}  # the read-back failed: nothing was tried


def test_a_post_that_gets_no_answer_is_a_publish_error_and_stays_pending() -> None:
    kv = MemoryKV()
    ledger = PostLedger(kv)
    ledger.record(CHANNEL, DAY, "part:1", "1.0")  # a run stopped halfway: no read-back first
    with pytest.raises(PublishError, match=r"^Slack could not be reached \(URLError\)$"):
        publisher(nobody_answers(), kv).publish(CHANNEL, DAY, QUIET)
    assert ledger.entries(CHANNEL, DAY) == {"part:1": "1.0", "pending:0": "1"}


def test_members_slack_refuses_to_list_count_as_absent(slack: FakeSlack) -> None:
    slack.members = {CHANNEL: ["U0HUMAN001"]}
    slack.fail_next("conversations.members", "fetch_members_failed")
    members = ChannelMembers(FactStore(MemoryKV()))
    client = SlackWeb(build_web_client(slack.bot_token, slack.api_url))
    assert not members.is_member(client, CHANNEL, "U0HUMAN001")
    assert members.is_member(client, CHANNEL, "U0HUMAN001")  # not remembered: asked again


def test_members_are_not_guessed_when_slack_does_not_answer() -> None:
    with pytest.raises(SlackError) as raised:
        ChannelMembers(FactStore(MemoryKV())).is_member(SlackWeb(nobody_answers()), CHANNEL, "U0HUMAN001")
    assert raised.value.code == SlackError.TRANSPORT


def access(github: FakeGitHub, client: WebClient) -> AccessPolicy:
    facts = FactStore(MemoryKV())
    clients = ClientPerThread(lambda: build_github(github.url, None, retries=0))
    source = GitHubSource(clients, authenticated=False, api_url=github.url)
    return AccessPolicy(ChannelDirectory(load_settings({}).config), Visibility(source, facts), SlackWeb(client), facts)


def test_a_channel_slack_refuses_to_describe_counts_as_shared(github: FakeGitHub, slack: FakeSlack) -> None:
    slack.fail_next("conversations.info", "channel_not_found")
    policy = access(github, build_web_client(slack.bot_token, slack.api_url))
    assert policy.externally_shared(CHANNEL)
    assert not policy.externally_shared(CHANNEL)  # not remembered: asked again


def test_sharing_is_not_guessed_when_slack_does_not_answer(github: FakeGitHub) -> None:
    with pytest.raises(SlackError) as raised:
        access(github, nobody_answers()).externally_shared(CHANNEL)
    assert raised.value.code == SlackError.TRANSPORT
