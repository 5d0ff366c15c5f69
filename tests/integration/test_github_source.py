"""GitHubSource through the real PyGithub client against the fake GitHub on loopback."""

from __future__ import annotations

import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta

import pytest
from devkit.fakes.github import FakeGitHub

from bot.errors import NotFound, RateLimited, SourceRefused
from bot.models import PRRef, Window
from tests.integration.conftest import REPO, ServicesFactory, day, settings_for

WINDOW = Window(day(0), day(24))
LATER = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # the window is months old: search path


def add_edge_prs(github: FakeGitHub) -> None:
    second = timedelta(seconds=1)
    github.add_pr(REPO, 1, title="one second before", merged_at=day(0) - second)
    github.add_pr(REPO, 2, title="at the start", merged_at=day(0))
    github.add_pr(REPO, 3, title="one second before the end", merged_at=day(24) - second)
    github.add_pr(REPO, 4, title="at the end", merged_at=day(24))
    github.add_pr(REPO, 5, title="closed unmerged", merged_at=None, closed_at=day(5))
    # Merged long ago, commented on today: updated inside the window, merged outside.
    github.add_pr(REPO, 6, title="old but updated", merged_at=day(-100), updated_at=day(6))


@pytest.mark.parametrize("now", [day(36), LATER], ids=["pulls-list", "search"])
def test_window_edges_and_unmerged(github: FakeGitHub, make_services: ServicesFactory, now: datetime) -> None:
    add_edge_prs(github)
    services = make_services(settings_for(github), now=now)
    found = services.source.list_merged(REPO, WINDOW)
    assert sorted(listing.number for listing in found) == [2, 3]
    used_search = github.count(r"^/search/issues") > 0
    assert used_search == (now == LATER)


def test_pulls_list_pages_past_100_and_stops_at_window_start(
    github: FakeGitHub, make_services: ServicesFactory
) -> None:
    for number in range(1, 251):
        github.add_pr(REPO, number, title=f"PR {number}", merged_at=day(number * 0.09))
    for number in range(300, 700):  # older: on later pages that must not be read
        github.add_pr(REPO, number, title="older", merged_at=day(-48 - number * 0.01))
    services = make_services(settings_for(github), now=day(30))
    found = services.source.list_merged(REPO, WINDOW)
    assert len(found) == 250
    assert github.count(r"/pulls$") == 3  # 100 + 100 + 50 in the window, and the 3rd page holds the stop
    assert github.count(r"/pulls/\d+") == 0  # no hidden per-PR GETs from lazy attributes


def test_search_path_pages_past_100(github: FakeGitHub, make_services: ServicesFactory) -> None:
    for number in range(1, 151):
        github.add_pr(REPO, number, title=f"PR {number}", merged_at=day(number * 0.15))
    services = make_services(settings_for(github), now=LATER)
    found = services.source.list_merged(REPO, WINDOW)
    assert len(found) == 150
    assert github.count(r"^/search/issues") == 2


def test_fetch_reads_every_file_page_and_review_comments(github: FakeGitHub, make_services: ServicesFactory) -> None:
    files = [{"path": f"vllm/module_{i}.py", "additions": 3, "deletions": 1} for i in range(250)]
    github.add_pr(
        REPO,
        9,
        title="Big",
        merged_at=day(3),
        files=files,
        review_comments=[{"author": "bob", "body": "Why this lock?", "path": "vllm/module_1.py"}],
    )
    services = make_services(settings_for(github), now=day(30))
    (listing,) = services.source.list_merged(REPO, WINDOW)
    github.reset_requests()
    snapshot = services.source.fetch(listing)
    assert len(snapshot.files) == 250
    assert snapshot.files[0].patch and snapshot.files[0].patch.startswith("@@")
    assert snapshot.comments[0].body == "Why this lock?"
    assert github.count(r"/files$") == 3
    assert github.count(r"/comments$") == 1
    assert len(github.requests) == 4


def test_a_search_listing_is_keyed_by_the_head_its_files_name_at_no_extra_request(
    github: FakeGitHub, make_services: ServicesFactory
) -> None:
    github.add_pr(
        REPO,
        9,
        title="Old",
        merged_at=day(3),
        merge_commit_sha="b" * 40,
        head_sha="c" * 40,
        files=[{"path": "a.py", "additions": 1, "deletions": 0}],
    )
    services = make_services(settings_for(github), now=LATER)
    (listing,) = services.source.list_merged(REPO, WINDOW)
    assert listing.merge_sha is None
    assert [request.path for request in github.requests] == ["/search/issues"]  # no GET of the repository
    github.reset_requests()
    snapshot = services.source.fetch(listing)
    assert snapshot.listing.merge_sha is None
    assert snapshot.listing.revision == "c" * 40
    assert snapshot.additions == 1
    # The files and the PR's own review comments (fetched alone: no digest said it was coming).
    assert [request.path for request in github.requests] == [
        f"/repos/{REPO}/pulls/9/files",
        f"/repos/{REPO}/pulls/9/comments",
    ]


def test_unknown_repo_and_pr_are_clear_errors(github: FakeGitHub, make_services: ServicesFactory) -> None:
    services = make_services(settings_for(github), now=day(30))
    with pytest.raises(NotFound, match="nobody/nothing: not found on GitHub"):
        services.source.list_merged("nobody/nothing", WINDOW)
    with pytest.raises(NotFound, match=f"{REPO}#404404: not found"):
        services.source.get_listing(PRRef(REPO, 404404))


