"""Two installed workspaces (OAuth mode), each with its own token budget and caps, driven through
the served Bolt app with signed requests: what one workspace spends never counts against the
other's budget, a workspace over its budget or a cap is told so, and each sees its own spend."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import RESPONSE_PREFIX

from bot.cli.doctor import run_doctor
from bot.core.usage import Tally, Usage
from bot.models import Card, PRRef
from bot.spending.budgets import Payer
from bot.store.tokens import TokenStore
from bot.wiring.process import Process, start_worker
from tests.integration.conftest import NOW, REPO, day
from tests.integration.oauth_harness import HOME, HOME_CHANNEL, HUMAN, SECOND, SECOND_CHANNEL, OAuthHarness, serve_oauth
from tests.integration.slack_harness import wait_for

ANSWER = "The change moves the slow part of the step out of the loop."
CARD = {"headline": "Step runs faster", "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}
SPENT = "token budget"  # in every budget sentence (reply.budget_spent, note.budget_spent)
# The home workspace's budget: far below what the second workspace spends on its own (~9k tokens).
HOME_BUDGET = 2000


def config(*, home_budget: int, workspace_budget: int, max_repos: int = 20, max_channels: int = 50) -> str:
    return f"""
[defaults]
timezone = "UTC"
concurrency = 1
daily_token_budget = {home_budget}

[slack]
home_team = "{HOME}"
workspace_daily_token_budget = {workspace_budget}
workspace_max_repos = {max_repos}
workspace_max_channels = {max_channels}

[[channels]]
id = "{HOME_CHANNEL}"
repos = ["{REPO}"]
"""


def respond(request: dict[str, Any]) -> Any:
    """A card for a card's request (a structured output), an answer's text for a question's."""
    return CARD if "response_format" in request or "tools" in request else ANSWER


def populate(github: FakeGitHub, count: int = 6) -> None:
    # Merged within the window /pr digest posts at NOW (the day before, 09:00 to 09:00 UTC).
    for number in range(1, count + 1):
        github.add_pr(
            REPO,
            number,
            title=f"Speed up step {number}",
            merged_at=day(10 + number),
            files=[{"path": f"src/step_{number}.py", "additions": 30 * number, "deletions": 4}],
        )


