"""Publisher in one process: a digest's lead and thread parts posted at Slack's pace, once per
channel and day, finished (never repeated) by the next run after a stop, a crash or a lost ledger.

The Slack client is an in-process fake with the Web API methods Publisher calls. It answers with
slack_sdk's own SlackResponse and refuses with the SlackApiError that SlackResponse.validate()
raises, as WebClient does; time is a devkit Clock the publisher sleeps on.
"""

from __future__ import annotations

import itertools
import logging
import urllib.error
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

import pytest
from devkit.clocks import Clock
from slack_sdk import WebClient
from slack_sdk.web.slack_response import SlackResponse

from bot.core.pacing import Pacing
from bot.digests.publisher import METADATA_EVENT, PostPace, Publisher, PublishResult
from bot.errors import PublishError, SlackError
from bot.models import Card, Coverage, Digest, DigestItem, Note, Window
from bot.render.slack.blocks import thread_messages
from bot.render.slack.digest_messages import DigestBlocks
from bot.slack.web import SlackWeb
from bot.store.backends.memory import MemoryKV
from bot.store.ledger import PostLedger
from bot.store.threads import ThreadStore
from tests.unit.builders import make_listing

CHANNEL = "C0DIGEST01"
OTHER_CHANNEL = "C0DIGEST02"
DAY = "2026-08-04"
WINDOW = Window(datetime(2026, 8, 4, tzinfo=UTC), datetime(2026, 8, 5, tzinfo=UTC))
PACE = 1.0
# Enough cards for three thread messages (a message holds at most 50 blocks).
CARDS = 40


class Died(Exception):
    """The process ended here (a deploy, an OOM kill): nothing after this line ran."""


@dataclass
class Post:
    at: float
    args: dict[str, Any]


@dataclass
class FakeSlack:
    """chat.postMessage, conversations.history and conversations.replies over in-memory channels."""

    clock: Clock
    # Top-level messages per channel, oldest first, and each thread's replies.
    channels: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    threads: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    posts: list[Post] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)
    refuse: dict[str, str] = field(default_factory=dict)  # API method → Slack's error name
    unreachable: set[str] = field(default_factory=set)  # API methods that get no answer
    die_after_post: int | None = None  # the process dies once Slack has taken this many posts

    def chat_postMessage(self, **args: Any) -> SlackResponse:
        self._answer_or_fail("chat.postMessage")
        ts = f"1785801600.{len(self.posts) + 1:06d}"
        message = {"type": "message", "ts": ts, "text": args["text"], "metadata": args["metadata"]}
        thread_ts = args.get("thread_ts")
        if thread_ts is None:
            self.channels.setdefault(args["channel"], []).append(message)
        else:
            self.threads.setdefault(thread_ts, []).append({**message, "thread_ts": thread_ts})
        self.posts.append(Post(self.clock(), args))
        if self.die_after_post == len(self.posts):
            raise Died
        return _response("chat.postMessage", {"ok": True, "channel": args["channel"], "ts": ts, "message": message})

    def conversations_history(self, *, channel: str, **args: Any) -> SlackResponse:
        self._answer_or_fail("conversations.history")
        self.reads.append("history")
        newest_first = list(reversed(self.channels.get(channel, [])))[: args.get("limit", 100)]
        return _response("conversations.history", {"ok": True, "messages": newest_first, "has_more": False})

    def conversations_replies(self, *, channel: str, ts: str, **args: Any) -> SlackResponse:
        self._answer_or_fail("conversations.replies")
        self.reads.append("replies")
        parent = [message for message in self.channels.get(channel, []) if message["ts"] == ts]
        return _response("conversations.replies", {"ok": True, "messages": parent + self.threads.get(ts, [])})

    def _answer_or_fail(self, method: str) -> None:
        if method in self.unreachable:
            raise urllib.error.URLError(ConnectionRefusedError(111, "Connection refused"))
        if method in self.refuse:
            _response(method, {"ok": False, "error": self.refuse[method]}).validate()  # raises SlackApiError

    def thread_parts(self, thread_ts: str) -> list[int]:
        return [message["metadata"]["event_payload"]["part"] for message in self.threads.get(thread_ts, [])]


