"""Installations and OAuth states in Redis (slack/installations.py): tokens sealed, read back by
any replica, an OAuth state good once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import redis
from cryptography.fernet import Fernet
from slack_sdk.oauth.installation_store import Installation

from bot.store.backends.redis_store import RedisKV
from bot.store.installations import KVOAuthStateStore, SealedInstallationStore
from bot.store.sealed import Sealer

KEY = Fernet.generate_key().decode()
TOKEN, REFRESH = "xoxe.xoxb-1-T0SECOND-secretpart", "xoxe-1-T0SECOND-refreshpart"


@pytest.fixture
def kv(redis_url: str) -> Iterator[RedisKV]:
    backend = RedisKV.from_url(redis_url)
    yield backend
    backend.close()


def installation(team: str = "T0SECOND") -> Installation:
    return Installation(
        app_id="AFAKE",
        team_id=team,
        team_name="Second",
        bot_token=TOKEN,
        bot_id="B1",
        bot_user_id="UBOT1",
        bot_scopes="chat:write,commands",
        bot_refresh_token=REFRESH,
        bot_token_expires_in=43200,
        user_id="UINSTALLER",
        incoming_webhook_url="https://hooks.slack.com/services/secret",
    )


def test_an_installation_is_read_back_with_its_tokens_sealed_in_redis(kv: RedisKV, redis_url: str) -> None:
    SealedInstallationStore(kv, Sealer(KEY)).save(installation())

    found = SealedInstallationStore(kv, Sealer(KEY)).find_installation(enterprise_id=None, team_id="T0SECOND")

    assert found is not None
    assert (found.bot_token, found.bot_refresh_token, found.bot_user_id) == (TOKEN, REFRESH, "UBOT1")
    assert found.bot_scopes == ["chat:write", "commands"] and found.bot_token_expires_at
    client: Any = redis.Redis.from_url(redis_url)
    raw = b"".join(
        client.get(key) or b"" if client.type(key) == b"string" else b"".join(client.hvals(key))
        for key in client.scan_iter()
    )
    assert raw and b"secretpart" not in raw and b"refreshpart" not in raw and b"hooks.slack.com" not in raw


def test_another_key_opens_nothing(kv: RedisKV) -> None:
    SealedInstallationStore(kv, Sealer(KEY)).save(installation())
    other = SealedInstallationStore(kv, Sealer(Fernet.generate_key().decode()))
    assert other.find_workspace("T0SECOND") is None


def test_only_the_installers_installation_is_found_for_a_user(kv: RedisKV) -> None:
    store = SealedInstallationStore(kv, Sealer(KEY))
    store.save(installation())
    assert store.find_installation(enterprise_id=None, team_id="T0SECOND", user_id="UINSTALLER") is not None
    assert store.find_installation(enterprise_id=None, team_id="T0SECOND", user_id="USOMEONE") is None
    assert store.find_bot(enterprise_id=None, team_id="T0SECOND") is not None


def test_delete_all_forgets_the_workspace_and_its_listing(kv: RedisKV) -> None:
    store = SealedInstallationStore(kv, Sealer(KEY))
    store.save(installation("T0SECOND"))
    store.save(installation("T0THIRD"))
    assert [entry.workspace for entry in store.listed()] == ["T0SECOND", "T0THIRD"]

    store.delete_all(enterprise_id=None, team_id="T0SECOND")

    assert store.find_workspace("T0SECOND") is None
    assert [entry.workspace for entry in store.listed()] == ["T0THIRD"]


def test_an_oauth_state_issued_by_one_replica_is_consumed_once_by_another(redis_url: str) -> None:
    one, two = RedisKV.from_url(redis_url), RedisKV.from_url(redis_url)
    try:
        state = KVOAuthStateStore(one).issue()
        assert KVOAuthStateStore(two).consume(state) is True
        assert KVOAuthStateStore(one).consume(state) is False
        assert KVOAuthStateStore(two).consume("") is False
    finally:
        one.close()
        two.close()
