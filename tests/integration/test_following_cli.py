"""`prdigest following`: every channel's subscriptions, the source of each value, and the audit
trail, read from the same Redis the Slack app writes."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.cli.main import main
from bot.models import AuditEntry
from bot.settings import load_settings
from bot.store.backends.redis_store import RedisKV
from bot.store.subscriptions import ChannelEdits, SubscriptionStore
from tests.integration.slack_harness import CONFIG, DIGEST_CHANNEL

NEW = "C0NEWCHAN1"
AT = datetime(2026, 8, 6, 12, 0, tzinfo=UTC)


@pytest.fixture
def env(redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> RedisKV:
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG, encoding="utf-8")
    monkeypatch.setenv("PRDIGEST_CONFIG", str(config))
    monkeypatch.setenv("REDIS_URL", redis_url)
    assert load_settings().config.channels  # the file's channels are the baseline
    return RedisKV.from_url(redis_url)


def test_following_json_lists_every_channel_with_sources_and_the_audit_trail(
    env: RedisKV, capsys: pytest.CaptureFixture[str]
) -> None:
    store = SubscriptionStore(env)
    store.save(NEW, ChannelEdits(values={"repos": ["acme/widgets"], "post_at": "10:30"}, by="U0HUMAN001", at=AT))
    store.record(AuditEntry(channel=NEW, user="U0HUMAN001", at=AT, action="follow", detail=("acme/widgets",)))
    env.close()

    assert main(["following", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    channels = {channel["id"]: channel for channel in data["channels"]}
    assert list(channels) == [DIGEST_CHANNEL, "C0OTHER001", NEW]  # the file's first

    new = channels[NEW]
    assert new["in_config_file"] is False
    assert new["values"]["repos"] == {"value": ["acme/widgets"], "source": "slack"}
    assert new["values"]["post_at"] == {"value": "10:30", "source": "slack"}
    assert new["values"]["timezone"] == {"value": "UTC", "source": "default"}
    assert new["audit"] == [
        {
            "channel": NEW,
            "user": "U0HUMAN001",
            "at": "2026-08-06T12:00:00Z",
            "action": "follow",
            "detail": ["acme/widgets"],
        }
    ]
    assert channels[DIGEST_CHANNEL]["values"]["repos"] == {"value": ["vllm-project/vllm"], "source": "file"}
    assert data["audit"] == new["audit"]


def test_following_text_says_where_each_value_comes_from(env: RedisKV, capsys: pytest.CaptureFixture[str]) -> None:
    env.close()
    assert main(["following"]) == 0
    out = capsys.readouterr().out
    assert f"{DIGEST_CHANNEL}\n  Repositories: vllm-project/vllm (from the config file)\n" in out
    assert "  Posting time: 09:00 (the default)\n" in out


def test_following_with_no_channel_says_so_and_how_to_add_one(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """It printed nothing at all."""
    config = tmp_path / "prdigest.toml"
    config.write_text('[defaults]\nlanguage = "en"\n', encoding="utf-8")
    monkeypatch.setenv("PRDIGEST_CONFIG", str(config))
    monkeypatch.setenv("REDIS_URL", redis_url)
    assert main(["following"]) == 0
    assert capsys.readouterr().out == (
        "No channel follows a repository yet: add a [[channels]] table to the config file, "
        "or type `/pr follow owner/repo` in a Slack channel.\n"
    )
    assert main(["following", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"channels": [], "audit": []}
