"""`prdigest release` as a user runs it, against a fake GitHub that answers releases, compare and
commits/{sha}/pulls as GitHub's REST docs describe (pagination, and the 250-commit cut without it):
every PR of the range and none outside it, with verdicts and "before you upgrade"; a second run
asks GitHub nothing."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.slack import FakeSlack

from bot.cli.main import main
from tests.integration.conftest import REPO, told

START = datetime(2026, 9, 1, tzinfo=UTC)
V1_PRS = range(1, 21)  # before v0.1.0
V2_PRS = range(21, 321)  # 300 PRs: more than one unpaged compare shows
AFTER = range(321, 326)  # merged after v0.2.0


def at(number: int) -> datetime:
    return START + timedelta(hours=number)


@pytest.fixture
def releases(github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> FakeGitHub:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    for number in (*V1_PRS, *V2_PRS, *AFTER):
        title = f"[Core] Change {number}"
        if number == 42:
            title = "[Frontend] Remove the deprecated --disable-log-requests"
        github.add_pr(
            REPO,
            number,
            title=title,
            merged_at=at(number),
            files=[{"path": f"vllm/core/part_{number % 7}.py", "additions": number, "deletions": 1}],
        )
    github.merge_with_commit(REPO, 100)  # one PR merged with a merge commit: its branch is not the release's
    github.add_push(REPO, at(200) + timedelta(minutes=30), "Bump the version to 0.2.0.dev")
    github.add_release(REPO, "v0.1.0", at(20) + timedelta(minutes=1))
    github.add_release(REPO, "v0.2.0rc1", at(150) + timedelta(minutes=1), prerelease=True)
    github.add_release(REPO, "v0.2.0", at(320) + timedelta(minutes=1))
    github.add_release(REPO, "v0.3.0-draft", at(325) + timedelta(minutes=1), draft=True)
    return github


def numbers(out: str) -> list[int]:
    return sorted(item["number"] for item in json.loads(out)["items"])


def test_a_release_of_300_prs_holds_every_pr_of_its_range_and_none_outside(
    releases: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["release", REPO, "v0.2.0", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["tag"] == "v0.2.0" and data["since"] == "v0.1.0"  # the pre-release between is passed over
    assert numbers(json.dumps(data)) == list(V2_PRS)
    assert data["unnamed_commits"] == 1  # the version bump
    assert [point["number"] for point in data["before_you_upgrade"]] == [42]
    assert data["counts"]["read"] + data["counts"]["skim"] + data["counts"]["skip"] == 300
    # The compare went page by page (GitHub cuts an unpaged one at 250 commits).
    compares = [r for r in releases.requests if "/compare/" in r.path]
    assert len(compares) >= 3 and all(r.query.get("per_page") == "100" for r in compares)


def test_without_a_tag_the_latest_full_release_is_shown_and_since_names_the_start(
    releases: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["release", REPO, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["tag"] == "v0.2.0"
    assert main(["release", REPO, "v0.2.0", "--since", "v0.2.0rc1", "--format", "json"]) == 0
    assert numbers(capsys.readouterr().out) == list(range(151, 321))


def test_the_text_says_counts_areas_and_what_to_know_before_upgrading(
    releases: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["release", REPO, "v0.2.0rc1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{REPO} v0.2.0rc1 (since v0.1.0)\n130 merged")
    # Said in the card's headline (from metadata here: the title without its tag).
    assert "Before you upgrade\n  - Removed: [Frontend] Remove the deprecated --disable-log-requests (#42)" in out
    assert "[Core] (" in out


def test_a_second_run_asks_github_nothing(
    releases: FakeGitHub, redis_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REDIS_URL", redis_url)
    assert main(["release", REPO, "v0.2.0rc1", "--format", "json"]) == 0
    first = capsys.readouterr().out
    before = len(releases.requests)
    assert main(["release", REPO, "v0.2.0rc1", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["items"] == json.loads(first)["items"]
    assert len(releases.requests) == before


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["release", REPO, "v0.1.0"], "v0.1.0' is the first release"),
        (["release", REPO, "v0.9.0"], "has no release 'v0.9.0'"),
        (["release", REPO, "v0.2.0", "--since", "nope"], "no range 'nope'...'v0.2.0'"),
        (["release", REPO, "v..2"], "is not a tag"),
    ],
)
def test_a_tag_that_cannot_be_a_release_is_one_line(
    releases: FakeGitHub, capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    assert main(args) == 1
    err = capsys.readouterr().err
    (line,) = told(err)
    assert said in line and "Traceback" not in err


def test_the_fake_cuts_an_unpaged_compare_at_250_commits_as_github_does(releases: FakeGitHub) -> None:
    body = requests.get(f"{releases.url}/repos/{REPO}/compare/v0.1.0...v0.2.0", timeout=10).json()
    assert body["total_commits"] > 250 and len(body["commits"]) == 250
    assert body["commits"][-1]["commit"]["message"].startswith("[Core] Change 320")


def test_release_questions_are_answered_from_the_range_and_the_cache(
    releases: FakeGitHub, redis_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REDIS_URL", redis_url)
    assert main(["ask", REPO, "which release has #42?"]) == 0
    assert (
        "#42 (https://github.com/vllm-project/vllm/pull/42) shipped in v0.2.0, published 2026-09-14."
        in capsys.readouterr().out
    )
    assert main(["ask", REPO, "is #323 in a release?"]) == 0
    assert "is not in a release yet: the latest is v0.2.0." in capsys.readouterr().out
    # A release's PRs by a word of their titles, from the squash commits' subjects: no PR fetched.
    releases.reset_requests()
    assert main(["ask", REPO, "what's in v0.2.0 about the frontend?", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [item["number"] for item in data["items"]] == [42] and data["span"]["release"] == "v0.2.0"
    assert not [r for r in releases.requests if "/pulls/" in r.path]
    assert main(["ask", REPO, "v0.2.0 和 v0.9.0 之间有哪些改动？"]) == 1


def test_release_post_posts_lead_and_thread_once(
    releases: FakeGitHub, redis_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeSlack() as slack:
        monkeypatch.setenv("REDIS_URL", redis_url)
        monkeypatch.setenv("SLACK_API_URL", slack.api_url)
        monkeypatch.setenv("SLACK_BOT_TOKEN", slack.bot_token)
        assert main(["release", REPO, "v0.2.0rc1", "--post", "C0RELEASES"]) == 0
        assert "release posted to C0RELEASES" in capsys.readouterr().out
        posts = len(slack.calls("chat.postMessage"))
        assert main(["release", REPO, "v0.2.0rc1", "--post", "C0RELEASES"]) == 0
        (lead,) = slack.messages("C0RELEASES")
        assert lead["text"].startswith(f"{REPO} v0.2.0rc1 (since v0.1.0)")
        # Posted before: said so, with a link to the lead, and nothing posted again.
        link = f"https://fake.slack/archives/C0RELEASES/p{lead['ts'].replace('.', '')}"
        said = capsys.readouterr().out
        assert said == f"{REPO} v0.2.0rc1 was posted to C0RELEASES before: {link}\n"
        assert len(slack.calls("chat.postMessage")) == posts
        assert main(["release", REPO, "v0.2.0rc1", "--post", "C0RELEASES", "--lang", "zh-CN"]) == 0
        assert capsys.readouterr().out == f"{REPO} v0.2.0rc1 之前已发送到 C0RELEASES：{link}\n"
        slack.fail_next("chat.getPermalink", "message_not_found")  # the lead deleted since
        assert main(["release", REPO, "v0.2.0rc1", "--post", "C0RELEASES"]) == 0
        assert capsys.readouterr().out == f"{REPO} v0.2.0rc1 was posted to C0RELEASES before (message {lead['ts']})\n"
        assert len(slack.thread("C0RELEASES", lead["ts"])) >= 1
        assert main(["release", REPO, "v0.2.0rc1", "--post", "releases"]) == 1  # a name is no channel id
        assert "releases" in told(capsys.readouterr().err)[0]