def _response(method: str, data: dict[str, Any]) -> SlackResponse:
    """What WebClient returns: a SlackResponse, dict-like and iterable page by page."""
    return SlackResponse(
        client=None,
        http_verb="POST",
        api_url=f"https://slack.com/api/{method}",
        req_args={},
        data=data,
        headers={},
        status_code=200,
    )


def card(number: int) -> Card:
    return Card(
        headline=f"Widget change {number}",
        verdict="read" if number % 3 == 0 else "skim",
        minutes=5,
        why=("Reworks the rendering path",),
        caveats=(),
        watch=(),
        source="llm",
        coverage=Coverage(files_total=1, files_read=1),
    )


def digest(cards: int = CARDS) -> Digest:
    items = tuple(
        DigestItem(make_listing(number=n, title=f"Widget change {n}"), card(n), size=10, paths=("widgets/core.py",))
        for n in range(1, cards + 1)
    )
    return Digest(repos=("acme/widgets",), window=WINDOW, total_merged=cards + 2, items=items)


QUIET = digest(0)


@dataclass
class Rig:
    slack: FakeSlack
    kv: MemoryKV
    clock: Clock
    publisher: Publisher

    @property
    def ledger(self) -> dict[str, str]:
        return PostLedger(self.kv).entries(CHANNEL, DAY)

    def restarted(self, *, ledger_lost: bool = False) -> Rig:
        """The next run: a new process, on the same channel and (unless it was lost) the same ledger."""
        return rig(self.slack, MemoryKV() if ledger_lost else self.kv)


def rig(slack: FakeSlack | None = None, kv: MemoryKV | None = None) -> Rig:
    clock = slack.clock if slack else Clock()
    slack = slack or FakeSlack(clock)
    kv = kv or MemoryKV()
    # SlackWeb is typed for WebClient; the publisher asks it for only the three methods FakeSlack has.
    client = SlackWeb(cast(WebClient, slack))
    publisher = Publisher(
        client,
        PostLedger(kv),
        ThreadStore(kv),
        messages=DigestBlocks(),
        pace=PostPace(PACE, Pacing(clock, clock.sleep)),
    )
    return Rig(slack, kv, clock, publisher)


def parts() -> int:
    """Thread messages of the standard digest, the lead aside."""
    count = len(thread_messages(digest()))
    assert count >= 3, "the test digest should fill several thread messages"
    return count


# -- a digest, posted ------------------------------------------------------------------------------


def test_the_lead_goes_to_the_channel_and_the_cards_into_its_thread() -> None:
    r = rig()
    result = r.publisher.publish(CHANNEL, DAY, digest())

    lead, *rest = r.slack.posts
    assert lead.args["channel"] == CHANNEL and lead.args["thread_ts"] is None
    assert result.thread_ts is not None
    assert result == PublishResult(thread_ts=result.thread_ts, posted=1 + parts(), already=0)
    assert result.thread_ts == r.slack.channels[CHANNEL][0]["ts"]
    assert [post.args["thread_ts"] for post in rest] == [result.thread_ts] * parts()
    assert r.slack.thread_parts(result.thread_ts) == list(range(1, parts() + 1))
    assert [post.args["text"] for post in rest] == [message.text for message in thread_messages(digest())]


def test_each_message_carries_its_day_and_part_and_unfurls_nothing() -> None:
    r = rig()
    r.publisher.publish(CHANNEL, DAY, digest())

    for part, post in enumerate(r.slack.posts):
        assert post.args["metadata"] == {"event_type": METADATA_EVENT, "event_payload": {"day": DAY, "part": part}}
        assert post.args["unfurl_links"] is False and post.args["unfurl_media"] is False
        assert post.args["blocks"]


