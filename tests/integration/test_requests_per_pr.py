"""What a day costs in GitHub requests, counted by the fake GitHub from what it received.

The data set's 52-PR day (2026-08-05), with a few hundred review comments, digested without a
token while the fake holds GitHub's 60 requests an hour: every PR gets its files (one request
each), the review comments come from a few pages of the repository's listing, and the digest is
complete, on the 24-hour path (the pulls list) and for an older day (issue search). With a
token, list pages seen before go out with their ETag and come back 304, free.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from devkit.fakes import dataset
from devkit.fakes.github import ANONYMOUS_LIMIT, FakeGitHub

from bot.errors import NotFound
from bot.models import Digest, Window
from bot.store.backends.memory import MemoryKV
from bot.wiring.process import Process
from tests.integration.conftest import REPO, ServicesFactory, settings_for
from tests.shared_data import shared_rows

DAY = "2026-08-05"
WINDOW = Window(datetime(2026, 8, 5, tzinfo=UTC), datetime(2026, 8, 6, tzinfo=UTC))
JUST_AFTER = WINDOW.end + timedelta(minutes=5)  # the window is recent: the pulls list
WEEKS_LATER = WINDOW.end + timedelta(days=20)  # an older day: issue search
LIST_KINDS = ("pulls", "search", "repo_comments")  # one request a page, however many PRs
# Issue 26: at most 1.05 requests per PR besides the list pages (more pages only past 100 files).
PER_PR_TARGET = 1.05


def day_rows() -> list[dict[str, Any]]:
    return dataset.merged_on(shared_rows(), DAY)


def serve(github: FakeGitHub, *, until: datetime) -> list[dict[str, Any]]:
    """The data set as GitHub held it at `until`; the day's rows."""
    rows = [row for row in shared_rows() if dataset.parse_time(row["merged_at"]) < until]
    dataset.populate(github, rows, REPO)
    return day_rows()


def list_pages(github: FakeGitHub) -> int:
    return sum(1 for request in github.requests if github.kind_of(request.path) in LIST_KINDS)


def assert_complete(digest: Digest, rows: list[dict[str, Any]]) -> None:
    assert digest.total_merged == digest.shown == len(rows) == 52
    assert all(item.card.coverage.files_known for item in digest.items)
    assert digest.notes == ()  # no rate-limit note: nothing was judged from its title


def assert_comments_read(services: Process, rows: list[dict[str, Any]]) -> None:
    """Every PR's snapshot holds its own review comments, as the data set gave them."""
    listings = {listing.number: listing for listing in services.cards.merged(REPO, WINDOW)}
    for row in rows:
        snapshot = services.cards.cached_snapshot(listings[row["number"]])
        assert snapshot is not None
        expected = dataset.review_comments(row)
        assert [c.body for c in snapshot.comments] == [c["body"] for c in expected], row["number"]


@pytest.mark.parametrize("now", [JUST_AFTER, WEEKS_LATER], ids=["24-hour", "date"])
def test_a_52_pr_day_without_a_token_is_complete_in_60_requests(
    github: FakeGitHub, make_services: ServicesFactory, now: datetime
) -> None:
    rows = serve(github, until=now)
    github.anonymous()
    services = make_services(settings_for(github, GITHUB_TOKEN=""), now=now)
    digest = services.digests.build((REPO,), WINDOW)

    assert_complete(digest, rows)
    counts = github.counts_by_kind()
    assert counts["files"] == 52
    assert counts["repo_comments"] >= 2, counts  # the listing spans pages
    assert "comments" not in counts and "pull" not in counts and "repo" not in counts, counts
    total = len(github.requests)
    assert total <= ANONYMOUS_LIMIT
    assert total - list_pages(github) <= PER_PR_TARGET * 52, counts
    assert_comments_read(services, rows)


def test_without_a_token_files_come_first_and_comments_take_what_is_left(
    github: FakeGitHub, make_services: ServicesFactory
) -> None:
    rows = serve(github, until=JUST_AFTER)
    github.anonymous()
    github.rate_limit = 1 + 52  # the list page and the files: nothing left for review comments
    services = make_services(settings_for(github, GITHUB_TOKEN=""), now=JUST_AFTER)
    digest = services.digests.build((REPO,), WINDOW)

    assert_complete(digest, rows)
    assert github.counts_by_kind() == {"pulls": 1, "files": 52}
    assert all(not services.cards.cached_snapshot(item.listing).comments for item in digest.items)  # type: ignore[union-attr]


@pytest.mark.parametrize("now", [JUST_AFTER, WEEKS_LATER], ids=["24-hour", "date"])
def test_with_a_token_list_pages_seen_before_are_asked_for_conditionally(
    github: FakeGitHub, make_services: ServicesFactory, now: datetime
) -> None:
    serve(github, until=now)
    github.rate_limit = 5000
    kv = MemoryKV()
    make_services(settings_for(github), kv=kv, now=now).digests.build((REPO,), WINDOW)
    # Later the same day: the window's shared list has expired, every snapshot is still kept.
    kv.delete_prefix("merged:")
    github.reset_requests()
    left = github.rate_limit

    digest = make_services(settings_for(github), kv=kv, now=now).digests.build((REPO,), WINDOW)
    assert digest.shown == 52
    sent = github.requests
    # The list page, and nothing per PR: every snapshot was kept.
    assert [github.kind_of(request.path) for request in sent] == ["pulls" if now == JUST_AFTER else "search"]
    assert all(request.headers.get("if-none-match") for request in sent)
    assert github.rate_limit == left  # GitHub: an authorized 304 does not count


def test_a_search_for_a_repository_that_does_not_exist_is_not_found(
    github: FakeGitHub, make_services: ServicesFactory
) -> None:
    services = make_services(settings_for(github), now=WEEKS_LATER)
    with pytest.raises(NotFound, match="nobody/nothing: not found on GitHub"):
        services.source.list_merged("nobody/nothing", WINDOW)
    assert [request.path for request in github.requests] == ["/search/issues"]
