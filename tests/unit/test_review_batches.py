"""Batches: which digest's batch a PR belongs to, and how many PRs still need their files."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.models import PRRef, Window
from bot.sources.github_reviews import BATCH_SECONDS, REVIEW_LEAD, Batches

WINDOW = Window(datetime(2026, 8, 5, tzinfo=UTC), datetime(2026, 8, 6, tzinfo=UTC))


def test_digests_of_one_repository_and_window_share_one_batch() -> None:
    batches = Batches()
    batches.expect("acme/widgets", WINDOW, [1, 2, 3])
    batches.expect("ACME/Widgets", WINDOW, [2, 3, 4])  # another channel's digest, at the same time
    one, four = batches.take(PRRef("acme/widgets", 1)), batches.take(PRRef("acme/widgets", 4))
    assert one is not None and one is four
    assert one.since == WINDOW.start - REVIEW_LEAD
    assert batches.unread() == 4  # 2 and 3 not asked for, 1 and 4 in flight
    batches.read(one)
    batches.read(four)
    assert batches.unread() == 2
    assert batches.take(PRRef("acme/widgets", 9)) is None  # no digest said it was coming: on its own


def test_a_batch_whose_comments_were_read_serves_a_later_digest_of_its_window_until_it_is_old() -> None:
    now = [0.0]
    batches = Batches(clock=lambda: now[0])
    batches.expect("o/r", WINDOW, [1])
    first = batches.take(PRRef("o/r", 1))
    assert first is not None
    first.comments = {}
    batches.expect("o/r", WINDOW, [1, 2])  # a digest started a moment later: the listing read serves it
    second = batches.take(PRRef("o/r", 2))
    assert second is first
    now[0] += BATCH_SECONDS + 1
    assert batches.take(PRRef("o/r", 1)) is None
    batches.expect("o/r", WINDOW, [3])  # an old batch is gone: a later digest reads afresh
    third = batches.take(PRRef("o/r", 3))
    assert third is not None and third is not first


def test_a_later_window_is_a_batch_of_its_own() -> None:
    batches = Batches()
    batches.expect("o/r", WINDOW, [1])
    later = Window(WINDOW.start + timedelta(days=1), WINDOW.end + timedelta(days=1))
    batches.expect("o/r", later, [2])
    one, two = batches.take(PRRef("o/r", 1)), batches.take(PRRef("o/r", 2))
    assert one is not None and two is not None and one is not two