def test_posts_to_one_channel_are_a_pace_apart() -> None:
    r = rig()
    r.publisher.publish(CHANNEL, DAY, digest())

    times = [post.at for post in r.slack.posts]
    assert [later - earlier for earlier, later in itertools.pairwise(times)] == [PACE] * parts()
    assert r.clock.slept == [PACE] * parts()  # the first post waits for nothing


def test_the_pace_is_per_channel_and_time_already_past_counts() -> None:
    r = rig()
    r.publisher.publish(CHANNEL, DAY, digest(1))  # a lead and one thread message
    slept = len(r.clock.slept)

    r.publisher.publish(OTHER_CHANNEL, DAY, digest(1))
    # Another channel's first post does not wait for this one's last.
    assert r.clock.slept[slept:] == [PACE]
    assert r.slack.posts[2].at == r.slack.posts[1].at

    # A day later the lead goes out at once: only its thread part waits.
    r.clock.now += 86_400
    slept = len(r.clock.slept)
    r.publisher.publish(CHANNEL, "2026-08-05", digest(1))
    assert r.clock.slept[slept:] == [PACE]


def test_the_thread_is_remembered_before_its_cards_are_posted() -> None:
    r = rig()
    asked: list[int] = []

    def claim(name: str) -> None:
        PostLedger(r.kv).record(CHANNEL, DAY, name, "1")
        # Questions may come in the thread while its cards are still being posted.
        asked.append(len(r.slack.posts))
        if len(asked) == 2:
            lead_ts = r.slack.channels[CHANNEL][0]["ts"]
            thread = ThreadStore(r.kv).digest(CHANNEL, lead_ts)
            assert thread is not None
            assert (thread.day, thread.repos, thread.items) == (DAY, ("acme/widgets",), digest().items)

    r.publisher.publish(CHANNEL, DAY, digest(), claim=claim)
    assert asked == list(range(1 + parts()))


# -- once per channel and day ----------------------------------------------------------------------


def test_a_second_publish_of_the_same_day_posts_nothing() -> None:
    r = rig()
    first = r.publisher.publish(CHANNEL, DAY, digest())
    second = r.restarted().publisher.publish(CHANNEL, DAY, digest())

    assert second == PublishResult(first.thread_ts, posted=0, already=1 + parts())
    assert len(r.slack.posts) == 1 + parts()
    assert r.ledger["done"] == "1"


class LeaseLost(Exception):
    pass


def test_a_run_stopped_after_some_parts_is_finished_by_the_next_posting_only_the_rest() -> None:
    r = rig()
    calls = 0

    def lose_lease_after_two(name: str) -> None:
        nonlocal calls
        calls += 1
        if calls > 2:
            raise LeaseLost
        PostLedger(r.kv).record(CHANNEL, DAY, name, "1")

    with pytest.raises(LeaseLost):
        r.publisher.publish(CHANNEL, DAY, digest(), claim=lose_lease_after_two)
    assert len(r.slack.posts) == 2 and "done" not in r.ledger
    reads = list(r.slack.reads)

    result = r.restarted().publisher.publish(CHANNEL, DAY, digest())
    lead_ts = r.slack.channels[CHANNEL][0]["ts"]
    assert result == PublishResult(lead_ts, posted=parts() - 1, already=2)
    assert len(r.slack.channels[CHANNEL]) == 1  # one lead, not two
    assert r.slack.thread_parts(lead_ts) == list(range(1, parts() + 1))
    assert r.slack.reads == reads  # the ledger knew: no read-back was needed


