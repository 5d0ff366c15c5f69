"""Links across days through the real app on loopback: the vLLM data set replayed day after day
with `/pr digest`, fake GitHub, fake model and fake Slack, real Redis. Each revert is found, shown
in the lead and under its card, and answered once in the earlier digest's thread."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from devkit.clocks import WallClock
from devkit.fakes import dataset
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from tests.integration.conftest import REPO
from tests.integration.slack_harness import DIGEST_CHANNEL, HUMAN, SlackHarness, serve_harness, wait_for
from tests.shared_data import shared_rows

# Each digest covers the 24 hours before 09:00 UTC of its day (the default post time).
DAYS = ("2026-08-05", "2026-08-06", "2026-08-12", "2026-08-13")
REVERTS = {51176: (50879, "2026-08-05", "Aug 5"), 52024: (48223, "2026-08-12", "Aug 12")}


def window_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The data set's PRs that the replayed digests cover."""
    ends = [datetime.fromisoformat(f"{day}T09:00:00+00:00") for day in DAYS]
    return [
        row
        for row in rows
        if any(end - timedelta(days=1) <= dataset.parse_time(row["merged_at"]) < end for end in ends)
    ]


@pytest.fixture
def replay(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> Iterator[tuple[SlackHarness, WallClock]]:
    dataset.populate(github, window_rows(shared_rows()))
    clock = WallClock(datetime(2026, 8, 5, 12, tzinfo=UTC))
    with serve_harness(github, model, redis_url, tmp_path, now=clock) as harness:
        harness.slack.members = {DIGEST_CHANNEL: [HUMAN]}
        yield harness, clock


def post_digest(harness: SlackHarness, clock: WallClock, day: str) -> str:
    """`/pr digest` on `day` at noon UTC (the day's window has ended); what the asker is told."""
    clock.now = datetime.fromisoformat(f"{day}T12:00:00+00:00")
    hook, response = harness.command("digest", DIGEST_CHANNEL, user=HUMAN)
    assert response.status_code == 200
    wait_for(lambda: harness.slack.responses[hook])
    harness.settle()
    return str(harness.slack.responses[hook][-1]["text"])


def texts(messages: list[dict[str, Any]], keep: Callable[[dict[str, Any]], bool] = lambda m: True) -> str:
    return "\n".join(json.dumps(m.get("blocks") or m["text"], ensure_ascii=False) for m in messages if keep(m))


def test_both_reverts_of_the_data_set_are_shown_in_the_lead_and_both_threads_once(
    replay: tuple[SlackHarness, WallClock],
) -> None:
    harness, clock = replay
    leads: dict[str, str] = {}
    for day in DAYS:
        assert f"{day} is posted" in post_digest(harness, clock, day)
        (lead,) = [m for m in harness.slack.messages(DIGEST_CHANNEL) if m["ts"] not in leads.values()]
        leads[day] = lead["ts"]
    # Each day posted again: nothing new, replies included.
    posted = len(harness.slack.all_messages())
    for day in DAYS:
        assert "already here" in post_digest(harness, clock, day)
    assert len(harness.slack.all_messages()) == posted

    found = wrong = 0
    for later, (earlier, earlier_day, shown_day) in REVERTS.items():
        later_day = DAYS[DAYS.index(earlier_day) + 1]
        lead_blocks = json.dumps(harness.slack.message(DIGEST_CHANNEL, leads[later_day])["blocks"])
        assert f"/pull/{earlier}|#{earlier}> from this channel's digest of <https://" in lead_blocks
        assert (
            f"|{shown_day}> is reverted by <https://github.com/vllm-project/vllm/pull/{later}|#{later}>" in lead_blocks
        )
        # The later thread: the card of the revert says what it reverts, with the earlier thread a click away.
        later_thread = harness.slack.thread(DIGEST_CHANNEL, leads[later_day])
        card_line = (
            f"Reverts <https://github.com/vllm-project/vllm/pull/{earlier}|#{earlier}>, in this channel's digest of"
        )
        assert card_line in texts(later_thread)
        permalink = f"/archives/{DIGEST_CHANNEL}/p{leads[earlier_day].replace('.', '')}|{shown_day}>"
        assert permalink in texts(later_thread)
        # The earlier thread: one reply, once.
        earlier_thread = harness.slack.thread(DIGEST_CHANNEL, leads[earlier_day])
        replies = [m for m in earlier_thread if "Reverted by" in m["text"]]
        assert len(replies) == 1 and f"|#{later}>" in replies[0]["text"]
        found += 1
    # No other reply, revert or link anywhere: the data set holds these two references only.
    all_text = texts(harness.slack.all_messages())
    wrong = all_text.count("Reverted by") + all_text.count("Follow-up") + all_text.count("Fix merged") - found
    wrong += all_text.count("in this channel's digest of") - found  # under each revert's card
    wrong += all_text.count("from this channel's digest of") - found  # in each later lead
    assert (found, wrong) == (2, 0)
    assert harness.slack.rejections == []


# Our own PRs, one day apart: every kind of link, said in a description or a review comment, and
# the look-alikes that are not links (an issue, another repository's PR, a number in code, a table).
DAY1_PRS = {100: "Widget cache", 101: "Colour tables", 102: "Fast path for small batches", 103: "Lazy loader"}
DAY2_PRS: dict[int, tuple[str, str, str]] = {
    200: ("Widget cache eviction", "Follow-up to #100: evicts by size.", ""),
    201: ("Colour tables for dark mode", "Dark mode.", "This is a follow up of vllm-project/vllm#101."),
    202: ("Fast path: check the batch size", "Fixes #102 (small batches took the slow path).", ""),
    203: ("Back out the lazy loader", f"This reverts commit {103:040x}.\n\nStartup got slower.", ""),
    204: ("Fix OOM on startup", "Fixes #49013", ""),
    205: ("Bump widgets", "Follow-up to acme/widgets#100", ""),
    206: ("Docs: reverting", "How to back out:\n```\ngit revert HEAD  # Reverts #101\n```", ""),
    207: ("Bench table", "| run | PR |\n|---|---|\n| #1 | #100 |", ""),
}
EXPECTED = {(200, "follow_up", 100), (201, "follow_up", 101), (202, "fixes", 102), (203, "revert", 103)}
SAID = {
    "follow_up": ("Follow-up to", "Follow-up merged"),
    "fixes": ("Fixes", "Fix merged"),
    "revert": ("Reverts", "Reverted by"),
}


_CARD_PR = re.compile(r"^\S+ \*<https://github\.com/[^|]+/pull/(\d+)\|")


def card_lines(messages: list[dict[str, Any]]) -> dict[int, list[str]]:
    """The text of each card's blocks in a thread, by the card's PR number."""
    lines: dict[int, list[str]] = {}
    current = None
    for message in messages:
        for block in message.get("blocks") or []:
            text = block.get("text", {}).get("text", "") or " ".join(
                e.get("text", "") for e in block.get("elements", [])
            )
            if block["type"] == "section" and (match := _CARD_PR.match(text)):
                current = int(match.group(1))
            if current is not None:
                lines.setdefault(current, []).append(text)
    return lines


@pytest.fixture
def own(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> Iterator[tuple[SlackHarness, WallClock]]:
    for number, title in DAY1_PRS.items():
        github.add_pr(
            REPO,
            number,
            title=title,
            merged_at=datetime(2026, 8, 4, 12, number % 60, tzinfo=UTC),
            merge_commit_sha=f"{number:040x}",
            files=[{"path": "vllm/widgets.py", "additions": 5, "deletions": 1}],
        )
    for number, (title, body, comment) in DAY2_PRS.items():
        github.add_pr(
            REPO,
            number,
            title=title,
            body=body,
            merged_at=datetime(2026, 8, 5, 12, number % 60, tzinfo=UTC),
            merge_commit_sha=f"{number:040x}",
            files=[{"path": "vllm/widgets.py", "additions": 5, "deletions": 1}],
            review_comments=[{"author": "bob", "body": comment, "path": "vllm/widgets.py"}] if comment else [],
        )
    clock = WallClock(datetime(2026, 8, 5, 12, tzinfo=UTC))
    with serve_harness(github, model, redis_url, tmp_path, now=clock) as harness:
        harness.slack.members = {DIGEST_CHANNEL: [HUMAN]}
        yield harness, clock


def test_our_own_prs_are_linked_by_kind_and_the_look_alikes_are_not(own: tuple[SlackHarness, WallClock]) -> None:
    harness, clock = own
    assert "2026-08-05 is posted" in post_digest(harness, clock, "2026-08-05")
    (day1,) = harness.slack.messages(DIGEST_CHANNEL)
    assert "2026-08-06 is posted" in post_digest(harness, clock, "2026-08-06")
    day2 = next(m for m in harness.slack.messages(DIGEST_CHANNEL) if m["ts"] != day1["ts"])

    lines = card_lines(harness.slack.thread(DIGEST_CHANNEL, day2["ts"]))
    earlier_replies = [m["text"] for m in harness.slack.thread(DIGEST_CHANNEL, day1["ts"]) if not m.get("blocks")]
    shown = set()
    for later in DAY2_PRS:
        for earlier in DAY1_PRS:
            for kind, (card_words, reply_words) in SAID.items():
                card = f"{card_words} <https://github.com/{REPO}/pull/{earlier}|#{earlier}>, in this channel's digest"
                reply = (
                    f"{reply_words}{':' if kind != 'revert' else ''} <https://github.com/{REPO}/pull/{later}|#{later}>"
                )
                if any(card in line for line in lines.get(later, [])):
                    shown.add((later, kind, earlier))
                    assert sum(reply in text for text in earlier_replies) == 1, (later, kind, earlier)
    found = {kind: sum(1 for link in shown & EXPECTED if link[1] == kind) for kind in SAID}
    expected = {kind: sum(1 for link in EXPECTED if link[1] == kind) for kind in SAID}
    assert found == expected == {"follow_up": 2, "fixes": 1, "revert": 1}
    assert len(shown - EXPECTED) == 0  # wrong links
    assert len(earlier_replies) == len(EXPECTED)  # one reply per link, nothing else in the earlier thread
    assert "from this channel's digest of" in json.dumps(day2["blocks"])  # the revert, in the lead
