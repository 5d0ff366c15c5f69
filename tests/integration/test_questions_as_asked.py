"""Questions as people ask them, through the real app on loopback (fake Slack and GitHub with the
vLLM data set of Aug 4-5, a real Redis), months later: the clock is 2026-12-01. A date months
back, the PR meant by a word of its title, a DM question about a repository the person may not
see, and the model's reading of a question the rules cannot read, which may not name a private
repository."""

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
from devkit.fakes.slack_agent import im_message

from tests.integration.conftest import REPO
from tests.integration.slack_harness import CONFIG, DIGEST_CHANNEL, SlackHarness, serve_harness, wait_for
from tests.shared_data import shared_rows

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
SECRET = "acme/secret"
SECRET_CHANNEL = "C0SECRET01"
READER, DM = "U0READER01", "D0READER01"


def rows() -> list[dict[str, Any]]:
    return [row for row in shared_rows() if row["merged_at"][:10] in ("2026-08-04", "2026-08-05")]


def harness_with(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path, *, with_model: bool
) -> Iterator[SlackHarness]:
    dataset.populate(github, rows())
    github.add_repo(SECRET, private=True)
    config = CONFIG + f'\n[[channels]]\nid = "{SECRET_CHANNEL}"\nrepos = ["{SECRET}"]\n'
    with serve_harness(
        github, model, redis_url, tmp_path, config_text=config, now=lambda: NOW, with_model=with_model
    ) as harness:
        harness.slack.members[DIGEST_CHANNEL] = [READER]
        yield harness


@pytest.fixture
def later(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    yield from harness_with(github, model, redis_url, tmp_path, with_model=False)


@pytest.fixture
def later_with_model(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    yield from harness_with(github, model, redis_url, tmp_path, with_model=True)


def mentioned(harness: SlackHarness, question: str) -> str:
    """The bot's reply to an @mention in the channel, once its placeholder has gone."""
    ts, _ = harness.mention(DIGEST_CHANNEL, question)
    return _reply(harness, DIGEST_CHANNEL, ts)


def in_dm(harness: SlackHarness, question: str) -> str:
    ts = harness.slack.add_message(DM, question, user=READER)
    harness.event(im_message(READER, DM, question, ts))
    return _reply(harness, DM, ts)


def _reply(harness: SlackHarness, channel: str, ts: str) -> str:
    def answered() -> list[dict[str, Any]]:
        return [
            message
            for message in harness.slack.thread(channel, ts)
            if message.get("bot_id")
            and float(message["ts"]) > float(ts)
            and "Looking into it" not in (message.get("text") or "")
        ]

    (reply,) = wait_for(answered)
    return json.dumps(reply.get("blocks", []), ensure_ascii=False) + reply.get("text", "")


def numbers(text: str) -> set[int]:
    return {int(number) for number in re.findall(r"/pull/(\d+)\|[\w./-]*#\1>", text)}


def about(day: str, word: str) -> set[int]:
    """The data set's PRs of `day` whose title names `word`: what a reader expects of a span
    months back, whose PRs have no cached snapshot (their files are not read for a question)."""
    return {row["number"] for row in rows() if row["merged_at"][:10] == day and word in row["title"].lower()}


def test_a_date_months_back_is_one_day_not_a_span_too_long(later: SlackHarness) -> None:
    expected = about("2026-08-04", "attention")
    assert 0 < len(expected) <= 10
    text = in_dm(later, f"which PRs merged in {REPO} on 2026-08-04 touch attention?")
    assert numbers(text) == expected
    assert "at most" not in text  # not "A question may span at most 31 days"


def test_a_date_as_people_write_it_in_chinese(later: SlackHarness) -> None:
    expected = about("2026-08-05", "kimi")
    text = mentioned(later, "8月5日有哪些关于 Kimi 的 PR？")
    assert expected and numbers(text) == expected


def test_the_pr_meant_by_a_word_of_its_title_is_answered_as_if_named(later: SlackHarness) -> None:
    # "tell me about the lamport PR": one PR of the data set has "Lamport" in its title.
    text = mentioned(later, "tell me about the lamport PR from Aug 4")
    assert "50697" in text and "Lamport" in text


def test_several_prs_meant_by_a_word_are_offered_to_choose_from(later: SlackHarness) -> None:
    meant = about("2026-08-05", "kimi")
    assert len(meant) > 1
    assert numbers(mentioned(later, "the kimi PR on Aug 5?")) == meant


def test_a_dm_question_about_a_repository_the_person_may_not_see_names_nothing(later: SlackHarness) -> None:
    text = in_dm(later, f"what merged in {SECRET} yesterday?")
    assert SECRET not in text and "secret" not in text.lower()
    # Whether it is private is looked up; its PRs are never listed.
    assert later.github.count(r"/repos/acme/secret/pulls|/search/issues.*acme") == 0


def test_a_reading_by_the_model_that_names_a_private_repository_is_dropped(
    later_with_model: SlackHarness,
) -> None:
    harness = later_with_model

    def respond(request: dict[str, Any]) -> dict[str, Any] | str:
        schema = json.dumps(request.get("response_format", {})) + json.dumps(request.get("tools", []))
        if "ReadingDraft" in schema:
            # The model names the private repository and a topic: the repository is dropped.
            return {"first_day": "2026-08-04", "last_day": "2026-08-04", "repository": SECRET, "topic": ["kimi"]}
        if "response_format" in request or "tools" in request:
            return {"headline": "A change", "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}
        return ""  # no written answer: the list is the answer

    harness.model.responder = respond
    text = mentioned(harness, "yo, kimi stuff from the 4th of aug-ish??")
    assert SECRET not in text
    assert numbers(text) == about("2026-08-04", "kimi")
    assert harness.github.count(r"/repos/acme/secret/pulls|/search/issues.*acme") == 0


def by(day: str, author: str) -> set[int]:
    return {row["number"] for row in rows() if row["merged_at"][:10] == day and row["author"] == author}


def test_a_person_is_found_by_display_name_and_by_login(later: SlackHarness) -> None:
    expected = by("2026-08-05", "Nick Hill")
    assert expected and dataset.login_of("Nick Hill") == "nhill"
    assert numbers(mentioned(later, "what did Nick Hill merge on Aug 5?")) == expected
    users = later.github.count(r"^/users/")
    assert numbers(mentioned(later, "PRs by @nhill on aug 5th")) == expected
    assert later.github.count(r"^/users/") == users  # a login needs no profile
    assert numbers(mentioned(later, "nick hill 8月5日合并了什么")) == expected