def test_a_message_slack_took_just_before_the_process_died_is_not_posted_again() -> None:
    r = rig()
    r.slack.die_after_post = 3  # Slack has the second thread part; the ledger only marks it pending
    with pytest.raises(Died):
        r.publisher.publish(CHANNEL, DAY, digest())
    assert r.ledger.get("pending:2") == "1" and "part:2" not in r.ledger

    r.slack.die_after_post = None
    result = r.restarted().publisher.publish(CHANNEL, DAY, digest())
    lead_ts = r.slack.channels[CHANNEL][0]["ts"]
    # The lead and the first part were recorded, the second was found: only the rest is new.
    assert (result.posted, result.already) == (parts() - 2, 3)
    # The pending part was found in the thread by its metadata: every part is there once.
    assert r.slack.thread_parts(lead_ts) == list(range(1, parts() + 1))
    assert len(r.slack.posts) == 1 + parts()
    assert r.ledger["part:2"] == r.slack.threads[lead_ts][1]["ts"]
    assert "replies" in r.slack.reads


def test_a_pending_message_that_never_reached_slack_is_posted_on_the_next_run() -> None:
    r = rig()
    r.slack.unreachable.add("chat.postMessage")
    with pytest.raises(SlackError) as raised:
        r.publisher.publish(CHANNEL, DAY, digest())
    # No answer is no refusal: Slack's transport error, and the lead stays pending.
    assert raised.value.code == SlackError.TRANSPORT
    assert r.ledger == {"pending:0": "1"}

    r.slack.unreachable.clear()
    result = r.restarted().publisher.publish(CHANNEL, DAY, digest())
    assert result.posted == 1 + parts()
    assert len(r.slack.channels[CHANNEL]) == 1


# -- a lost ledger -----------------------------------------------------------------------------------


def test_with_the_ledger_lost_what_is_already_in_the_channel_is_recorded_not_posted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    r = rig()
    first = r.publisher.publish(CHANNEL, DAY, digest())

    again = r.restarted(ledger_lost=True)
    with caplog.at_level(logging.WARNING, logger="bot.digests.publisher"):
        result = again.publisher.publish(CHANNEL, DAY, digest())

    assert result == PublishResult(first.thread_ts, posted=0, already=1 + parts())
    assert len(r.slack.posts) == 1 + parts()
    assert first.thread_ts is not None
    recorded = {name: ts for name, ts in again.ledger.items() if name.startswith("part:")}
    in_slack = [first.thread_ts, *(message["ts"] for message in r.slack.threads[first.thread_ts])]
    assert recorded == {f"part:{part}": ts for part, ts in enumerate(in_slack)}
    assert "ledger of C0DIGEST01 for 2026-08-04 was empty" in caplog.text


def test_with_the_ledger_lost_halfway_only_the_missing_parts_are_posted_in_the_same_thread() -> None:
    r = rig()
    r.slack.die_after_post = 2  # the lead and the first thread part
    with pytest.raises(Died):
        r.publisher.publish(CHANNEL, DAY, digest())

    r.slack.die_after_post = None
    result = r.restarted(ledger_lost=True).publisher.publish(CHANNEL, DAY, digest())
    lead_ts = r.slack.channels[CHANNEL][0]["ts"]
    assert result == PublishResult(lead_ts, posted=parts() - 1, already=2)
    assert len(r.slack.channels[CHANNEL]) == 1
    assert r.slack.thread_parts(lead_ts) == list(range(1, parts() + 1))


def test_recovery_takes_only_our_messages_of_that_day() -> None:
    r = rig()
    r.publisher.publish(CHANNEL, "2026-08-03", digest(1))  # yesterday's digest
    r.slack.channels[CHANNEL].append({"type": "message", "ts": "1785801699.000001", "text": "morning all"})

    result = r.restarted(ledger_lost=True).publisher.publish(CHANNEL, DAY, digest(1))
    assert result.posted == 2
    assert len(r.slack.channels[CHANNEL]) == 3


def test_a_read_back_slack_refuses_is_logged_and_the_digest_posted(caplog: pytest.LogCaptureFixture) -> None:
    r = rig()
    r.slack.refuse["conversations.history"] = "missing_scope"
    with caplog.at_level(logging.WARNING, logger="bot.digests.publisher"):
        result = r.publisher.publish(CHANNEL, DAY, digest(1))
    assert result.posted == 2
    assert "could not read back" in caplog.text


