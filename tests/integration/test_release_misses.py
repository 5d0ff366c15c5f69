"""A tag GitHub does not have, named again and again: `prdigest ask` and `prdigest release` against
the fake GitHub and a real Redis ask GitHub's compare about it once while the miss is remembered
(store/repos/releases.py), and find the tag once it exists and the miss has lapsed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import redis
import requests
from devkit.fakes.github import FakeGitHub

from bot.cli.main import main
from bot.store.repos.releases import UNKNOWN_RANGE_TTL
from tests.integration.conftest import REPO, told

START = datetime(2026, 9, 1, tzinfo=UTC)
QUESTION = "what changed between v0.1.0 and v0.9.0?"


@pytest.fixture
def tagged(github: FakeGitHub, redis_url: str, monkeypatch: pytest.MonkeyPatch) -> FakeGitHub:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("REDIS_URL", redis_url)
    for number in range(1, 11):
        github.add_pr(
            REPO,
            number,
            title=f"[Core] Change {number}",
            merged_at=START + timedelta(hours=number),
            files=[{"path": f"vllm/core/part_{number}.py", "additions": number, "deletions": 1}],
        )
    github.add_release(REPO, "v0.1.0", START + timedelta(hours=5, minutes=1))
    github.add_release(REPO, "v0.2.0", START + timedelta(hours=8, minutes=1))
    return github


def _unknown_keys(redis_url: str) -> list[tuple[bytes, int]]:
    client = redis.Redis.from_url(redis_url)
    try:
        return [(key, int(client.ttl(key))) for key in client.scan_iter(match="*release_unknown:*")]
    finally:
        client.close()


def test_the_fake_answers_an_unknown_ref_as_github_does(tagged: FakeGitHub) -> None:
    answer = requests.get(f"{tagged.url}/repos/{REPO}/compare/v0.1.0...v0.9.0", timeout=10)
    assert answer.status_code == 404 and answer.json()["message"] == "Not Found"


def test_twenty_questions_naming_an_unknown_tag_ask_github_once(
    tagged: FakeGitHub, redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for _ in range(20):
        assert main(["ask", REPO, QUESTION]) == 1
        (line,) = told(capsys.readouterr().err)
        assert "has no release v0.1.0...v0.9.0" in line
    counts = tagged.counts_by_kind()
    assert counts.get("compare") == 1, counts
    assert sum(counts.values()) <= 2, counts  # the release list, and the compare
    # The same range through `prdigest release`: remembered too, nothing asked.
    assert main(["release", REPO, "v0.9.0", "--since", "v0.1.0"]) == 1
    assert "no range 'v0.1.0'...'v0.9.0'" in told(capsys.readouterr().err)[0]
    assert tagged.counts_by_kind().get("compare") == 1
    ((_, ttl),) = _unknown_keys(redis_url)
    assert 0 < ttl <= UNKNOWN_RANGE_TTL <= 600


def test_a_tag_pushed_later_is_found_once_the_miss_lapses(
    tagged: FakeGitHub, redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", REPO, QUESTION]) == 1
    tagged.add_release(REPO, "v0.9.0", START + timedelta(hours=10, minutes=1))
    ((key, _),) = _unknown_keys(redis_url)
    client = redis.Redis.from_url(redis_url)
    try:
        client.pexpire(key, 1)  # Redis lets it lapse, as it would UNKNOWN_RANGE_TTL later
    finally:
        client.close()
    capsys.readouterr()
    assert main(["ask", REPO, QUESTION, "--format", "json"]) == 0
    assert '"release": "v0.1.0...v0.9.0"' in capsys.readouterr().out
    assert tagged.counts_by_kind().get("compare") == 2
