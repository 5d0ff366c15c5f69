"""The App Home shows each person only the configured channels they are in, and a private
repository's name only where that channel may show it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.errors import PublishError
from bot.models import DigestOptions, Filters, Window
from bot.render.slack.blocks import strings
from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import DIGEST_CHANNEL, HUMAN, OTHER_CHANNEL, OTHER_REPO, SlackHarness, wait_for
from tests.unit.test_catalogue import english_in

WINDOW = Window(day(0), day(24))
GUEST = "U0GUEST001"  # a person from another organisation


def open_home(harness: SlackHarness, user: str) -> str:
    """The Home view `user` gets when opening the App Home, as JSON text."""
    harness.slack.home_views.pop(user, None)
    harness.event({"type": "app_home_opened", "user": user, "channel": "D1", "tab": "home"})
    view: dict[str, Any] = wait_for(lambda: harness.slack.home_views.get(user))
    return json.dumps(view)


def private_repo_in_a_shared_channel(harness: SlackHarness) -> None:
    """OTHER_REPO is private; OTHER_CHANNEL, configured for it, is now shared with another
    organisation, and its last run failed with a text naming the repository."""
    harness.github.add_repo(OTHER_REPO, private=True)
    harness.slack.channel_info[OTHER_CHANNEL] = {"is_ext_shared": True, "is_shared": True}
    with pytest.raises(PublishError, match=OTHER_REPO):
        harness.parts.digests.run(
            OTHER_CHANNEL, "2026-08-05", WINDOW, (OTHER_REPO,), options=DigestOptions("en", Filters(), "note")
        )


def test_a_guest_in_no_configured_channel_sees_none_of_them(harness: SlackHarness) -> None:
    harness.slack.members = {DIGEST_CHANNEL: [HUMAN], OTHER_CHANNEL: [HUMAN]}
    view = open_home(harness, GUEST)
    for secret in (DIGEST_CHANNEL, OTHER_CHANNEL, REPO, OTHER_REPO):
        assert secret not in view
    assert "None of the channels you are in" in view


def test_a_member_sees_their_channel_and_not_the_others(harness: SlackHarness) -> None:
    harness.slack.members = {DIGEST_CHANNEL: ["U0SOMEONE1", HUMAN], OTHER_CHANNEL: ["U0SOMEONE1"]}
    view = open_home(harness, HUMAN)
    assert DIGEST_CHANNEL in view and REPO in view
    assert OTHER_CHANNEL not in view and OTHER_REPO not in view
    assert "09:00 UTC, window 24h" in view  # the schedule as the config writes it


def test_membership_is_read_page_by_page_and_remembered(harness: SlackHarness) -> None:
    crowd = [f"U{n:09d}" for n in range(450)]
    harness.slack.members = {DIGEST_CHANNEL: [*crowd, HUMAN], OTHER_CHANNEL: crowd}
    assert DIGEST_CHANNEL in open_home(harness, HUMAN)  # on the third page of 200
    pages = len(harness.slack.calls("conversations.members"))
    assert pages == 3 + 3  # both channels, read to their end
    assert DIGEST_CHANNEL in open_home(harness, HUMAN)
    assert len(harness.slack.calls("conversations.members")) == pages  # from the KV, not Slack


def test_when_slack_cannot_say_who_is_in_a_channel_it_is_not_shown(harness: SlackHarness) -> None:
    harness.slack.members = {DIGEST_CHANNEL: [HUMAN]}
    harness.slack.fail_next("conversations.members", "fetch_members_failed", times=2)
    view = open_home(harness, HUMAN)
    assert DIGEST_CHANNEL not in view and REPO not in view


def test_a_guest_in_a_shared_channel_sees_no_private_repository_name(harness: SlackHarness) -> None:
    private_repo_in_a_shared_channel(harness)
    harness.slack.members = {OTHER_CHANNEL: [HUMAN, GUEST]}
    view = open_home(harness, GUEST)
    assert OTHER_CHANNEL in view and "problem(s)" in view  # counted, not told
    assert OTHER_REPO not in view and "widgets" not in view
    assert DIGEST_CHANNEL not in view and REPO not in view


def test_a_member_of_the_channel_configured_for_a_private_repository_sees_its_name(harness: SlackHarness) -> None:
    harness.github.add_repo(OTHER_REPO, private=True)
    harness.slack.members = {OTHER_CHANNEL: [HUMAN]}
    view = open_home(harness, HUMAN)
    assert OTHER_CHANNEL in view and OTHER_REPO in view
    assert open_home(harness, GUEST).count(OTHER_REPO) == 0


def home_texts(harness: SlackHarness, user: str) -> str:
    """The words of the Home view `user` gets when opening the App Home."""
    harness.slack.home_views.pop(user, None)
    harness.event({"type": "app_home_opened", "user": user, "channel": "D1", "tab": "home"})
    view: dict[str, Any] = wait_for(lambda: harness.slack.home_views.get(user))
    return "\n".join(strings(view["blocks"]))


def test_the_home_tab_speaks_the_language_of_the_persons_slack(harness: SlackHarness) -> None:
    harness.slack.members = {DIGEST_CHANNEL: [HUMAN]}
    harness.slack.locales[HUMAN] = "zh-CN"
    shown = home_texts(harness, HUMAN)
    assert DIGEST_CHANNEL in shown and "每天 09:00（UTC）发送" in shown and "尚无摘要" in shown
    assert english_in(shown) == []
    (asked,) = harness.slack.calls("users.info")
    assert asked["user"] == HUMAN and str(asked["include_locale"]).lower() in ("1", "true")
    home_texts(harness, HUMAN)
    assert len(harness.slack.calls("users.info")) == 1  # remembered, not asked at every visit
    harness.slack.locales[GUEST] = "en-GB"
    assert "None of the channels you are in" in home_texts(harness, GUEST)


def test_when_slack_cannot_say_a_persons_language_the_default_one_is_used(harness: SlackHarness) -> None:
    harness.slack.locales[GUEST] = "zh-TW"
    harness.slack.fail_next("users.info", "ratelimited")
    assert "None of the channels you are in" in home_texts(harness, GUEST)
    assert "你所在的频道都没有配置每日摘要。" in home_texts(harness, GUEST)  # asked again, and remembered
