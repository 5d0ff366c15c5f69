"""Every event the app listens for is one each manifest subscribes to: an event left out of a
manifest never arrives, and nothing says so (a Stop button Slack does not show, a DM unanswered)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
# Events only a multi-workspace install receives (slack/installs.py): the OAuth manifest's.
OAUTH_ONLY = {"app_uninstalled", "tokens_revoked"}
# Bolt's "message" listeners take the message events of each kind of conversation answered.
MESSAGE_EVENTS = {"message.channels", "message.groups", "message.im"}


def listened() -> set[str]:
    found: set[str] = set()
    for source in (ROOT / "bot" / "slack").rglob("*.py"):
        found.update(re.findall(r'@app\.event\("([a-z_]+)"', source.read_text(encoding="utf-8")))
    return found


def subscribed(name: str) -> set[str]:
    manifest = yaml.safe_load((ROOT / "config" / name).read_text(encoding="utf-8"))
    return set(manifest["settings"]["event_subscriptions"]["bot_events"])


@pytest.mark.parametrize("name", ["manifest.yml", "manifest.socket.yml", "manifest.oauth.yml"])
def test_each_manifest_subscribes_to_every_event_listened_for(name: str) -> None:
    events = subscribed(name)
    wanted = listened() - {"message"} - (set() if name == "manifest.oauth.yml" else OAUTH_ONLY)
    assert wanted <= events, f"{name} misses {sorted(wanted - events)}"
    assert events >= MESSAGE_EVENTS
    assert "agent_session_stopped" in events  # without it Slack shows no Stop button


@pytest.mark.parametrize("name", ["manifest.yml", "manifest.socket.yml", "manifest.oauth.yml"])
def test_each_manifest_declares_the_agent_experience_not_the_legacy_view(name: str) -> None:
    features = yaml.safe_load((ROOT / "config" / name).read_text(encoding="utf-8"))["features"]
    assert features["agent_view"]["agent_description"]
    assert "assistant_view" not in features
    assert features["app_home"]["messages_tab_enabled"] is True