def test_rate_limit_far_away_is_an_error_naming_the_reset(github: FakeGitHub, make_services: ServicesFactory) -> None:
    github.add_pr(REPO, 1, title="x", merged_at=day(1))
    github.rate_limit = 0
    services = make_services(settings_for(github, GITHUB_TOKEN=""), now=day(30))
    with pytest.raises(RateLimited) as error:
        services.source.list_merged(REPO, WINDOW)
    assert "UTC" in str(error.value)
    assert "Set GITHUB_TOKEN" in str(error.value)


def test_server_errors_are_retried(github: FakeGitHub, make_services: ServicesFactory) -> None:
    github.add_pr(REPO, 1, title="x", merged_at=day(1))
    github.fail_next(r"/pulls$", 502, times=2)
    services = make_services(settings_for(github), now=day(30))
    assert [listing.number for listing in services.source.list_merged(REPO, WINDOW)] == [1]


def test_a_display_name_costs_one_request(github: FakeGitHub, make_services: ServicesFactory) -> None:
    github.add_user("nhill", "Nick Hill")
    services = make_services(settings_for(github), now=day(30))
    assert services.source.user_name("nhill") == "Nick Hill"
    assert [request.path for request in github.requests] == ["/users/nhill"]


def test_no_display_name_and_no_such_account_are_none(github: FakeGitHub, make_services: ServicesFactory) -> None:
    github.add_user("anon")
    github.add_user("blank", "")
    services = make_services(settings_for(github), now=day(30))
    assert services.source.user_name("anon") is None
    assert services.source.user_name("blank") is None
    assert services.source.user_name("ghost-of-nobody") is None  # GitHub's 404
    assert github.count(r"^/users/") == 3


def test_a_refused_or_rate_limited_profile_is_a_source_error(
    github: FakeGitHub, make_services: ServicesFactory
) -> None:
    github.add_user("nhill", "Nick Hill")
    services = make_services(settings_for(github, GITHUB_TOKEN=""), now=day(30))
    github.fail_next(r"^/users/", 401)
    with pytest.raises(SourceRefused):
        services.source.user_name("nhill")
    github.rate_limit = 0
    with pytest.raises(RateLimited):
        services.source.user_name("nhill")


def add_reviewed_prs(github: FakeGitHub, *, after_window: int = 0) -> None:
    """12 PRs of the window with 40 review comments each (480: five pages of 100), and
    `after_window` comments on a 13th PR made after the window ended."""
    for number in range(1, 13):
        github.add_pr(
            REPO,
            number,
            title=f"Change {number}",
            merged_at=day(number),
            review_comments=[
                {
                    "author": "bob",
                    "body": f"note {number}.{k}",
                    "path": "a.py",
                    "created_at": day(number) - timedelta(minutes=40 - k),
                }
                for k in range(40)
            ],
        )
    if after_window:
        github.add_pr(
            REPO,
            13,
            title="Next day's",
            merged_at=day(30),
            review_comments=[
                {"author": "eve", "body": f"late {k}", "path": "b.py", "created_at": day(26) + timedelta(minutes=k)}
                for k in range(after_window)
            ],
        )


def test_a_digests_review_comments_are_read_a_few_pages_at_once_and_filed_in_order(
    github: FakeGitHub, make_services: ServicesFactory
) -> None:
    add_reviewed_prs(github)
    services = make_services(settings_for(github), now=day(25))
    listings = services.source.list_merged(REPO, WINDOW)
    services.source.expect(WINDOW, listings)
    github.reset_requests()
    snapshots = {listing.number: services.source.fetch(listing) for listing in listings}
    assert github.count(r"/pulls/comments$") == 5  # pages 2 to 5 asked ahead, none twice
    for number, snapshot in snapshots.items():
        assert [comment.body for comment in snapshot.comments] == [f"note {number}.{k}" for k in range(40)]


def test_pages_asked_ahead_past_the_window_are_few(github: FakeGitHub, make_services: ServicesFactory) -> None:
    # After the window's five pages, ten more of comments made the next day: the read stops at
    # the first page past the window, having asked at most two more.
    add_reviewed_prs(github, after_window=1000)
    services = make_services(settings_for(github), now=day(40))
    listings = [listing for listing in services.source.list_merged(REPO, WINDOW)]
    services.source.expect(WINDOW, listings)
    github.reset_requests()
    snapshot = services.source.fetch(listings[0])
    assert len(snapshot.comments) == 40
    assert 6 <= github.count(r"/pulls/comments$") <= 8


def test_threads_asking_at_once_each_get_their_own_prs_answer(
    github: FakeGitHub, make_services: ServicesFactory
) -> None:
    # PyGithub's connection keeps the request being made on itself: threads sharing one client
    # could each send the other's (PyGithub #2052). Each thread has its own client.
    for number in range(1, 121):
        github.add_pr(REPO, number, title=f"PR {number}", merged_at=day(number / 10), files=[{"path": f"f{number}.py"}])
    services = make_services(settings_for(github), now=day(30))
    listings = services.source.list_merged(REPO, WINDOW)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # switch threads as often as Python can: the race shows at once
    try:
        with ThreadPoolExecutor(max_workers=32) as pool:
            snapshots = list(pool.map(services.source.fetch, listings * 3))
    finally:
        sys.setswitchinterval(interval)
    wrong = [s.listing.number for s in snapshots if [f.path for f in s.files] != [f"f{s.listing.number}.py"]]
    assert len(snapshots) == 360 and wrong == []