@pytest.fixture
def served(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[OAuthHarness]:
    populate(github)
    model.responder = respond
    text = config(home_budget=HOME_BUDGET, workspace_budget=1_000_000)
    with serve_oauth(github, model, redis_url, tmp_path, config_text=text, now=lambda: NOW) as oauth:
        oauth.install(HOME)
        oauth.install(SECOND)
        oauth.slack.members = {HOME_CHANNEL: [HUMAN], SECOND_CHANNEL: [HUMAN]}
        yield oauth
        oauth.settle()


def command(oauth: OAuthHarness, team: str, channel: str, text: str) -> list[dict[str, Any]]:
    """`/pr TEXT` from `team`, settled; what was said back through its response_url."""
    url = oauth.slack.new_response_url()
    assert oauth.command(team, channel, text, response_url=url).status_code == 200
    oauth.settle()
    return oauth.slack.responses[url.removeprefix(oauth.slack.url + RESPONSE_PREFIX)]


def stored_card(services: Process, number: int) -> Card:
    cards = services.cards
    snapshot = cards.snapshot_by_ref(PRRef(REPO, number))
    found = services.store.get_card(cards.key(snapshot, "en"))
    assert found is not None
    return found


def said(responses: list[dict[str, Any]]) -> str:
    return json.dumps(responses, ensure_ascii=False)


def spent(oauth: OAuthHarness, workspace: str | None) -> int:
    return TokenStore(oauth.first.services.kv).spent(NOW.date(), workspace)


def test_a_second_workspaces_follow_and_digest_spend_none_of_the_home_workspaces_budget(
    served: OAuthHarness, model: FakeOpenAI
) -> None:
    command(served, SECOND, SECOND_CHANNEL, f"follow {REPO}")
    command(served, SECOND, SECOND_CHANNEL, "digest")
    assert served.slack.messages(SECOND_CHANNEL), "the second workspace's digest was posted"
    assert model.calls >= 6 and spent(served, SECOND) > HOME_BUDGET  # all its own
    assert spent(served, None) == 0  # the home workspace's budget: untouched

    # The home workspace's next question is answered by the model, paid from its own budget.
    calls = model.calls
    assert served.mention(HOME, HOME_CHANNEL, f"what does {REPO}#1 change?").status_code == 200
    served.settle()
    assert model.calls == calls + 1  # the answer; the card was the second workspace's, cached
    posted = json.dumps(served.slack.all_messages(), ensure_ascii=False)
    assert ANSWER in posted and SPENT not in posted
    assert 0 < spent(served, None) < HOME_BUDGET


def test_a_workspace_over_its_own_budget_is_told_so_and_the_other_is_answered(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    populate(github, count=2)
    model.responder = respond
    text = config(home_budget=1_000_000, workspace_budget=1)  # one card spends the second's day
    with serve_oauth(github, model, redis_url, tmp_path, config_text=text, now=lambda: NOW) as oauth:
        oauth.install(HOME)
        oauth.install(SECOND)
        oauth.slack.members = {HOME_CHANNEL: [HUMAN], SECOND_CHANNEL: [HUMAN]}
        command(oauth, SECOND, SECOND_CHANNEL, f"follow {REPO}")
        command(oauth, SECOND, SECOND_CHANNEL, "digest")
        lead = json.dumps(oauth.slack.messages(SECOND_CHANNEL), ensure_ascii=False)
        assert "The daily token budget (1) is spent: 1 card from metadata." in lead  # its own budget
        assert model.calls == 1

        services = oauth.first.services
        [metadata] = [number for number in (1, 2) if stored_card(services, number).no_model == "budget"]
        oauth.mention(SECOND, SECOND_CHANNEL, f"what does {REPO}#{metadata} change?")
        oauth.settle()
        assert model.calls == 1  # over its budget: the card instead, no model call
        assert "Today's token budget is spent" in json.dumps(oauth.slack.all_messages())

        # The home workspace's question about the same PR: its card was made from metadata for
        # the second workspace's spent budget, so it is made again, for the home workspace.
        oauth.mention(HOME, HOME_CHANNEL, f"what does {REPO}#{metadata} change?")
        oauth.settle()
        assert model.calls == 3  # the card, then the answer
        assert ANSWER in json.dumps(oauth.slack.all_messages())
        assert stored_card(services, metadata).source == "llm"
        assert spent(oauth, None) > 0 and spent(oauth, SECOND) > 0


def test_each_workspaces_app_home_shows_only_its_own_spend(served: OAuthHarness) -> None:
    command(served, SECOND, SECOND_CHANNEL, f"follow {REPO}")
    command(served, SECOND, SECOND_CHANNEL, "digest")
    served.slack.members = {HOME_CHANNEL: [HUMAN], SECOND_CHANNEL: [HUMAN]}
    second = spent(served, SECOND)

    served.event(SECOND, {"type": "app_home_opened", "user": HUMAN, "channel": "D1", "tab": "home"})
    served.settle()
    view = json.dumps(wait_for(lambda: served.slack.home_views.get(HUMAN)), ensure_ascii=False)
    assert f"{second:,} today" in view  # the repository's line: this workspace's tokens

    served.mention(HOME, HOME_CHANNEL, f"what does {REPO}#1 change?")
    served.settle()
    home = spent(served, None)
    served.slack.home_views.pop(HUMAN)
    served.event(HOME, {"type": "app_home_opened", "user": HUMAN, "channel": "D1", "tab": "home"})
    served.settle()
    view = json.dumps(wait_for(lambda: served.slack.home_views.get(HUMAN)), ensure_ascii=False)
    assert f"{REPO}: {home:,} today, {home:,} in 7 days" in view
    assert f"{second:,}" not in view and f"{home + second:,}" not in view


def test_a_workspace_past_its_caps_is_refused_with_the_cap_named(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    for repo in ("acme/one", "acme/two", "acme/three"):
        github.add_repo(repo)
    third_channel = "C0THIRD001"
    text = config(home_budget=0, workspace_budget=0, max_repos=2, max_channels=1)
    with serve_oauth(github, model, redis_url, tmp_path, config_text=text, now=lambda: NOW) as oauth:
        oauth.install(SECOND)
        oauth.slack.members = {SECOND_CHANNEL: [HUMAN], third_channel: [HUMAN]}
        assert "acme/one" in said(command(oauth, SECOND, SECOND_CHANNEL, "follow acme/one acme/two"))

        refused = said(command(oauth, SECOND, SECOND_CHANNEL, "follow acme/three"))
        assert "already follows 2 different repositories" in refused and "workspace_max_repos" in refused
        refused = said(command(oauth, SECOND, third_channel, "follow acme/one"))
        assert "1 channels of this workspace already follow repositories" in refused
        assert "workspace_max_channels" in refused

        views = oauth.first.wired.tenants.get(SECOND).subscriptions.channels()
        assert [(view.channel, view.config.repos) for view in views] == [(SECOND_CHANNEL, ("acme/one", "acme/two"))]
        # Within the caps a channel still changes what it follows.
        command(oauth, SECOND, SECOND_CHANNEL, "unfollow acme/two")
        assert "acme/three" in said(command(oauth, SECOND, SECOND_CHANNEL, "follow acme/three"))


def test_the_pollers_cards_of_a_repository_only_another_workspace_follows_are_that_workspaces(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    theirs = "acme/widgets"
    for repo, number in ((REPO, 1), (theirs, 2)):
        github.add_pr(
            repo,
            number,
            title=f"Change number {number}",
            merged_at=NOW.replace(hour=number),  # this morning, within the poller's first look back
            files=[{"path": f"src/mod_{number}.py", "additions": 10, "deletions": 1}],
        )
    model.responder = respond
    text = config(home_budget=0, workspace_budget=0)
    with serve_oauth(github, model, redis_url, tmp_path, config_text=text, now=lambda: NOW) as oauth:
        oauth.install(SECOND)
        oauth.slack.members = {SECOND_CHANNEL: [HUMAN]}
        command(oauth, SECOND, SECOND_CHANNEL, f"follow {theirs}")
        services = oauth.first.services
        worker = start_worker(services, 2)
        try:
            assert wait_for(services.cards.workers_alive)
            assert oauth.first.wired.poll_merged() == 2  # one card of each repository
            wait_for(lambda: model.calls == 2, timeout=30)
            wait_for(lambda: spent(oauth, SECOND) > 0 and spent(oauth, None) > 0)
        finally:
            worker.stop()
        tokens = TokenStore(services.kv)
        home, second = tokens.day(NOW.date()), tokens.day(NOW.date(), SECOND)
        assert list(home.repos) == [REPO.lower()] and list(home.payers) == ["worker"]
        assert list(second.repos) == [theirs] and list(second.payers) == ["worker"]


def test_doctor_shows_the_home_workspaces_tokens_and_with_team_another_workspaces_only(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = config(home_budget=0, workspace_budget=300)
    # The doctor reads today's counters by the real clock.
    with serve_oauth(github, model, redis_url, tmp_path, config_text=text) as oauth:
        services = oauth.first.services
        services.spending.record(tally_of(40), repo=REPO, payer=Payer(HOME_CHANNEL))
        services.spending.record(tally_of(7), repo="acme/widgets", payer=Payer(SECOND_CHANNEL, SECOND))
        capsys.readouterr()

        run_doctor(services.settings)
        home = [line for line in capsys.readouterr().out.splitlines() if " tokens " in line]
        run_doctor(services.settings, SECOND)
        second = [line for line in capsys.readouterr().out.splitlines() if " tokens " in line]

    assert "  ok  tokens  daily budget: none ([defaults] daily_token_budget = 0)" in home
    assert any(f"channel {HOME_CHANNEL}: today 40 " in line for line in home)
    assert not any(SECOND_CHANNEL in line or "acme/widgets" in line for line in home)
    assert f"  ok  tokens  {SECOND}: daily budget 300 tokens: 7 today, 2% spent" in second
    assert any(f"{SECOND}: channel {SECOND_CHANNEL}: today 7 " in line for line in second)
    assert not any(HOME_CHANNEL in line or REPO.lower() in line for line in second)


def tally_of(tokens: int) -> Tally:
    found = Tally()
    found.add("gpt-5-mini", Usage(tokens, 0))
    return found
