"""Authors through the real PyGithub client against the fake GitHub and a real Redis: a day of the
shared data set, whose listings carry logins only, matched by the names people call their authors;
and a week of it asked about by name through the served app, without a token (60 requests an hour)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from devkit.fakes import dataset
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.models import Window
from bot.questions.across.authors import Authors, matches_person
from bot.store.backends.redis_store import RedisKV
from bot.store.repos.authors import AuthorStore
from tests.integration.conftest import REPO, ServicesFactory, day, settings_for
from tests.integration.slack_harness import DIGEST_CHANNEL, SlackHarness, serve_harness, wait_for
from tests.shared_data import shared_rows


def test_a_days_authors_are_named_with_one_request_each_then_from_the_cache(
    github: FakeGitHub, make_services: ServicesFactory, redis_url: str
) -> None:
    rows = dataset.merged_on(shared_rows(), "2026-08-05")
    dataset.populate(github, rows, REPO)
    source = make_services(settings_for(github), now=day(30)).source
    listings = source.list_merged(REPO, Window(day(0), day(24)))
    logins = [listing.author for listing in listings]
    assert "Nick-Hill" not in logins and "Nick Hill" not in logins
    kv = RedisKV.from_url(redis_url)
    try:
        github.reset_requests()
        names = Authors(source, AuthorStore(kv)).names(logins)
        assert names == {dataset.login_of(row["author"]): row["author"] for row in rows}
        assert sorted(request.path for request in github.requests) == sorted(f"/users/{login}" for login in names)

        github.reset_requests()
        assert Authors(source, AuthorStore(kv)).names(logins) == names
        assert github.requests == []
    finally:
        kv.close()

    hill = {
        listing.number for listing in listings if matches_person("Nick Hill", listing.author, names[listing.author])
    }
    assert hill == {row["number"] for row in rows if row["author"] == "Nick Hill"} != set()
    by_login = {listing.number for listing in listings if matches_person("@nhill", listing.author, None)}
    assert by_login == hill


# Friday morning: "this week" is Monday Aug 10 to now, 222 PRs by more than a hundred authors.
NOW = datetime(2026, 8, 14, 10, 0, tzinfo=UTC)
MONDAY = datetime(2026, 8, 10, tzinfo=UTC)


def this_week() -> list[dict[str, Any]]:
    return [row for row in shared_rows() if MONDAY <= dataset.parse_time(row["merged_at"]) < NOW]


@pytest.fixture
def anonymous(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    dataset.populate(github, this_week())
    github.anonymous()
    with serve_harness(github, model, redis_url, tmp_path, now=lambda: NOW, with_model=False) as harness:
        yield harness


def answer(harness: SlackHarness, question: str) -> str:
    ts, response = harness.mention(DIGEST_CHANNEL, question)
    assert response.status_code == 200

    def replied() -> list[dict[str, Any]]:
        thread = harness.slack.thread(DIGEST_CHANNEL, ts)
        return [m for m in thread if m.get("bot_id") and "Looking into it" not in (m.get("text") or "")]

    (reply,) = wait_for(replied)
    return json.dumps(reply.get("blocks", []), ensure_ascii=False) + reply.get("text", "")


def listed(text: str) -> set[int]:
    return {int(n) for n in re.findall(r"<https://github\.com/vllm-project/vllm/pull/(\d+)\|#\1>", text)}


def profiles_read(github: FakeGitHub) -> list[str]:
    return [request.path for request in github.requests if request.path.startswith("/users/")]


def test_a_name_reads_a_profile_or_two_not_one_per_author_of_the_week(anonymous: SlackHarness) -> None:
    week = this_week()
    assert len({row["author"] for row in week}) > 100
    hills = {row["number"] for row in week if row["author"] == "Nick Hill"}
    text = answer(anonymous, "what did Nick Hill merge this week?")
    assert listed(text) == hills != set()
    # "nhill" shares "hill" with the name; no other profile of the week's authors is read.
    assert profiles_read(anonymous.github) == ["/users/nhill"]
    assert f"{len(hills)} PRs by Nick Hill were merged in {REPO} this week (Aug 10–14)" in text


def test_a_name_two_authors_share_lists_both_and_says_so(anonymous: SlackHarness) -> None:
    goins = {row["number"]: row["author"] for row in this_week() if row["author"].endswith(" Goin")}
    assert set(goins.values()) == {"Michael Goin", "Misha Goin"}
    text = answer(anonymous, "what did Goin merge this week?")
    assert listed(text) == set(goins)
    assert sorted(profiles_read(anonymous.github)) == ["/users/mgoin", "/users/mishagoin"]
    assert "is the name of 2 people here" in text and "Michael Goin (@mgoin)" in text
    assert "Misha Goin (@mishagoin)" in text


def test_with_the_hour_spent_a_reply_says_so_and_when_it_resets(anonymous: SlackHarness) -> None:
    answer(anonymous, "what merged this week about MoE?")  # the week's list, cached for minutes
    anonymous.github.rate_limit = 0
    text = answer(anonymous, "what did Jane Roe merge this week?")
    assert "No PR by Jane Roe merged" in text
    unread = r"could not be read, so their PRs were not matched by name\. GitHub's rate limit is used up until"
    assert re.search(unread + r" \d\d:\d\d UTC", text)
    # Days not listed yet: said as `prdigest card` says it, not "GitHub is not answering".
    text = answer(anonymous, "what merged yesterday?")
    assert re.search(r"GitHub's rate limit is used up until \d\d:\d\d UTC", text)
    assert "not answering" not in text


def test_with_the_hour_spent_a_prs_card_and_a_question_about_it_say_when_it_resets(anonymous: SlackHarness) -> None:
    anonymous.github.rate_limit = 0
    hook, response = anonymous.command(f"{REPO}#52076")
    assert response.status_code == 200
    (payload,) = wait_for(lambda: anonymous.slack.responses[hook], timeout=15)
    assert re.search(r"GitHub's rate limit is used up until \d\d:\d\d UTC", json.dumps(payload))
    text = answer(anonymous, f"what does {REPO}#52076 change?")
    assert re.search(r"GitHub's rate limit is used up until \d\d:\d\d UTC", text) and "not answering" not in text
