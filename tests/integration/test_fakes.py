"""The loopback fakes, driven by the real PyGithub and openai clients (127.0.0.1 only)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from typing import Any

import openai
import pydantic
import pytest
import requests
from devkit.fakes import dataset
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import DEFAULT_CARD, FakeOpenAI
from github import Auth, Github, GithubException, RateLimitExceededException, UnknownObjectException

from tests.shared_data import shared_rows

pytestmark = pytest.mark.filterwarnings("error")

T0 = datetime(2026, 8, 5, 9, 0, tzinfo=UTC)


class Card(pydantic.BaseModel):
    headline: str
    verdict: str
    minutes: int
    why: list[str]
    caveats: list[str]
    watch: list[str]


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def gh(fake: FakeGitHub) -> Iterator[Github]:
    client = Github(
        base_url=fake.url,
        auth=Auth.Token("t"),
        per_page=100,
        lazy=True,
        seconds_between_requests=None,
        retry=None,
        timeout=5,
    )
    yield client
    client.close()


@pytest.fixture
def llm() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


def make_client(llm: FakeOpenAI, **kwargs: Any) -> openai.OpenAI:
    return openai.OpenAI(base_url=llm.url + "/v1", api_key="test", **{"max_retries": 0, "timeout": 5, **kwargs})


def ask(client: openai.OpenAI) -> Card | None:
    completion = client.chat.completions.parse(
        model="m", messages=[{"role": "user", "content": "Title: [CI] x"}], response_format=Card
    )
    return completion.choices[0].message.parsed


# -- GitHub ------------------------------------------------------------------------------------


def test_pulls_list_pages_through_250_prs_in_three_requests(fake: FakeGitHub, gh: Github) -> None:
    for n in range(1, 251):
        fake.add_pr(
            "o/r",
            n,
            title=f"PR {n}",
            body=f"body {n}",
            merged_at=T0 + timedelta(minutes=n),
            labels=["bug"],
            author=f"user{n % 7}",
        )
    fake.add_pr("o/r", 999, title="still open", merged_at=None, state="open")

    pulls = gh.get_repo("o/r").get_pulls(state="closed", sort="updated", direction="desc")
    seen = [
        (
            p.number,
            p.title,
            p.merged_at,
            p.updated_at,
            p.user.login,
            [x.name for x in p.labels],
            p.merge_commit_sha,
            p.html_url,
            p.body,
        )
        for p in pulls
    ]

    assert [s[0] for s in seen] == list(range(250, 0, -1))
    assert seen[0][1:] == (
        "PR 250",
        T0 + timedelta(minutes=250),
        T0 + timedelta(minutes=250),
        "user5",
        ["bug"],
        seen[0][6],
        "https://github.com/o/r/pull/250",
        "body 250",
    )
    assert len(seen[0][6]) == 40
    assert fake.count() == 3 == fake.count(r"^/repos/o/r/pulls$")
    assert fake.requests[-1].query["page"] == "3"


def test_list_items_lack_detail_fields_so_reading_them_costs_a_request(fake: FakeGitHub, gh: Github) -> None:
    fake.add_pr("o/r", 1, title="t", merged_at=T0, files=[{"path": "a.py", "additions": 5, "deletions": 2}])
    (pr,) = gh.get_repo("o/r").get_pulls(state="closed")
    assert fake.count() == 1
    assert (pr.additions, pr.deletions, pr.changed_files, pr.merged) == (5, 2, 1, True)
    assert fake.count(r"^/repos/o/r/pulls/1$") == 1


def test_files_are_paginated_and_capped_at_3000(fake: FakeGitHub, gh: Github) -> None:
    files = [{"path": f"src/f{i}.py", "additions": i % 5, "deletions": i % 3} for i in range(248)]
    files.append({"path": "docs/logo.png", "additions": 9, "deletions": 9, "binary": True})
    files.append({"path": "src/new.py", "previous_path": "src/old.py", "additions": 1, "deletions": 1})
    fake.add_pr("o/r", 7, title="big", merged_at=T0, files=files)
    fake.add_pr(
        "o/r",
        8,
        title="huge",
        merged_at=T0,
        files=[{"path": f"gen/{i}.txt", "additions": 1, "deletions": 0} for i in range(3500)],
    )

    got = list(gh.get_repo("o/r").get_pull(7).get_files())
    assert len(got) == 250 and fake.count() == 3
    by_name = {f.filename: f for f in got}
    assert by_name["docs/logo.png"].patch is None and by_name["docs/logo.png"].additions == 0
    renamed = by_name["src/new.py"]
    assert (renamed.status, renamed.previous_filename) == ("renamed", "src/old.py")
    patch = by_name["src/f4.py"].patch
    assert patch.startswith("@@") and _count_lines(patch) == (4, 1)

    huge = gh.get_repo("o/r").get_pull(8)
    assert sum(1 for _ in huge.get_files()) == 3000
    assert huge.changed_files == 3500  # the count GitHub reports is not capped


def test_search_merged_range(fake: FakeGitHub, gh: Github) -> None:
    fake.add_pr("o/r", 1, title="day before", merged_at=datetime(2026, 8, 4, 23, 59, 59, tzinfo=UTC))
    fake.add_pr("o/r", 2, title="start of day", merged_at=datetime(2026, 8, 5, tzinfo=UTC))
    fake.add_pr("o/r", 3, title="end of day", merged_at=datetime(2026, 8, 5, 23, 59, 59, tzinfo=UTC))
    fake.add_pr("o/r", 4, title="closed unmerged", merged_at=None, closed_at=T0)
    fake.add_pr("x/y", 5, title="other repo", merged_at=T0)

    def numbers(query: str) -> list[int]:
        return sorted(issue.number for issue in gh.search_issues(query))

    assert numbers("repo:o/r is:pr is:merged merged:2026-08-05..2026-08-05") == [2, 3]
    assert numbers("repo:o/r is:pr is:merged merged:2026-08-04T12:00:00Z..2026-08-05T00:00:00+00:00") == [1, 2]
    assert numbers("repo:o/r is:pr is:merged merged:>=2026-08-05") == [2, 3]
    assert numbers("repo:o/r is:pr is:merged merged:<2026-08-05") == [1]
    assert numbers("repo:o/r is:pr is:unmerged") == [4]
    (hit,) = gh.search_issues("repo:x/y is:pr is:merged")
    assert hit.pull_request is not None and hit.pull_request.merged_at == T0
    assert hit.pull_request.html_url == "https://github.com/x/y/pull/5"
    assert hit.as_pull_request().merge_commit_sha  # follows pull_request.url to the fake


def test_search_paginates_with_total_count(fake: FakeGitHub, gh: Github) -> None:
    for n in range(1, 151):
        fake.add_pr("o/r", n, title=f"PR {n}", merged_at=T0)
    results = gh.search_issues("repo:o/r is:pr is:merged merged:2026-08-05")
    assert sum(1 for _ in results) == 150 and results.totalCount == 150
    assert fake.count("^/search/issues$") == 2


def test_unknown_repo_fault_injection_and_rate_limit(fake: FakeGitHub, gh: Github) -> None:
    fake.add_pr("o/r", 1, title="t", merged_at=T0)
    with pytest.raises(UnknownObjectException):
        gh.get_repo("nope/nope").get_pull(1).title  # noqa: B018 - the attribute read is the request

    fake.fail_next(r"/pulls/1$", 502)
    with pytest.raises(GithubException) as failed:
        gh.get_repo("o/r").get_pull(1).title  # noqa: B018
    assert failed.value.status == 502
    assert gh.get_repo("o/r").get_pull(1).title == "t"  # the fault was used up

    fake.rate_limit = 1
    assert gh.get_repo("o/r").get_pull(1).title == "t"
    with pytest.raises(RateLimitExceededException) as limited:
        gh.get_repo("o/r").get_pull(1).title  # noqa: B018
    assert limited.value.headers is not None and limited.value.headers["x-ratelimit-remaining"] == "0"
    assert gh.get_rate_limit().resources.core.remaining == 0  # /rate_limit itself is free


def test_dataset_populates_the_fake(fake: FakeGitHub, gh: Github) -> None:
    rows = shared_rows()
    day = dataset.merged_on(rows, "2026-08-05")
    dataset.populate(fake, rows)
    found = gh.search_issues("repo:vllm-project/vllm is:pr is:merged merged:2026-08-05..2026-08-05")
    assert sorted(i.number for i in found) == sorted(r["number"] for r in day) and len(day) == 52
    row = max(day, key=lambda r: len(r["files"]))
    files = list(gh.get_repo("vllm-project/vllm").get_pull(row["number"]).get_files())
    assert [f.filename for f in files] == [f["path"] for f in row["files"]]
    assert sum(f.additions for f in files) == row["additions"]


def test_dataset_authors_are_logins_with_their_names_on_the_profile(fake: FakeGitHub, gh: Github) -> None:
    rows = shared_rows()
    dataset.populate(fake, rows)
    row = next(r for r in rows if r["author"] == "Nick Hill")
    pull = gh.get_repo("vllm-project/vllm").get_pull(row["number"])
    assert pull.user.login == "nhill"  # a listing says only this
    assert gh.get_user("nhill").name == "Nick Hill"
    handle = next(r for r in rows if r["author"] == "shikamd123")
    assert gh.get_repo("vllm-project/vllm").get_pull(handle["number"]).user.login == "shikamd123"


def test_every_dataset_author_has_a_login_of_their_own() -> None:
    authors = {row["author"] for row in shared_rows()}
    logins = {dataset.login_of(author).lower() for author in authors}
    assert len(logins) == len(authors) == 225


@pytest.mark.parametrize(
    ("author", "login"),
    [
        ("Nick Hill", "nhill"),
        ("Kevin H. Luu", "kluu"),
        ("Jane (Yuan) Xu", "jxu"),  # the nickname is neither first nor last
        ("Elvir Crnčević", "ecrncevic"),  # a login is ASCII
        ("Li, Jiang", "ljiang"),
        ("Walter Beller-Morales", "wbeller-morales"),
        ("Michael Goin", "mgoin"),
        ("Misha Goin", "mishagoin"),  # not Michael Goin's
        ("shikamd123", "shikamd123"),  # a handle stays as is
        ("dependabot[bot]", "dependabot[bot]"),
    ],
)
def test_login_of_a_dataset_author(author: str, login: str) -> None:
    assert dataset.login_of(author) == login


def test_a_user_is_served_as_github_does(fake: FakeGitHub, gh: Github) -> None:
    fake.add_user("nhill", "Nick Hill")
    fake.add_pr("o/r", 1, title="t", author="anon", merged_at=T0)  # an author without a display name
    user = gh.get_user("NHill")  # GitHub ignores case in logins
    assert (user.login, user.name, user.type, user.html_url) == (
        "nhill",
        "Nick Hill",
        "User",
        "https://github.com/nhill",
    )
    assert set(user.raw_data) >= {"login", "id", "node_id", "avatar_url", "url", "type", "site_admin", "name"}
    assert gh.get_user("anon").name is None
    assert fake.count(r"^/users/") == 2


def test_an_unknown_user_is_githubs_not_found(fake: FakeGitHub, gh: Github) -> None:
    with pytest.raises(UnknownObjectException) as missing:
        gh.get_user("nobody")
    assert missing.value.status == 404
    assert missing.value.data == {
        "message": "Not Found",
        "documentation_url": "https://docs.github.com/rest/users/users#get-a-user",
        "status": "404",
    }


def test_user_requests_spend_the_rate_limit(fake: FakeGitHub, gh: Github) -> None:
    fake.add_user("nhill", "Nick Hill")
    fake.rate_limit = 1
    assert gh.get_user("nhill").name == "Nick Hill"
    with pytest.raises(RateLimitExceededException):
        gh.get_user("nhill")
    assert fake.counts_by_kind() == {"user": 2}


def test_synth_patch_counts_and_hunk_size() -> None:
    patch = dataset.synth_patch("vllm/x.py", 130, 47)
    assert patch == dataset.synth_patch("vllm/x.py", 130, 47)
    assert _count_lines(patch) == (130, 47)
    hunks = patch.split("\n@@")
    assert all(len(h.splitlines()) <= 41 for h in hunks)  # 40 lines + the header
    assert "+    value_" in patch
    assert dataset.synth_patch("docs/a.md", 0, 0) == ""


def test_generate_rows_is_deterministic_and_roughly_shaped() -> None:
    rows = dataset.generate_rows(2000, seed=1, start=T0, span=timedelta(days=10))
    assert rows == dataset.generate_rows(2000, seed=1, start=T0, span=timedelta(days=10))
    files, lines = dataset.size_percentiles(rows, "files"), dataset.size_percentiles(rows, "lines")
    assert 1 <= files["p50"] <= 3 and 7 <= files["p90"] <= 16 and 20 <= files["p99"] <= 45
    assert 40 <= lines["p50"] <= 100 and 350 <= lines["p90"] <= 800 and lines["max"] <= 6475
    assert all(r["merged_at"] >= "2026-08-05" for r in rows) and len({r["number"] for r in rows}) == 2000


# -- OpenAI ------------------------------------------------------------------------------------


def test_parse_default_card(llm: FakeOpenAI) -> None:
    with make_client(llm) as client:
        assert ask(client) == Card(**DEFAULT_CARD)
    assert llm.calls == 1
    assert llm.chat_requests()[0]["response_format"]["json_schema"]["name"] == "Card"


def test_server_error_is_retried(llm: FakeOpenAI) -> None:
    llm.fail_next(500, headers={"retry-after-ms": "1"})
    with make_client(llm, max_retries=1) as client:
        assert ask(client) == Card(**DEFAULT_CARD)
    assert llm.calls == 2


def test_hang_trips_the_client_timeout(llm: FakeOpenAI) -> None:
    llm.hang_next(5)
    with make_client(llm, timeout=0.5) as client, pytest.raises(openai.APITimeoutError):
        ask(client)


def test_invalid_json_fails_validation(llm: FakeOpenAI) -> None:
    llm.invalid_json_next()
    with make_client(llm) as client, pytest.raises(pydantic.ValidationError):
        ask(client)


def test_responder_and_fifo_faults(llm: FakeOpenAI) -> None:
    llm.responder = lambda request: {**DEFAULT_CARD, "headline": request["messages"][-1]["content"]}
    llm.fail_next(429, headers={"retry-after-ms": "1"})
    llm.invalid_json_next()
    with make_client(llm) as client:
        with pytest.raises(openai.RateLimitError):
            ask(client)
        with pytest.raises(pydantic.ValidationError):
            ask(client)
        card = ask(client)
    assert card is not None and card.headline == "Title: [CI] x"
    assert llm.calls == 3


def test_a_model_with_slots_makes_the_requests_past_them_wait_their_turn() -> None:
    # Two slots, four requests at once, each generating for 0.5 s: two rounds, two requests waited.
    with FakeOpenAI(latency=0.5, max_concurrent=2) as llm, make_client(llm) as client:
        started = time.monotonic()
        with ThreadPoolExecutor(max_workers=4) as pool:
            cards = list(pool.map(lambda _: ask(client), range(4)))
        elapsed = time.monotonic() - started
    assert cards == [Card(**DEFAULT_CARD)] * 4
    assert elapsed >= 1.0
    assert llm.calls == 4 and llm.peak_generating == 2 and llm.waited == 2


def _count_lines(patch: str) -> tuple[int, int]:
    lines = patch.splitlines()
    return sum(1 for x in lines if x.startswith("+")), sum(1 for x in lines if x.startswith("-"))


def test_a_repositorys_review_comments_page_by_update_from_since(fake: FakeGitHub, gh: Github) -> None:
    # GitHub's "List review comments in a repository": sort, direction, since (updated at or after).
    for number in (1, 2, 3):
        fake.add_pr(
            "o/r",
            number,
            title="t",
            merged_at=T0,
            review_comments=[
                {"author": "bob", "body": f"{number}-{i}", "path": "a.py", "created_at": T0 - timedelta(hours=i)}
                for i in range(60)
            ],
        )
    since = T0 - timedelta(hours=30)
    listed = list(gh.get_repo("o/r").get_pulls_comments(sort="updated", direction="asc", since=since))
    assert len(listed) == 3 * 31  # hours 0..30 before T0, each on three PRs
    assert [c.updated_at for c in listed] == sorted(c.updated_at for c in listed)
    assert all(c.updated_at >= since for c in listed)
    assert {c.pull_request_url.rsplit("/", 1)[1] for c in listed} == {"1", "2", "3"}
    assert fake.count(r"/pulls/comments$") == 1  # PyGithub asked for 100 a page: one page of 93
    fake.reset_requests()
    assert len(list(gh.get_repo("o/r").get_pulls_comments())) == 180
    assert fake.count(r"/pulls/comments$") == 2  # by Link rel="next"


def test_an_etag_held_gets_304_free_with_a_token_and_counted_without(fake: FakeGitHub) -> None:
    fake.add_pr("o/r", 1, title="t", merged_at=T0)
    fake.rate_limit = 10
    url = f"{fake.url}/repos/o/r/pulls?state=closed"
    first = requests.get(url, timeout=5)
    etag = first.headers["etag"]
    again = requests.get(url, headers={"If-None-Match": etag, "Authorization": "token x"}, timeout=5)
    assert (again.status_code, again.content) == (304, b"")
    assert fake.rate_limit == 9  # GitHub: an authorized 304 does not count
    anonymous = requests.get(url, headers={"If-None-Match": etag}, timeout=5)
    assert anonymous.status_code == 304 and fake.rate_limit == 8
    fake.add_pr("o/r", 2, title="t2", merged_at=T0)
    changed = requests.get(url, headers={"If-None-Match": etag, "Authorization": "token x"}, timeout=5)
    assert changed.status_code == 200 and changed.headers["etag"] != etag


def test_anonymous_is_60_an_hour_with_githubs_403(fake: FakeGitHub) -> None:
    fake.add_pr("o/r", 1, title="t", merged_at=T0)
    fake.anonymous()
    answers = [requests.get(f"{fake.url}/repos/o/r/pulls/1", timeout=5) for _ in range(61)]
    assert answers[0].headers["x-ratelimit-limit"] == "60"
    assert answers[59].status_code == 200 and answers[59].headers["x-ratelimit-remaining"] == "0"
    refused = answers[60]
    assert refused.status_code == 403 and refused.json()["message"].startswith("API rate limit exceeded")


def test_the_data_sets_busiest_day_has_a_few_hundred_review_comments(fake: FakeGitHub, gh: Github) -> None:
    day = dataset.merged_on(shared_rows(), "2026-08-05")
    dataset.populate(fake, day)
    start = datetime(2026, 8, 4, tzinfo=UTC)
    listed = list(gh.get_repo("vllm-project/vllm").get_pulls_comments(sort="updated", direction="asc", since=start))
    assert 200 <= len(listed) <= 400
    assert fake.count(r"/pulls/comments$") >= 3  # pages of 100
    assert len({c.pull_request_url for c in listed}) >= 40
