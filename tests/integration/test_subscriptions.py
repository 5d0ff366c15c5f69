"""Channels follow repositories from Slack: /pr follow, unfollow, following, digest and settings,
driven through the real Bolt app with signed requests, against fake Slack and GitHub and a real
Redis, with the config file's rules and refusals."""

from __future__ import annotations

import json
import time
import urllib.parse
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.models import Note
from bot.render.slack.blocks import strings
from bot.render.slack.subscriptions import SETTINGS_ACTION, SETTINGS_CALLBACK
from bot.wiring.process import build_process
from bot.wiring.slack import slack_app, wire_slack
from tests.integration.slack_harness import (
    CONFIG,
    DIGEST_CHANNEL,
    HUMAN,
    OTHER_REPO,
    SlackHarness,
    app_settings,
    harness_timing,
    serve_harness,
    wait_for,
)
from tests.unit.test_catalogue import english_in

NOW = datetime(2026, 8, 6, 12, 0, tzinfo=UTC)  # 12:00 UTC: the 09:00 UTC window of 08-06 has ended
NEW = "C0NEWCHAN1"  # a channel the config file does not name
PRIVATE = "acme/secret"
STRANGER = "U0STRANGE1"


def served(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path, slack: str = "") -> Any:
    config = CONFIG.replace("[defaults]", f"[slack]\n{slack}\n\n[defaults]") if slack else CONFIG
    return serve_harness(github, model, redis_url, tmp_path, config_text=config, now=lambda: NOW)


