"""Ten channels following one repository post at once: GitHub is asked about as often as for one
(issue 14). Snapshots are fetched once per PR whichever channel asks first (the others wait for it
in the store), and a window's list of merged PRs is read once and shared."""

from __future__ import annotations

import threading
import urllib.parse
from collections import Counter
from pathlib import Path

from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.server import RecordedRequest
from devkit.fakes.slack import FakeSlack

from bot.models import DigestOptions, Filters
from tests.integration.conftest import REPO, day
from tests.integration.test_reliability import DAY, WINDOW, good_card, replica

LONE_REPO = "acme/lone"
CHANNELS = [f"C0FOLLOW{index:02d}" for index in range(10)]
LONE_CHANNEL = "C0LONE0001"
PRS = 20


def _config() -> str:
    channels = "".join(f'\n[[channels]]\nid = "{channel}"\nrepos = ["{REPO}"]\n' for channel in CHANNELS)
    return f'[defaults]\ntimezone = "UTC"\n{channels}\n[[channels]]\nid = "{LONE_CHANNEL}"\nrepos = ["{LONE_REPO}"]\n'


def _about(request: RecordedRequest, repo: str) -> bool:
    """A request about `repo`: its own paths, or a search naming it."""
    return request.path.startswith(f"/repos/{repo}") or f"repo:{repo} " in urllib.parse.unquote_plus(request.raw_query)


def _requests_for(github: FakeGitHub, repo: str) -> int:
    return sum(1 for request in github.requests if _about(request, repo))


def test_ten_channels_of_one_repository_ask_github_about_as_often_as_one(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    for repo in (REPO, LONE_REPO):
        for number in range(1, PRS + 1):
            github.add_pr(
                repo,
                number,
                title=f"Change number {number}",
                merged_at=day(number * 0.5),
                files=[{"path": f"vllm/mod_{number}.py", "additions": 50, "deletions": 3}],
            )
    model.responder = good_card
    model.latency = 0.05
    config = tmp_path / "prdigest.toml"
    config.write_text(_config(), encoding="utf-8")
    with FakeSlack() as slack, replica(github, model, slack, redis_url, config) as parts:

        def post(channel: str, repo: str) -> None:
            parts.digests.run(channel, DAY, WINDOW, (repo,), options=DigestOptions("en", Filters(), "note"))

        post(LONE_CHANNEL, LONE_REPO)
        threads = [threading.Thread(target=post, args=(channel, REPO)) for channel in CHANNELS]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        one, ten = _requests_for(github, LONE_REPO), _requests_for(github, REPO)
        assert all(slack.messages(channel) for channel in CHANNELS)
        assert model.calls == 2 * PRS  # one card per PR of each repository
        kinds = {
            repo: Counter(github.kind_of(request.path) for request in github.requests if _about(request, repo))
            for repo in (REPO, LONE_REPO)
        }
        assert ten <= 1.1 * one, (one, ten, kinds)
