"""Every key family the README says fails closed raises StoreError while Redis cannot be reached,
each in its own case: answering "free" or "empty" from a store nobody can read would post a digest
twice, answer a delivery twice, drop a follow or let an install through. Real Redis, stopped."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime

import pytest
from cryptography.fernet import Fernet
from devkit.redis_server import RedisServer

from bot.core.watches import Watch
from bot.errors import StoreError
from bot.models import AuditEntry, Vote
from bot.store.backends.redis_store import RedisKV
from bot.store.feedback import FeedbackStore
from bot.store.installations import KVOAuthStateStore, SealedInstallationStore
from bot.store.kv import KV
from bot.store.ledger import PostLedger
from bot.store.sealed import Sealer
from bot.store.subscriptions import ChannelEdits, SubscriptionStore
from bot.store.threads import ThreadStore
from bot.store.watches import WatchStore

CHANNEL, DAY, USER = "C0DIGEST01", "2026-08-05", "U0HUMAN001"
AT = datetime(2026, 8, 5, 9, 0, tzinfo=UTC)


def change(kv: KV) -> None:
    with SubscriptionStore(kv).changing(CHANNEL):
        pass


# The README's "Fail closed" families (When Redis cannot be reached), each by the call that uses it.
FAMILIES: dict[str, Callable[[KV], object]] = {
    "post lease, taken": lambda kv: PostLedger(kv).take_lease(CHANNEL, DAY, "token", 60),
    "post lease, renewed": lambda kv: PostLedger(kv).renew_lease(CHANNEL, DAY, "token", 60),
    "post lease, released": lambda kv: PostLedger(kv).release_lease(CHANNEL, DAY, "token"),
    "ledger, read": lambda kv: PostLedger(kv).entries(CHANNEL, DAY),
    "ledger, written": lambda kv: PostLedger(kv).record(CHANNEL, DAY, "part:0", "1.0"),
    "ledger, checked by the scheduler": lambda kv: PostLedger(kv).check(),
    "deliveries (events, mention twins, triggers)": lambda kv: ThreadStore(kv).first_delivery("event:Ev1"),
    "deliveries of a workspace": lambda kv: ThreadStore(kv, "T0OTHER").first_delivery("trigger:1.2.3"),
    "subscriptions, read": lambda kv: SubscriptionStore(kv).all(),
    "subscriptions, saved": lambda kv: SubscriptionStore(kv).save(
        CHANNEL, ChannelEdits(values={"repos": ["acme/widgets"]}, by=USER, at=AT)
    ),
    "subscription change locks": change,
    "audit trail": lambda kv: SubscriptionStore(kv).record(
        AuditEntry(channel=CHANNEL, user=USER, at=AT, action="follow")
    ),
    "watches, a person's own": lambda kv: WatchStore(kv).of(USER),
    "watches, added": lambda kv: WatchStore(kv).add(USER, Watch("acme/widgets", "pr", number=7)),
    "feedback, written": lambda kv: FeedbackStore(kv).vote(CHANNEL, USER, Vote("acme/widgets#7", True, ())),
    "feedback, reset": lambda kv: FeedbackStore(kv).reset(CHANNEL),
    "installations": lambda kv: SealedInstallationStore(kv, Sealer(Fernet.generate_key().decode())).find_workspace(
        "T0OTHER"
    ),
    "OAuth states": lambda kv: KVOAuthStateStore(kv).consume("a-state-from-slack"),
}


@pytest.fixture
def unreachable(own_redis: RedisServer) -> Iterator[KV]:
    kv = RedisKV.from_url(own_redis.url)
    own_redis.stop()
    yield kv
    kv.close()


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_fail_closed_family_raises_while_redis_is_unreachable(unreachable: KV, family: str) -> None:
    with pytest.raises(StoreError):
        FAMILIES[family](unreachable)
    assert unreachable.degraded