@pytest.mark.parametrize("code", ["ratelimited", "internal_error", "service_unavailable"])
def test_a_read_back_slack_defers_posts_nothing_on_a_guess(code: str) -> None:
    # The ledger was lost and the lead may be in the channel already: "not now" is no "not there".
    r = rig()
    r.publisher.publish(CHANNEL, DAY, digest(1))
    before = len(r.slack.posts)
    restarted = r.restarted(ledger_lost=True)
    r.slack.refuse["conversations.history"] = code
    with pytest.raises(SlackError) as raised:
        restarted.publisher.publish(CHANNEL, DAY, digest(1))
    assert raised.value.code == code
    assert len(r.slack.posts) == before and len(r.slack.channels[CHANNEL]) == 1


def test_a_read_back_that_gets_no_answer_posts_nothing_on_a_guess() -> None:
    r = rig()
    r.slack.unreachable.add("conversations.history")
    with pytest.raises(SlackError) as raised:
        r.publisher.publish(CHANNEL, DAY, digest())
    assert raised.value.code == SlackError.TRANSPORT
    assert (r.slack.posts, r.ledger) == ([], {})


# -- refusals ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "hint"),
    [("not_in_channel", "slack_hint.not_in_channel"), ("is_archived", "slack_hint.other")],
)
def test_a_refused_post_is_a_publish_error_with_slacks_error_and_a_hint(code: str, hint: str) -> None:
    r = rig()
    r.slack.refuse["chat.postMessage"] = code
    with pytest.raises(PublishError) as raised:
        r.publisher.publish(CHANNEL, DAY, digest())

    error = raised.value
    assert not isinstance(error, SlackError)
    assert error.note == Note("error.slack_refused", {"channel": CHANNEL, "error": code, "hint": Note(hint)})
    assert isinstance(error.__cause__, SlackError) and error.__cause__.code == code
    # Not done: the next run tries again (the lead marked pending is looked up first).
    assert r.ledger == {"pending:0": "1"}


def test_a_refused_thread_part_leaves_the_posted_ones_in_the_ledger() -> None:
    r = rig()

    def refuse_after_the_lead(name: str) -> None:
        if r.slack.posts:
            r.slack.refuse["chat.postMessage"] = "ratelimited"
        PostLedger(r.kv).record(CHANNEL, DAY, name, "1")

    with pytest.raises(PublishError, match=r"\(ratelimited\)"):
        r.publisher.publish(CHANNEL, DAY, digest(), claim=refuse_after_the_lead)
    lead_ts = r.slack.channels[CHANNEL][0]["ts"]
    assert r.ledger == {"pending:0": "1", "part:0": lead_ts, "pending:1": "1"}


# -- quiet days --------------------------------------------------------------------------------------


def test_a_quiet_day_gets_one_note_in_the_channel_once() -> None:
    r = rig()
    first = r.publisher.publish(CHANNEL, DAY, QUIET)
    second = r.restarted().publisher.publish(CHANNEL, DAY, QUIET)

    assert first == PublishResult(None, posted=1, already=0)
    assert second.posted == 0
    (note,) = r.slack.channels[CHANNEL]
    assert note["metadata"]["event_payload"] == {"day": DAY, "part": 0}
    assert r.slack.threads == {}


def test_a_silent_quiet_day_posts_nothing_and_is_done() -> None:
    r = rig()
    result = r.publisher.publish(CHANNEL, DAY, QUIET, quiet_days="silent")
    assert result == PublishResult(None, posted=0, already=0)
    assert r.slack.posts == []
    assert r.ledger == {"done": "1"}


def test_a_quiet_note_already_in_the_channel_is_not_posted_again_when_the_ledger_is_lost() -> None:
    r = rig()
    r.publisher.publish(CHANNEL, DAY, QUIET)
    result = r.restarted(ledger_lost=True).publisher.publish(CHANNEL, DAY, QUIET)
    assert result.posted == 0
    assert len(r.slack.posts) == 1
