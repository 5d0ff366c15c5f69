"""The upgrade day: a ledger written before workspaces existed is still the one read, in the
single-workspace install and for the home workspace of OAuth mode, so nothing is posted twice."""

from __future__ import annotations

from datetime import UTC, datetime

import redis

from bot.digests.posting import scheduled_window
from tests.integration.oauth_harness import HOME, OAuthHarness
from tests.integration.slack_harness import DIGEST_CHANNEL, SlackHarness


def _posted_before_the_upgrade(redis_url: str, channel: str, day: str) -> None:
    """What the previous version left: its ledger, under the key it used (no workspace in it)."""
    client = redis.Redis.from_url(redis_url)
    client.hset(f"prdigest:v1:ledger:{channel}:{day}", mapping={"part:0": "1700000000.000100", "done": "1"})
    client.close()


def test_a_pre_upgrade_ledger_is_honoured_in_single_workspace_mode(harness: SlackHarness, redis_url: str) -> None:
    plan = harness.home.directory.plan(DIGEST_CHANNEL)
    assert plan is not None
    _, day = scheduled_window(plan, datetime.now(UTC))
    _posted_before_the_upgrade(redis_url, DIGEST_CHANNEL, day)

    result = harness.wired.tenants.get(None).digests.run_scheduled(plan)

    assert result is not None and result.posted == 0 and result.already == 1
    assert harness.slack.calls("chat.postMessage") == []


def test_a_pre_upgrade_ledger_is_honoured_for_the_home_workspace_in_oauth_mode(
    oauth: OAuthHarness, redis_url: str
) -> None:
    oauth.install(HOME)
    tenants = oauth.first.wired.tenants
    [plan] = tenants.home.directory.plans
    _, day = scheduled_window(plan, datetime.now(UTC))
    _posted_before_the_upgrade(redis_url, plan.id, day)

    result = tenants.get(HOME).digests.run_scheduled(plan)

    assert result is not None and result.posted == 0 and result.already == 1
    assert oauth.slack.calls("chat.postMessage") == []
