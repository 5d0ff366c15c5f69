"""Questions across days through the real app on loopback: signed mentions and thread replies,
fake Slack and GitHub (the vLLM data set of Aug 4-5), real Redis. A week's question is answered
from cached cards with links and no per-PR GitHub request; a private repository outside the
channel is refused; a revert is found by the rules the digests link by."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from devkit.fakes import dataset
from devkit.fakes.bad_models import shown
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack_agent import im_message

from bot.models import DigestOptions, Filters, Window
from bot.questions.across.days import MAX_ITEMS
from tests.integration.conftest import REPO
from tests.integration.slack_harness import CONFIG, DIGEST_CHANNEL, HUMAN, SlackHarness, serve_harness, wait_for
from tests.shared_data import shared_rows

# A Wednesday evening: "this week" is Monday Aug 3 00:00 UTC until now.
NOW = datetime(2026, 8, 5, 20, 0, tzinfo=UTC)
WEEK = Window(datetime(2026, 8, 3, tzinfo=UTC), NOW)
SECRET = "acme/secret"
SECRET_CHANNEL = "C0SECRET01"
# What GitHub is asked about one PR; the list endpoints (pulls, search) and the repository are not.
PER_PR = {"pull", "files", "comments", "reviews", "issue"}


def week_rows() -> list[dict[str, Any]]:
    return [row for row in shared_rows() if WEEK.contains(dataset.parse_time(row["merged_at"]))]


def row_paths(row: dict[str, Any]) -> list[str]:
    return [file["path"] for file in row["files"]]


def moe_share(row: dict[str, Any]) -> float:
    """The share of a row's changed lines in files with "moe" in a directory or file name."""

    def lines(file: dict[str, Any]) -> int:
        return max((file.get("additions") or 0) + (file.get("deletions") or 0), 1)

    total = sum(lines(file) for file in row["files"])
    there = sum(lines(file) for file in row["files"] if "moe" in re.split(r"[/._-]", file["path"].lower()))
    return there / total if total else 0.0


