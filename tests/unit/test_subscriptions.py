"""The rules for following repositories from Slack (channels/subscriptions.py): the config
file's validators for every value, the file as baseline, who may edit, private repositories,
the audit trail; and the modal's values read back as the file spells them."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.channels.directory import ChannelDirectory, ChannelPlan
from bot.channels.subscriptions import ConfigFile, EditRefused, FieldErrors, Subscriptions, merged
from bot.digests.posting import completed_window, next_post
from bot.errors import ConfigError, StoreError
from bot.models import Filters, Note
from bot.render.slack.subscriptions import modal_values, settings_modal
from bot.settings import ChannelConfig, SlackConfig, load_file_config, load_settings
from bot.store.backends.memory import MemoryKV
from bot.store.subscriptions import CHANGE_WAITS, SubscriptionStore

AT = datetime(2026, 8, 6, 12, 0, tzinfo=UTC)
FILE = ChannelConfig(id="C0FILE0001", repos=("acme/base",), language="zh-CN")
NEW = "C0NEWCHAN1"
PRIVATE = {"acme/secret", "acme/listed"}


def service(store: SubscriptionStore | None = None, **slack: object) -> Subscriptions:
    return Subscriptions(
        SlackConfig.model_validate(slack),
        ConfigFile((FILE,), "config/prdigest.toml"),
        store or SubscriptionStore(MemoryKV()),
        lambda repo: repo.lower() in PRIVATE,
        now=lambda: AT,
    )


def test_a_new_channel_follows_and_its_values_come_from_slack() -> None:
    subs = service()
    assert subs.follow(NEW, "U1", ["acme/widgets", "acme/gadgets", "acme/widgets"]) == ("acme/widgets", "acme/gadgets")
    assert subs.follow(NEW, "U1", ["ACME/Widgets"]) == ()  # already followed, whatever the case
    view = subs.view(NEW)
    assert view is not None and view.config.repos == ("acme/widgets", "acme/gadgets")
    assert view.sources["repos"] == "slack" and view.sources["post_at"] == "default"
    assert [channel.channel for channel in subs.channels()] == ["C0FILE0001", NEW]
    (entry,) = subs.audit(NEW)
    assert (entry.user, entry.action, entry.detail, entry.at) == ("U1", "follow", ("acme/widgets", "acme/gadgets"), AT)


def test_the_config_files_channels_are_refused_unless_edits_are_allowed() -> None:
    refusal = service().refusal(FILE.id, "U1", lambda: True)
    assert refusal == Note("subs.refused_file", {"path": "config/prdigest.toml"})
    with pytest.raises(EditRefused, match="config file"):
        service().follow(FILE.id, "U1", ["acme/widgets"])
    allowed = service(allow_channel_edits=True)
    allowed.follow(FILE.id, "U1", ["acme/widgets"])
    view = allowed.view(FILE.id)
    assert view is not None and view.config.repos == ("acme/base", "acme/widgets")
    assert view.sources["repos"] == "slack" and view.sources["language"] == "file"


def test_edits_kept_while_allowed_no_longer_count_once_the_file_forbids_them() -> None:
    store = SubscriptionStore(MemoryKV())
    service(store, allow_channel_edits=True).follow(FILE.id, "U1", ["acme/widgets"])
    view = service(store).view(FILE.id)
    assert view is not None and view.config.repos == ("acme/base",) and view.sources["repos"] == "file"


def test_editors_when_listed_else_the_channels_members() -> None:
    asked: list[str] = []

    def member() -> bool:
        asked.append("members")
        return False

    assert service().refusal(NEW, "U1", member) == Note("subs.refused_member", {"channel": NEW})
    assert service(editors=["U0EDITOR1"]).refusal(NEW, "U1", member) == Note("subs.refused_editor")
    assert service(editors=["U0EDITOR1"]).refusal(NEW, "U0EDITOR1", member) is None
    assert asked == ["members"]  # with editors, Slack is not asked


def test_a_private_repository_only_when_the_file_lists_it() -> None:
    with pytest.raises(EditRefused, match="acme/secret is private"):
        service().follow(NEW, "U1", ["acme/secret"])
    assert service(followable_private_repos=["ACME/listed"]).follow(NEW, "U1", ["acme/listed"]) == ("acme/listed",)


def test_unfollowing_the_last_repository_of_a_slack_channel_ends_it() -> None:
    subs = service()
    subs.follow(NEW, "U1", ["acme/widgets"])
    with pytest.raises(EditRefused, match="does not follow 'acme/nope'"):
        subs.unfollow(NEW, "U1", "acme/nope")
    subs.unfollow(NEW, "U2", "ACME/widgets")
    assert subs.view(NEW) is None and [c.channel for c in subs.channels()] == ["C0FILE0001"]
    assert [entry.action for entry in subs.audit(NEW)] == ["follow", "unfollow"]


def test_the_last_repository_of_a_config_channel_stays_in_the_file() -> None:
    with pytest.raises(EditRefused, match="from the config file"):
        service(allow_channel_edits=True).unfollow(FILE.id, "U1", "acme/base")


def test_modal_values_are_checked_with_the_config_files_rules() -> None:
    with pytest.raises(FieldErrors) as caught:
        merged(NEW, None, {"repos": ["acme/widgets", "bad repo"], "timezone": "Mars/Olympus", "post_at": "9:5"})
    assert caught.value.errors == {
        "repos": Note("subs.bad_repo", {"value": "'bad repo'"}),
        "timezone": Note("subs.bad_timezone", {"value": "'Mars/Olympus'"}),
        "post_at": Note("subs.bad_post_at", {"value": "'9:5'"}),
    }
    with pytest.raises(FieldErrors) as caught:
        merged(NEW, None, {"repos": [], "language": "fr", "quiet_days": "loud"})
    assert set(caught.value.errors) == {"repos", "language", "quiet_days"}
    config = merged(NEW, None, {"repos": ["a/b"], "timezone": "Asia/Shanghai", "post_at": "19:30"})
    assert config.timezone == ZoneInfo("Asia/Shanghai") and config.post_at == time(19, 30)


def test_saved_settings_keep_only_what_differs_from_the_file() -> None:
    store = SubscriptionStore(MemoryKV())
    subs = service(store, allow_channel_edits=True)
    config = subs.save_settings(FILE.id, "U1", {"repos": ["acme/base"], "language": "zh-CN", "post_at": "07:15"})
    assert config.post_at == time(7, 15) and config.language == "zh-CN"
    edits = store.get(FILE.id)
    assert edits is not None and edits.values == {"post_at": "07:15"}
    view = subs.view(FILE.id)
    assert view is not None and view.sources["language"] == "file" and view.sources["post_at"] == "slack"


def test_the_directory_reads_slack_channels_at_each_refresh() -> None:
    subs = service()
    directory = ChannelDirectory(load_settings({}).config, subs.configs)
    directory.refresh()
    assert directory.plans[0].id == FILE.id and directory.plan(NEW) is None
    subs.follow(NEW, "U1", ["acme/widgets"])
    assert directory.plan(NEW) is None  # until the next refresh (the scheduler's tick)
    assert [plan.id for plan in directory.current_plans()] == [FILE.id, NEW]


def test_the_modal_shows_set_values_and_reads_back_what_the_file_would_say() -> None:
    config = merged(NEW, None, {"repos": ["a/b", "c/d"], "post_at": "10:30", "paths": ["src/**"]})
    modal = settings_modal(NEW, config, "zh-CN")
    blocks = {block.get("block_id"): block for block in modal["blocks"]}
    assert blocks["repos"]["element"]["initial_value"] == "a/b\nc/d"
    assert blocks["post_at"]["element"]["initial_time"] == "10:30"
    assert "initial_value" not in blocks["timezone"]["element"]
    assert modal["title"]["text"] == "频道设置"
    state = {
        "repos": {"value": {"type": "plain_text_input", "value": " a/b, c/d\n e/f "}},
        "post_at": {"value": {"type": "timepicker", "selected_time": None}},
        "timezone": {"value": {"type": "plain_text_input", "value": "  "}},
        "language": {"value": {"type": "static_select", "selected_option": {"value": "en"}}},
        "labels_exclude": {"value": {"type": "plain_text_input", "value": "no-digest, wip"}},
    }
    assert modal_values({"state": {"values": state}}) == {
        "repos": ["a/b", "c/d", "e/f"],
        "language": "en",
        "labels_exclude": ["no-digest", "wip"],
    }


def test_the_last_completed_window_is_never_a_partial_one() -> None:
    plan = ChannelPlan(NEW, ("a/b",), "en", ZoneInfo("UTC"), time(9, 0), timedelta(hours=24), "note", Filters())
    window, day = completed_window(plan, datetime(2026, 8, 6, 8, 59, tzinfo=UTC))
    assert day == "2026-08-05" and window.end == datetime(2026, 8, 5, 9, 0, tzinfo=UTC)
    window, day = completed_window(plan, datetime(2026, 8, 6, 9, 0, tzinfo=UTC))
    assert day == "2026-08-06" and window.end == datetime(2026, 8, 6, 9, 0, tzinfo=UTC)
    assert next_post(plan, datetime(2026, 8, 6, 9, 0, tzinfo=UTC)) == datetime(2026, 8, 7, 9, 0, tzinfo=UTC)
    assert next_post(plan, datetime(2026, 8, 6, 8, 0, tzinfo=UTC)) == datetime(2026, 8, 6, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('editors = ["alice"]', "slack.editors: 'alice' is not a Slack user id"),
        ('followable_private_repos = ["nope"]', "slack.followable_private_repos: 'nope' is not a repository"),
        ('allow_channel_edits = "yes"', "slack.allow_channel_edits: Input should be a valid boolean"),
        ("unfurl = 1", "slack.unfurl: Input should be a valid boolean"),
    ],
)
def test_the_slack_keys_are_checked(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "prdigest.toml"
    path.write_text(f"[slack]\n{text}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=expected):
        load_file_config(str(path))


def test_the_slack_keys_default_to_the_file_alone() -> None:
    slack = SlackConfig()
    assert (slack.unfurl, slack.editors, slack.allow_channel_edits, slack.followable_private_repos) == (
        False,
        (),
        False,
        (),
    )


def test_one_change_of_a_channel_at_a_time() -> None:
    waits: list[float] = []
    store = SubscriptionStore(MemoryKV(), sleep=waits.append)
    subs = service(store)
    with store.changing(NEW), pytest.raises(StoreError):
        subs.follow(NEW, "U2", ["acme/widgets"])  # another request holds it: waits, then gives up
    assert len(waits) == CHANGE_WAITS and store.all() == {}
    with store.changing("C0OTHERCH1"):  # another channel is not held up
        assert subs.follow(NEW, "U2", ["acme/widgets"]) == ("acme/widgets",)
    assert len(waits) == CHANGE_WAITS


def test_a_channels_settings_outlive_its_last_repository(caplog: pytest.LogCaptureFixture) -> None:
    store = SubscriptionStore(MemoryKV())
    subs = service(store)
    subs.save_settings(NEW, "U1", {"repos": ["acme/widgets"], "post_at": "07:45"})
    subs.unfollow(NEW, "U1", "acme/widgets")
    assert subs.view(NEW) is None and [view.channel for view in subs.channels()] == [FILE.id]
    assert caplog.records == []  # not a broken record: a channel that follows nothing
    subs.follow(NEW, "U1", ["acme/gadgets"])
    view = subs.view(NEW)
    assert view is not None and view.config.post_at == time(7, 45) and view.config.repos == ("acme/gadgets",)
