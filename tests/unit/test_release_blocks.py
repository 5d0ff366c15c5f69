"""A release digest in Slack (render/slack/release_blocks.py): a 500-PR release is tens of messages,
one area to a message or more, every message within Block Kit's limits; the lead carries the
counts, the must-reads and what to know before upgrading; Share names the release and its asker."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime

from bot.digests.areas import groups
from bot.models import Digest, DigestItem, ReleaseDigest, Upgrade, UpgradeNote, Verdict, Window
from bot.render.slack.release_blocks import (
    LEAD_UPGRADE_POINTS,
    read_share_release_value,
    release_lead,
    release_thread,
    share_release_value,
)
from tests.unit.builders import make_listing
from tests.unit.test_blocks import HOSTILE, all_text, assert_valid, make_card

WINDOW = Window(datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 11, 22, tzinfo=UTC))
AREAS = ("[Kernel]", "[Frontend]", "[CI]", "[Bugfix]", "[Doc]", "[Model]", "[Core]", "[Misc]")


def release(count: int, *, hostile: bool = False) -> ReleaseDigest:
    items = []
    for n in range(1, count + 1):
        verdict: Verdict = "read" if n % 10 == 0 else "skim" if n % 3 == 0 else "skip"
        title = f"{AREAS[n % len(AREAS)]} Change {n}" + (f" {HOSTILE}" if hostile else "")
        card = make_card(
            headline=f"Change {n} makes widgets faster" + (f" {HOSTILE}" if hostile else ""),
            verdict=verdict,
            why=("A reusable pattern for the scheduler.",) if verdict != "skip" else (),
            caveats=("Removes the --old-flag option.",) if n % 25 == 0 else (),
        )
        items.append(DigestItem(make_listing(number=n, title=title), card, 10 * n))
    items.sort(key=lambda item: {"read": 0, "skim": 1, "skip": 2}[item.card.verdict])
    digest = Digest(("acme/widgets",), WINDOW, count, tuple(items))
    upgrade = tuple(
        Upgrade(item, UpgradeNote("removed", item.card.caveats[0])) for item in digest.items if item.card.caveats
    )
    return ReleaseDigest("acme/widgets", "v0.12.0", "v0.11.0", digest, groups(digest.items), upgrade)


def test_a_500_pr_release_is_tens_of_valid_messages_one_area_to_a_message_or_more() -> None:
    big = release(500)
    thread = release_thread(big)
    assert 2 <= len(thread) <= 60
    for message in thread:
        assert_valid(message)
    # Every PR is in the thread, once; the skips as one line each.
    text = "\n".join(all_text(message) for message in thread)
    assert all(f"pull/{n}|#{n}>" in text or f"pull/{n}|" in text for n in range(1, 501))
    assert_valid(release_lead(big))


def test_the_lead_gives_counts_must_reads_and_what_to_know_before_upgrading() -> None:
    lead = release_lead(release(100))
    text = all_text(lead)
    assert "acme/widgets v0.12.0 (since v0.11.0)" in text
    assert "100 merged · 10 worth a careful read" in text
    assert "Before you upgrade" in text and "Removes the --old-flag option." in text
    assert_valid(lead)


def test_upgrade_points_past_what_the_lead_shows_are_all_in_the_thread() -> None:
    many = release(25 * (LEAD_UPGRADE_POINTS + 5))
    lead_text = all_text(release_lead(many))
    assert "… and 5 more in the thread" in lead_text
    first = all_text(release_thread(many)[0])
    assert "*Before you upgrade*" in first and first.count("*Removed*") == LEAD_UPGRADE_POINTS + 5


def test_hostile_titles_and_headlines_stay_escaped() -> None:
    hostile = release(40, hostile=True)
    for message in [release_lead(hostile), *release_thread(hostile)]:
        assert_valid(message)


def test_a_hostile_tag_and_areas_are_escaped_in_the_notification_text_too() -> None:
    # Slack notifies from the top-level text, which it parses as mrkdwn like a section.
    hostile = dataclasses.replace(release(40, hostile=True), tag="<!channel>", base="<https://evil.test|v1>")
    hostile = dataclasses.replace(hostile, groups=groups(hostile.digest.items))
    messages = [release_lead(hostile), release_lead(hostile, share_for="U123"), *release_thread(hostile)]
    assert "&lt;!channel&gt;" in messages[0].text
    for message in messages:
        assert not re.search(r"<[!@#]|<https://evil", message.text), message.text


def test_share_names_the_release_and_its_asker_and_nothing_else_reads_as_one() -> None:
    lead = release_lead(release(5), share_for="U123")
    (actions,) = [block for block in lead.blocks if block["type"] == "actions"]
    value = actions["elements"][0]["value"]
    share = read_share_release_value(value)
    assert share is not None and (share.repo, share.tag, share.base, share.requester) == (
        "acme/widgets",
        "v0.12.0",
        "v0.11.0",
        "U123",
    )
    assert share_release_value(release(5), "U1").startswith("{")
    for bad in ("", "[]", '{"repo": "a/b"}', "x" * 3000, '{"repo":"a/b","tag":"v1","since":"v0","by":""}'):
        assert read_share_release_value(bad) is None
