"""cards/flight.py: one maker for many askers, and what happens when the maker fails or dies."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest
from devkit.clocks import Clock

from bot.cards.flight import WAIT_STEP_SECONDS, Keeper, Lease, once
from bot.core.pacing import Pacing
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CardStore


@dataclass
class Leases:
    """A lease someone else holds until `held_until` on the clock (then it expires)."""

    clock: Clock
    held_until: float = 0.0
    taken: list[str] = field(default_factory=list)

    def try_lock(self, name: str, ttl_seconds: float) -> str | None:
        if self.clock.now < self.held_until:
            return None
        self.taken.append(name)
        return "token"

    def release(self, name: str, token: str) -> None:
        pass

    def lock_held(self, name: str) -> bool:
        return self.clock.now < self.held_until

    def renew(self, name: str, token: str, ttl_seconds: float) -> bool:
        return True


def test_a_free_lease_makes_it_and_a_result_already_stored_is_not_made_again() -> None:
    clock = Clock()
    leases = Leases(clock)
    made: list[int] = []

    def make() -> int:
        made.append(1)
        return 7

    assert once(leases, Lease("x", 60), lambda: None, make, pacing=Pacing(lambda: clock.now, clock.sleep)) == 7
    assert once(leases, Lease("x", 60), lambda: 5, make, pacing=Pacing(lambda: clock.now, clock.sleep)) == 5
    assert made == [1]


def test_a_waiter_takes_the_holders_result_from_the_store() -> None:
    clock = Clock()
    leases = Leases(clock, held_until=10.0)
    # The holder stores its result after 0.2 s.
    result = once(
        leases,
        Lease("x", 60),
        lambda: 3 if clock.now >= 0.2 else None,
        lambda: pytest.fail("made twice"),
        pacing=Pacing(lambda: clock.now, clock.sleep),
    )
    assert result == 3 and set(clock.slept) == {WAIT_STEP_SECONDS}


def test_a_holder_that_lets_go_without_a_result_leaves_the_work_to_the_waiter() -> None:
    clock = Clock()
    leases = Leases(clock, held_until=1.0)
    assert once(leases, Lease("x", 60), lambda: None, lambda: 9, pacing=Pacing(lambda: clock.now, clock.sleep)) == 9
    assert leases.taken == ["x"]


def test_a_holder_that_outlives_the_lease_is_not_waited_for_any_longer() -> None:
    clock = Clock()
    leases = Leases(clock, held_until=1_000.0)
    assert once(leases, Lease("x", 2), lambda: None, lambda: 4, pacing=Pacing(lambda: clock.now, clock.sleep)) == 4
    assert 2.0 <= clock.now < 2.2


def test_a_held_lease_is_renewed_and_one_let_go_is_not() -> None:
    renewed: list[tuple[str, str, float]] = []

    class Recording(CardStore):
        def renew(self, name: str, token: str, ttl_seconds: float) -> bool:
            renewed.append((name, token, ttl_seconds))
            return super().renew(name, token, ttl_seconds)

    store = Recording(MemoryKV())
    keeper = Keeper(store, ttl_seconds=60)
    token = store.try_lock("card:x", 60)
    assert token is not None
    with keeper.holding("card:x", token):
        assert keeper.renew_held() is True
        assert renewed == [("card:x", token, 60)]
        assert store.try_lock("card:x", 60) is None
    store.release("card:x", token)
    assert keeper.renew_held() is False  # nothing held: the renewing thread ends
    assert len(renewed) == 1 and not store.lock_held("card:x")


def test_a_lease_let_go_while_the_keeper_renews_is_not_said_lost(caplog: pytest.LogCaptureFixture) -> None:
    store = CardStore(MemoryKV())
    keeper = Keeper(store, ttl_seconds=60)
    done, working = store.try_lock("card:done", 60), store.try_lock("card:working", 60)
    assert done is not None and working is not None

    class LettingGo(CardStore):
        """The holder of card:done finishes (and lets go) between the keeper's copy and its renew."""

        def renew(self, name: str, token: str, ttl_seconds: float) -> bool:
            if name == "card:done":
                store.release(name, token)
                keeper._held.pop(name, None)
            return store.renew(name, token, ttl_seconds)

    keeper._leases = LettingGo(MemoryKV())
    with keeper.holding("card:working", working), keeper.holding("card:done", done):
        assert keeper.renew_held() is True
        store.release("card:working", working)
        store.try_lock("card:working", 60)  # taken by another: this one is lost
        keeper.renew_held()
    lost = [record.getMessage() for record in caplog.records if "was lost" in record.getMessage()]
    assert lost == ["lease card:working was lost while held; another process may repeat its work"]