@pytest.fixture
def week(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    dataset.populate(github, week_rows())
    github.add_repo(SECRET, private=True)
    config = CONFIG + f'\n[[channels]]\nid = "{SECRET_CHANNEL}"\nrepos = ["{SECRET}"]\n'
    # No model: the answers are the rules' lists (with a model, the model writes them from the
    # cards: test_a_model_writes_a_weeks_answer_from_the_cards_alone).
    with serve_harness(
        github, model, redis_url, tmp_path, config_text=config, now=lambda: NOW, with_model=False
    ) as harness:
        yield harness


def warm(harness: SlackHarness) -> int:
    """Every PR of the week read and carded once, as the week's digests would have left them."""
    cards = harness.services.cards
    listings = cards.merged(REPO, WEEK)
    for listing in listings:
        cards.card(cards.snapshot(listing), "en", here=True)
    return len(listings)


def reply_to(harness: SlackHarness, ts: str, *, thread_ts: str | None = None) -> str:
    """The bot's reply to the message `ts` (in the thread `thread_ts`, or its own), once its
    placeholder has been replaced, or its streamed words settled into the reply."""

    def answered() -> list[dict[str, Any]]:
        replies = [
            message
            for message in harness.slack.thread(DIGEST_CHANNEL, thread_ts or ts)
            if message.get("bot_id")
            and float(message["ts"]) > float(ts)
            and "Looking into it" not in (message.get("text") or "")
        ]
        return replies if all(harness.settled(message) for message in replies) else []

    (reply,) = wait_for(answered)
    return json.dumps(reply.get("blocks", []), ensure_ascii=False) + reply.get("text", "")


def per_pr_requests(github: FakeGitHub) -> list[str]:
    return [request.path for request in github.requests if github.kind_of(request.path) in PER_PR]


def test_a_weeks_question_lists_prs_with_links_and_asks_github_nothing_per_pr(week: SlackHarness) -> None:
    merged = warm(week)
    week.github.reset_requests()
    ts, response = week.mention(DIGEST_CHANNEL, "what merged in vllm this week about MoE?")
    assert response.status_code == 200
    text = reply_to(week, ts)
    # The PRs whose title says MoE (a word, or a part of one: "fused_moe"), or most of whose changed
    # lines are in files whose directory or name says it (fused_moe/, test_moe.py): both count
    # alike. Those that change only a few MoE files count for less, and are not among the best.
    about_moe = {
        row["number"]
        for row in week_rows()
        if re.search(r"(?<![a-z])moe(?![a-z])", row["title"].lower()) or moe_share(row) >= 0.5
    }
    assert f"{len(about_moe)} of the {merged} PRs merged in vllm-project/vllm this week (Aug 3–5) match" in text
    listed = {int(number) for number in re.findall(r"<https://github\.com/vllm-project/vllm/pull/(\d+)\|#\1>", text)}
    if len(about_moe) > MAX_ITEMS:
        assert len(listed) == MAX_ITEMS and listed <= about_moe
        assert f"…and {len(about_moe) - MAX_ITEMS} more." in text
    else:
        assert listed == about_moe and "more." not in text
    assert "have no card yet" not in text
    assert per_pr_requests(week.github) == []


def test_prs_without_a_card_are_counted_and_never_fetched_inline(week: SlackHarness) -> None:
    ts, _ = week.mention(DIGEST_CHANNEL, "which of today's PRs touch MoE?")
    text = reply_to(week, ts)
    assert "matched on their titles and labels only" in text
    assert per_pr_requests(week.github) == []


def test_a_private_repository_outside_its_channel_is_refused(week: SlackHarness) -> None:
    week.github.reset_requests()
    ts, _ = week.mention(DIGEST_CHANNEL, f"what merged in {SECRET} this week?")
    # Told to the asker alone, naming only what they typed, as a PR of it would be; the thread
    # gets nothing, not even a status.
    (told,) = wait_for(lambda: week.slack.ephemeral)
    assert f"can't answer about {SECRET} here" in told["text"] and told["user"] == HUMAN
    week.settle()
    assert [m for m in week.slack.thread(DIGEST_CHANNEL, ts) if m.get("bot_id")] == []
    assert week.slack.statuses == []
    assert not [request.path for request in week.github.requests if SECRET in request.path]


def test_did_anything_revert_finds_the_revert(week: SlackHarness) -> None:
    warm(week)
    ts, _ = week.mention(DIGEST_CHANNEL, "did anything revert #50879?")
    text = reply_to(week, ts)
    assert "revert <https://github.com/vllm-project/vllm/pull/50879|#50879>" in text
    assert "<https://github.com/vllm-project/vllm/pull/51176|#51176>" in text


def test_a_question_about_one_pr_keeps_its_answer(week: SlackHarness) -> None:
    ts, _ = week.mention(DIGEST_CHANNEL, "what does #50879 change?")
    text = reply_to(week, ts)
    assert "PRs merged in" not in text


def test_a_digest_thread_answers_a_week_and_keeps_its_own_day(week: SlackHarness) -> None:
    warm(week)
    today = Window(datetime(2026, 8, 5, tzinfo=UTC), NOW)
    posted = week.parts.digests.run(
        DIGEST_CHANNEL, "2026-08-05", today, (REPO,), options=DigestOptions("en", Filters(), "note")
    )
    assert posted is not None and posted.thread_ts
    week.github.reset_requests()
    ts, _ = week.thread_reply(DIGEST_CHANNEL, posted.thread_ts, "did anything revert #50879 this week?")
    text = reply_to(week, ts, thread_ts=posted.thread_ts)
    assert "revert <https://github.com/vllm-project/vllm/pull/50879|#50879>" in text
    assert per_pr_requests(week.github) == []


def test_today_in_a_dm_is_the_persons_day_in_their_time_zone(week: SlackHarness) -> None:
    """20:00 UTC on Wednesday is 04:00 on Thursday in Shanghai: a reader there asking in the DM
    what merged today means since their midnight (16:00 UTC), not since UTC's."""
    reader, dm = "U0SHANGHAI", "D0SHANGHAI"
    week.slack.members[DIGEST_CHANNEL] = [reader]
    week.slack.zones[reader] = "Asia/Shanghai"
    their_day = Window(datetime(2026, 8, 5, 16, 0, tzinfo=UTC), NOW)
    merged = sum(1 for row in week_rows() if their_day.contains(dataset.parse_time(row["merged_at"])))
    utc_day = sum(1 for row in week_rows() if dataset.parse_time(row["merged_at"]) >= datetime(2026, 8, 5, tzinfo=UTC))
    assert 0 < merged < utc_day  # the data set tells the two days apart
    ts = week.slack.add_message(dm, "what merged today?", user=reader)
    week.event(im_message(reader, dm, "what merged today?", ts))

    def answered() -> list[dict[str, Any]]:
        thread = week.slack.thread(dm, ts)
        return [m for m in thread if m.get("bot_id") and "Looking into it" not in (m.get("text") or "")]

    (reply,) = wait_for(answered)
    assert f"{merged} PRs were merged in {REPO} today" in reply["text"]


@pytest.fixture
def week_with_model(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    dataset.populate(github, week_rows())
    with serve_harness(github, model, redis_url, tmp_path, now=lambda: NOW) as harness:
        yield harness


def test_a_model_writes_a_weeks_answer_from_the_cards_alone(week_with_model: SlackHarness) -> None:
    harness = week_with_model

    def respond(request: dict[str, Any]) -> dict[str, Any] | str:
        if "response_format" in request:
            return {
                "headline": "Faster fused MoE",
                "verdict": "read",
                "minutes": 5,
                "why": [],
                "caveats": [],
                "watch": [],
            }
        first = min(shown(request)[1])  # a PR it was shown, so one the reply lists
        return f"Read #{first} first: it changes the MoE path. See https://evil.example/x for more."

    harness.model.responder = respond
    warm(harness)
    harness.github.reset_requests()
    before = len(harness.model.chat_requests())
    ts, _ = harness.mention(DIGEST_CHANNEL, "what merged in vllm this week about MoE?")
    text = reply_to(harness, ts)
    asked = [request for request in harness.model.chat_requests()[before:] if "response_format" not in request]
    # One request, written from the matching PRs' cards (their headlines and verdicts), no PR
    # fetched for it; the answer keeps its #N and loses the link it was not given.
    (request,) = asked
    material = json.dumps(request["messages"])
    assert "Faster fused MoE" in material and "[read]" in material
    first = min(shown(request)[1])
    assert f"Read #{first} first" in text and "evil.example" not in text
    # Above the list the rules found, which names every PR shown, not only the one it cites.
    assert text.index(f"Read #{first} first") < text.index("of the") and text.count("/pull/") >= MAX_ITEMS
    assert per_pr_requests(harness.github) == []


def test_a_count_is_computed_not_written(week: SlackHarness) -> None:
    merged = warm(week)
    ts, _ = week.mention(DIGEST_CHANNEL, "how many PRs merged this week?")
    assert f"{merged} PRs were merged in vllm-project/vllm this week" in reply_to(week, ts)


def test_reverts_asked_over_the_week_are_each_revert_beside_what_it_reverted(week: SlackHarness) -> None:
    warm(week)
    ts, _ = week.mention(DIGEST_CHANNEL, "which PRs were reverted this week?")
    text = reply_to(week, ts)
    assert "Reverts merged in vllm-project/vllm this week (Aug 3–5), each beside the PR it reverts:" in text
    listed = re.findall(r"<https://github\.com/vllm-project/vllm/pull/(\d+)\|#\1>", text)
    assert list(dict.fromkeys(listed)) == ["51176", "50879"]
    ts, _ = week.mention(DIGEST_CHANNEL, "any follow-ups this week?")
    text = reply_to(week, ts)
    assert "No PR merged in vllm-project/vllm this week (Aug 3–5) follows up on another" in text
    assert "/pull/" not in text


def test_a_pr_asked_for_by_what_it_does_is_the_channels_digests_then_the_last_week(week: SlackHarness) -> None:
    warm(week)
    day = Window(datetime(2026, 8, 4, tzinfo=UTC), datetime(2026, 8, 5, tzinfo=UTC))
    posted = week.parts.digests.run(
        DIGEST_CHANNEL, "2026-08-04", day, (REPO,), options=DigestOptions("en", Filters(), "note")
    )
    assert posted is not None
    week.github.reset_requests()
    ts, _ = week.mention(DIGEST_CHANNEL, "find the PR that manages torch CPU threads")
    text = reply_to(week, ts)
    assert "in this channel's digests of Aug 4 match" in text
    assert set(re.findall(r"/pull/(\d+)\|", text)) == {"49919"}
    # Not among the digest's PRs (#50607 merged on Aug 5): the repository's last 7 days.
    ts, _ = week.mention(DIGEST_CHANNEL, "find the PR that bumps torch for ROCm")
    text = reply_to(week, ts)
    assert "in the last 7 days (Jul 30–Aug 5) match" in text
    assert set(re.findall(r"/pull/(\d+)\|", text)) == {"50607"}
    assert per_pr_requests(week.github) == []