@pytest.fixture
def subs(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Iterator[SlackHarness]:
    with served(github, model, redis_url, tmp_path) as harness:
        prepare(harness)
        yield harness


def prepare(harness: SlackHarness) -> None:
    harness.slack.members = {NEW: [HUMAN], DIGEST_CHANNEL: [HUMAN]}
    harness.github.add_repo(PRIVATE, private=True)
    # Merged inside the window that ended at 09:00 UTC today (NOW's day).
    for number in (1, 2):
        harness.github.add_pr(
            OTHER_REPO,
            number,
            title=f"Widget change {number}",
            merged_at=datetime(2026, 8, 6, 6, number, tzinfo=UTC),
            files=[{"path": f"src/widget{number}.py", "additions": 40, "deletions": 3}],
        )


def run(harness: SlackHarness, command: str, channel: str = NEW, user: str = HUMAN) -> str:
    """What the asker is told (the response_url's last payload) after `/pr command`."""
    hook, response = harness.command(command, channel, user=user)
    assert response.status_code == 200
    wait_for(lambda: [p for p in harness.slack.responses[hook]])
    harness.settle()
    return str(harness.slack.responses[hook][-1]["text"])


def submit(harness: SlackHarness, channel: str, state: dict[str, Any], user: str = HUMAN) -> requests.Response:
    """A settings modal submitted as Slack sends it (a view_submission payload)."""
    payload = {
        "type": "view_submission",
        "team": {"id": "T0TEST", "domain": "test"},
        "user": {"id": user, "team_id": "T0TEST"},
        "api_app_id": "A0TEST",
        "trigger_id": harness.trigger_id(),
        "view": {
            "id": "V0MODAL001",
            "team_id": "T0TEST",
            "type": "modal",
            "callback_id": SETTINGS_CALLBACK,
            "private_metadata": json.dumps({"channel": channel}),
            "state": {"values": state},
            "hash": f"{time.time():.6f}",
        },
        "response_urls": [],
    }
    body = urllib.parse.urlencode({"payload": json.dumps(payload)}).encode()
    return harness.signed(body, "application/x-www-form-urlencoded")


def state(**fields: str) -> dict[str, Any]:
    """The modal's state.values: text fields, a time (post_at) and selects (language, quiet_days)."""
    values: dict[str, Any] = {}
    for name, value in fields.items():
        element: dict[str, Any]
        if name == "post_at":
            element = {"type": "timepicker", "selected_time": value}
        elif name in ("language", "quiet_days", "cadence", "weekly_on", "releases"):
            element = {"type": "static_select", "selected_option": {"value": value}}
        else:
            element = {"type": "plain_text_input", "value": value}
        values[name] = {"value": element}
    return values


def ephemerals(harness: SlackHarness, channel: str) -> list[str]:
    return [str(e["text"]) for e in harness.slack.ephemeral if e["channel"] == channel]


# -- follow, digest, following ---------------------------------------------------------------------


def test_a_channel_not_in_the_config_follows_a_repository_and_gets_its_digest_once(subs: SlackHarness) -> None:
    told = run(subs, f"follow {OTHER_REPO}")
    assert f"now follows {OTHER_REPO}" in told and "09:00 (UTC)" in told
    assert subs.parts.deps.tenant.directory.plan(NEW) is not None  # this replica sees it at once

    told = run(subs, "digest")
    assert "2026-08-06 is posted" in told
    (lead,) = subs.slack.messages(NEW)
    assert "widget" in json.dumps(lead["blocks"]).lower()
    posted = len(subs.slack.all_messages())

    told = run(subs, "digest")
    assert len(subs.slack.all_messages()) == posted  # nothing posted twice
    assert "already here" in told and f"/archives/{NEW}/p" in told
    assert "09:00 (UTC) on 2026-08-07" in told

    told = run(subs, "following")
    assert f"{OTHER_REPO} _(set in Slack)_" in told
    assert "Posting time: 09:00 _(the default)_" in told
    assert "Last digest: 2026-08-06" in told and f"followed {OTHER_REPO} by <@{HUMAN}>" in told
    assert subs.slack.rejections == []


def test_digest_in_a_channel_the_bot_was_removed_from_asks_to_invite_it_and_posts_nothing(subs: SlackHarness) -> None:
    run(subs, f"follow {OTHER_REPO}")
    subs.slack.not_in_channel.add(NEW)
    assert "/invite @prdigest" in run(subs, "digest")
    assert subs.slack.all_messages() == [] and subs.ledger.entries(NEW, "2026-08-06") == {}


def test_following_in_a_channel_that_follows_nothing_says_how_to_start(subs: SlackHarness) -> None:
    assert "follows no repository" in run(subs, "following")
    assert "follows no repository" in run(subs, "digest")


def test_follow_in_a_channel_the_bot_is_not_in_says_to_invite_it(subs: SlackHarness) -> None:
    subs.slack.not_in_channel.add(NEW)
    assert "/invite @prdigest" in run(subs, f"follow {OTHER_REPO}")
    assert "/invite @prdigest" in run(subs, "settings")
    assert subs.slack.modals == {}
    assert subs.subscription_store.all() == {}


def test_a_person_not_in_the_channel_may_not_change_what_it_follows(subs: SlackHarness) -> None:
    assert "Only members of this channel" in run(subs, f"follow {OTHER_REPO}", user=STRANGER)
    assert subs.subscription_store.all() == {}


def test_a_config_file_channel_is_changed_in_the_file_not_from_slack(subs: SlackHarness) -> None:
    told = run(subs, f"follow {OTHER_REPO}", channel=DIGEST_CHANNEL)
    assert "set up in the config file" in told and "prdigest.toml" in told and "allow_channel_edits" in told
    assert "set up in the config file" in run(subs, "settings", channel=DIGEST_CHANNEL)
    assert subs.slack.modals == {}
    assert subs.subscription_store.all() == {}


def test_a_private_repository_not_listed_in_the_config_is_refused(subs: SlackHarness) -> None:
    told = run(subs, f"follow {PRIVATE}")
    assert f"{PRIVATE} is private" in told and "followable_private_repos" in told
    assert subs.subscription_store.all() == {}


def test_bad_input_is_refused_before_anything_is_asked(subs: SlackHarness) -> None:
    _hook, response = subs.command("follow not-a-repo", NEW)
    assert "'not-a-repo' is not a repository" in response.text
    _, response = subs.command("follow", NEW)
    assert "follow owner/repo" in response.text
    _, response = subs.command("unfollow a/b c/d", NEW)
    assert "unfollow owner/repo" in response.text
    subs.settle()
    assert subs.subscription_store.all() == {}


def test_unfollowing_the_last_repository_stops_the_digest(subs: SlackHarness) -> None:
    run(subs, f"follow {OTHER_REPO}")
    assert "does not follow 'acme/other'" in run(subs, "unfollow acme/other")
    assert "follows no repository now" in run(subs, f"unfollow {OTHER_REPO}")
    assert subs.parts.deps.tenant.directory.plan(NEW) is None
    assert [entry.action for entry in subs.home.subscriptions.audit(NEW)] == ["follow", "unfollow"]


def test_with_editors_only_they_may_change_subscriptions(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    with served(github, model, redis_url, tmp_path, 'editors = ["U0EDITOR01"]') as harness:
        prepare(harness)
        assert "`[slack] editors`" in run(harness, f"follow {OTHER_REPO}")  # a member, not an editor
        assert "now follows" in run(harness, f"follow {OTHER_REPO}", user="U0EDITOR01")


def test_allowed_edits_of_a_config_channel_override_the_file_and_say_so(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    slack = f'allow_channel_edits = true\nfollowable_private_repos = ["{PRIVATE}"]'
    with served(github, model, redis_url, tmp_path, slack) as harness:
        prepare(harness)
        assert f"now follows {PRIVATE}" in run(harness, f"follow {PRIVATE}", channel=DIGEST_CHANNEL)
        told = run(harness, "following", channel=DIGEST_CHANNEL)
        assert f"vllm-project/vllm, {PRIVATE} _(set in Slack)_" in told
        assert "Window covered: 24h _(the default)_" in told
        plan = harness.parts.deps.tenant.directory.plan(DIGEST_CHANNEL)
        assert plan is not None and plan.repos == ("vllm-project/vllm", PRIVATE)
        assert "last repository comes from the config file" not in run(harness, f"unfollow {PRIVATE}", DIGEST_CHANNEL)


# -- the settings modal -----------------------------------------------------------------------------


def test_settings_opens_a_modal_with_the_channels_values(subs: SlackHarness) -> None:
    run(subs, f"follow {OTHER_REPO}")
    _hook, response = subs.command("settings", NEW)
    assert response.status_code == 200 and response.text == ""
    (modal,) = wait_for(lambda: list(subs.slack.modals.values()))
    subs.settle()
    assert modal["callback_id"] == SETTINGS_CALLBACK and json.loads(modal["private_metadata"]) == {"channel": NEW}
    blocks = {block.get("block_id"): block for block in modal["blocks"]}
    assert blocks["repos"]["element"]["initial_value"] == OTHER_REPO
    assert "initial_time" not in blocks["post_at"]["element"]  # blank: the default applies
    assert subs.slack.rejections == []


def test_a_bad_modal_value_is_refused_on_its_field_in_chinese(subs: SlackHarness) -> None:
    run(subs, f"follow {OTHER_REPO}")
    response = submit(subs, NEW, state(repos=OTHER_REPO, language="zh-CN", timezone="Mars/Olympus", post_at="25:00"))
    answer = response.json()
    assert answer["response_action"] == "errors"
    errors = answer["errors"]
    assert set(errors) == {"timezone", "post_at"}
    assert "'Mars/Olympus' 不是时区" in errors["timezone"] and "'25:00' 不是时间" in errors["post_at"]
    assert english_in(" ".join(errors.values())) == []
    subs.settle()
    (edits,) = subs.subscription_store.all().values()
    assert edits.values == {"repos": [OTHER_REPO]}  # nothing of the refused modal was kept


def test_a_modal_without_repositories_is_refused_on_that_field(subs: SlackHarness) -> None:
    run(subs, f"follow {OTHER_REPO}")
    answer = submit(subs, NEW, state(repos=" ", post_at="10:00")).json()
    assert answer == {"response_action": "errors", "errors": {"repos": "List at least one repository (owner/name)."}}


def test_saved_settings_are_used_by_a_second_replicas_scheduler_at_its_next_tick(
    subs: SlackHarness, model: FakeOpenAI
) -> None:
    run(subs, f"follow {OTHER_REPO}")
    # A second replica, started before the change: it shares Redis and Slack, not memory.
    other = build_process(subs.services.settings, harness_timing(lambda: NOW), warn=lambda message: None)
    try:
        replica = slack_app(wire_slack(other))
        assert replica.deps.tenant.directory.plan(NEW) is not None
        response = submit(
            subs, NEW, state(repos=OTHER_REPO, language="zh-CN", timezone="Asia/Shanghai", post_at="19:30")
        )
        assert response.status_code == 200 and response.text == ""
        told = wait_for(lambda: ephemerals(subs, NEW))
        assert "19:30（Asia/Shanghai）" in told[-1]
        subs.settle()

        replica.scheduler.tick()  # 20:00 in Shanghai: due under the new schedule
        wait_for(lambda: subs.slack.messages(NEW) and not replica.scheduler.busy)
        (lead,) = subs.slack.messages(NEW)
        assert "合并" in lead["text"]  # written in the language saved in the modal
        plan = replica.deps.tenant.directory.plan(NEW)
        assert plan is not None and plan.timezone.key == "Asia/Shanghai" and f"{plan.post_at:%H:%M}" == "19:30"
        assert subs.ledger.entries(NEW, "2026-08-06").get("done") == "1"
        replica.scheduler.stop()

        told = run(subs, "following")  # in the channel's language now
        assert "时间：19:30 _（在 Slack 中设置）_" in told and "时间窗口：24h _（默认值）_" in told
        assert english_in(told) == []
    finally:
        other.close()


def test_the_modal_sets_a_weekly_roll_up_and_release_posts(subs: SlackHarness) -> None:
    run(subs, f"follow {OTHER_REPO}")
    response = submit(subs, NEW, state(repos=OTHER_REPO, cadence="weekly", weekly_on="fri", releases="post"))
    assert response.status_code == 200 and response.text == ""
    (told,) = wait_for(lambda: ephemerals(subs, NEW))
    # What was saved is said back: a roll-up on Friday, not a daily digest.
    assert "weekly roll-up comes on Friday at 09:00 (UTC)" in told and "daily" not in told
    subs.settle()
    subs.home.directory.refresh()
    plan = subs.home.directory.plan(NEW)
    assert plan is not None and (plan.cadence, plan.weekly_on, plan.releases) == ("weekly", 4, "post")
    told = run(subs, "following")
    assert "a roll-up once a week" in told and "Friday" in told and "posted here, with their cards" in told
    # A value the modal never offers is refused on its field, and nothing is saved.
    refused = submit(subs, NEW, state(repos=OTHER_REPO, cadence="hourly")).json()
    assert refused["response_action"] == "errors" and "cadence" in refused["errors"]


@pytest.mark.parametrize(
    ("cadence", "language", "said"),
    [
        ("daily", "en", "this channel's digest comes daily at 18:15 (UTC)."),
        ("both", "en", "this channel's digest comes daily at 18:15 (UTC), and its weekly roll-up on Friday."),
        ("weekly", "zh-CN", "本频道每周五 18:15（UTC）发送每周汇总。"),
        ("both", "zh-CN", "本频道每天 18:15（UTC）发送摘要，每周五另发每周汇总。"),
    ],
)
def test_saving_the_settings_says_the_cadence_saved_in_the_channels_language(
    subs: SlackHarness, cadence: str, language: str, said: str
) -> None:
    run(subs, f"follow {OTHER_REPO}")
    chosen = state(repos=OTHER_REPO, post_at="18:15", cadence=cadence, weekly_on="fri", language=language)
    assert submit(subs, NEW, chosen).status_code == 200
    (told,) = wait_for(lambda: ephemerals(subs, NEW))
    assert said in told
    if language == "zh-CN":
        assert english_in(told) == []


def test_a_private_repository_in_the_modal_is_refused_and_nothing_saved(subs: SlackHarness) -> None:
    run(subs, f"follow {OTHER_REPO}")
    assert submit(subs, NEW, state(repos=f"{OTHER_REPO}\n{PRIVATE}")).text == ""
    told = wait_for(lambda: ephemerals(subs, NEW))
    assert f"{PRIVATE} is private" in told[-1]
    subs.settle()
    (edits,) = subs.subscription_store.all().values()
    assert edits.values == {"repos": [OTHER_REPO]}


def test_a_submission_by_someone_not_allowed_is_not_saved(subs: SlackHarness) -> None:
    run(subs, f"follow {OTHER_REPO}")
    submit(subs, NEW, state(repos=OTHER_REPO, post_at="07:00"), user=STRANGER)
    wait_for(lambda: [e for e in subs.slack.ephemeral if e["user"] == STRANGER])
    subs.settle()
    (edits,) = subs.subscription_store.all().values()
    assert "post_at" not in edits.values


# -- the App Home --------------------------------------------------------------------------------


def test_the_home_shows_followed_channels_with_a_settings_button_that_opens_the_modal(subs: SlackHarness) -> None:
    run(subs, f"follow {OTHER_REPO}")
    subs.event({"type": "app_home_opened", "user": HUMAN, "channel": "D1", "tab": "home"})
    view = wait_for(lambda: subs.slack.home_views.get(HUMAN))
    shown = "\n".join(strings(view["blocks"]))
    assert NEW in shown and OTHER_REPO in shown and f"followed {OTHER_REPO}" in shown
    buttons = [b["accessory"] for b in view["blocks"] if b.get("accessory", {}).get("action_id") == SETTINGS_ACTION]
    assert [button["value"] for button in buttons] == [NEW]  # the config file's channel has none

    payload = {
        "type": "block_actions",
        "team": {"id": "T0TEST"},
        "user": {"id": HUMAN},
        "trigger_id": subs.trigger_id(),
        "view": {"id": "VHOME", "type": "home"},
        "actions": [{"action_id": SETTINGS_ACTION, "block_id": "b", "value": NEW, "type": "button"}],
    }
    subs.signed(urllib.parse.urlencode({"payload": json.dumps(payload)}).encode(), "application/x-www-form-urlencoded")
    (modal,) = wait_for(lambda: list(subs.slack.modals.values()))
    assert modal["callback_id"] == SETTINGS_CALLBACK
    subs.settle()
    assert subs.slack.rejections == []


def test_a_private_repository_is_no_longer_posted_once_the_file_stops_listing_it(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    with served(github, model, redis_url, tmp_path, f'followable_private_repos = ["{PRIVATE}"]') as harness:
        prepare(harness)
        assert f"now follows {PRIVATE}" in run(harness, f"follow {PRIVATE}")
        assert harness.home.access.refusal(NEW, PRIVATE) is None
        # The operator removes it from the list and restarts: the Slack follow stays in Redis.
        config = tmp_path / "later.toml"
        config.write_text(CONFIG, encoding="utf-8")
        later = build_process(
            app_settings(github, model, harness.slack, redis_url, config), harness_timing(lambda: NOW), warn=print
        )
        try:
            home = wire_slack(later).tenants.home
            assert home.directory.plan(NEW) is not None
            assert home.access.refusal(NEW, PRIVATE) == Note(
                "refusal.not_followable", {"repo": PRIVATE, "channel": NEW}
            )
        finally:
            later.close()
