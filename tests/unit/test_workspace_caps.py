"""An installed workspace's caps on what it sets up from Slack (channels/subscriptions.py):
`[slack] workspace_max_repos` distinct repositories and `workspace_max_channels` channels, counted
under the workspace's change lock; the home workspace (no caps) as before."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.channels.subscriptions import WORKSPACE_LOCK, ConfigFile, EditRefused, Subscriptions, WorkspaceCaps
from bot.errors import StoreError
from bot.models import Note
from bot.settings import SlackConfig
from bot.store.backends.memory import MemoryKV
from bot.store.subscriptions import CHANGE_WAITS, SubscriptionStore

AT = datetime(2026, 8, 6, 12, 0, tzinfo=UTC)
ONE, TWO, THREE = "C0CHANONE1", "C0CHANTWO1", "C0CHANTRE1"


def service(caps: WorkspaceCaps | None, store: SubscriptionStore | None = None) -> Subscriptions:
    return Subscriptions(
        SlackConfig(),
        ConfigFile((), "config/prdigest.toml"),
        store or SubscriptionStore(MemoryKV(), team="T0SECOND"),
        lambda repo: False,
        now=lambda: AT,
        caps=caps,
    )


def refused(error: pytest.ExceptionInfo[EditRefused]) -> Note:
    note = error.value.note
    assert note is not None
    return note


def test_a_workspace_follows_at_most_its_cap_of_distinct_repositories_across_its_channels() -> None:
    subs = service(WorkspaceCaps(max_repos=2, max_channels=10))
    subs.follow(ONE, "U1", ["acme/one", "acme/two"])
    assert subs.follow(TWO, "U1", ["ACME/One"]) == ("ACME/One",)  # the same repository, whatever the case
    with pytest.raises(EditRefused) as error:
        subs.follow(TWO, "U1", ["acme/three"])
    assert refused(error) == Note("subs.workspace_repos", {"limit": 2})
    assert "2 different repositories" in str(error.value) and "workspace_max_repos" in str(error.value)
    view = subs.view(TWO)
    assert view is not None and view.config.repos == ("ACME/One",)


def test_a_workspace_sets_up_at_most_its_cap_of_channels() -> None:
    subs = service(WorkspaceCaps(max_repos=20, max_channels=2))
    subs.follow(ONE, "U1", ["acme/one"])
    subs.follow(TWO, "U1", ["acme/one"])
    with pytest.raises(EditRefused) as error:
        subs.follow(THREE, "U1", ["acme/one"])
    assert refused(error) == Note("subs.workspace_channels", {"limit": 2})
    assert subs.follow(TWO, "U1", ["acme/two"]) == ("acme/two",)  # a channel set up already may add
    subs.unfollow(ONE, "U1", "acme/one")  # its last repository: the channel no longer counts
    assert subs.follow(THREE, "U1", ["acme/one"]) == ("acme/one",)


def test_the_settings_modal_is_held_to_the_same_caps() -> None:
    subs = service(WorkspaceCaps(max_repos=1, max_channels=1))
    subs.save_settings(ONE, "U1", {"repos": ["acme/one"]})
    with pytest.raises(EditRefused) as error:
        subs.save_settings(ONE, "U1", {"repos": ["acme/one", "acme/two"]})
    assert refused(error).kind == "subs.workspace_repos"
    with pytest.raises(EditRefused) as error:
        subs.save_settings(TWO, "U1", {"repos": ["acme/one"]})
    assert refused(error).kind == "subs.workspace_channels"
    assert subs.save_settings(ONE, "U1", {"repos": ["acme/one"], "post_at": "10:00"}).repos == ("acme/one",)


def test_a_cap_lowered_below_what_is_followed_refuses_only_what_adds_to_it() -> None:
    store = SubscriptionStore(MemoryKV(), team="T0SECOND")
    service(None, store).follow(ONE, "U1", ["acme/one", "acme/two", "acme/three"])
    subs = service(WorkspaceCaps(max_repos=1, max_channels=1), store)
    subs.unfollow(ONE, "U1", "acme/three")
    assert subs.follow(ONE, "U1", ["acme/two"]) == ()
    with pytest.raises(EditRefused):
        subs.follow(ONE, "U1", ["acme/four"])


def test_the_home_workspace_has_no_workspace_caps() -> None:
    subs = service(None, SubscriptionStore(MemoryKV()))
    for number, channel in enumerate((ONE, TWO, THREE)):
        subs.follow(channel, "U1", [f"acme/repo{number}-{index}" for index in range(20)])
    assert len(subs.channels()) == 3


def test_a_capped_change_waits_for_any_other_change_of_the_workspace() -> None:
    # Two channels' follows at once must not both pass a cap: each takes the workspace's lock.
    waits: list[float] = []
    store = SubscriptionStore(MemoryKV(), team="T0SECOND", sleep=waits.append)
    subs = service(WorkspaceCaps(max_repos=2, max_channels=2), store)
    with store.changing(WORKSPACE_LOCK), pytest.raises(StoreError):
        subs.follow(ONE, "U1", ["acme/one"])
    assert len(waits) == CHANGE_WAITS and store.all() == {}
    assert subs.follow(ONE, "U1", ["acme/one"]) == ("acme/one",)
