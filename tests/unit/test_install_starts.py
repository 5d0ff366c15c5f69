"""Issue 23, item 8: "Add to Slack" starts are counted per client address and in all, so that
unauthenticated GETs of /slack/install cannot fill Redis with OAuth states."""

from __future__ import annotations

import pytest
from devkit.clocks import Clock

from bot.core.addresses import client_address
from bot.store.backends.memory import MemoryKV
from bot.workspaces.installs import (
    ADDRESS_STARTS,
    ADDRESS_WINDOW_SECONDS,
    MAX_OUTSTANDING_STATES,
    NETWORK_STARTS,
    RESERVED_STATES,
    InstallStarts,
)

STATE_SECONDS = 600


def test_one_address_gets_its_starts_then_waits_for_the_next_window() -> None:
    clock = Clock(60.0 * 20_000 + 20)  # 20 s into a minute
    starts = InstallStarts(MemoryKV(), STATE_SECONDS, clock=clock)
    assert [starts.admit("198.51.100.7") for _ in range(ADDRESS_STARTS)] == [None] * ADDRESS_STARTS
    assert starts.admit("198.51.100.7") == ADDRESS_WINDOW_SECONDS - 20
    assert starts.admit("198.51.100.8") is None  # another address is counted apart
    clock.now += ADDRESS_WINDOW_SECONDS
    assert starts.admit("198.51.100.7") is None


def test_the_outstanding_states_are_capped_whatever_the_addresses() -> None:
    clock = Clock(600.0 * 2000 + 100)  # 100 s into a state window
    kv = MemoryKV()
    starts = InstallStarts(kv, STATE_SECONDS, clock=clock)
    admitted = sum(starts.admit(f"10.0.{n // 250}.{n % 250}") is None for n in range(MAX_OUTSTANDING_STATES))
    assert admitted == MAX_OUTSTANDING_STATES // 2
    assert starts.admit("203.0.113.1") == STATE_SECONDS - 100
    # Once full, a new address is refused before anything is written for it.
    assert kv.get(f"install_starts:203.0.113.2:{int(clock.now // ADDRESS_WINDOW_SECONDS)}") is None
    assert starts.admit("203.0.113.2") is not None
    assert kv.get(f"install_starts:203.0.113.2:{int(clock.now // ADDRESS_WINDOW_SECONDS)}") is None
    clock.now += STATE_SECONDS  # this window's states are the last window's now: half the cap again
    assert starts.admit("203.0.113.1") is None


def test_the_addresses_of_one_ipv6_64_are_one_client() -> None:
    clock = Clock(600.0 * 2000 + 20)
    starts = InstallStarts(MemoryKV(), STATE_SECONDS, clock=clock)
    # A proxy appends a new address of the same /64 to each request.
    admitted = sum(starts.admit(f"2001:db8:1:2:{n // 65536:x}:{n % 65536:x}::1") is None for n in range(699))
    assert admitted == ADDRESS_STARTS
    assert starts.admit("2001:db8:1:3::1") is None  # another /64 of the same /48
    assert starts.admit("2001:db8:2::1") is None  # another /48
    assert starts.admit("198.51.100.7") is None


def test_a_48_is_held_to_its_network_s_share_whatever_its_64s() -> None:
    clock = Clock(600.0 * 2000 + 20)
    kv = MemoryKV()
    starts = InstallStarts(kv, STATE_SECONDS, clock=clock)
    admitted = sum(starts.admit(f"2001:db8:aa:{n:x}::1") is None for n in range(5000))
    assert admitted == NETWORK_STARTS
    # Once its share is spent, a new /64 of it is refused before anything is written for it.
    assert starts.admit("2001:db8:aa:ffff::1") == STATE_SECONDS - 20
    assert kv.get(f"install_starts:2001:db8:aa:ffff::/64:{int(clock.now // ADDRESS_WINDOW_SECONDS)}") is None
    assert starts.admit("2001:db8:bb::1") is None
    assert starts.admit("198.51.100.7") is None


def test_a_network_that_has_used_none_of_its_share_gets_in_past_a_flood_of_others() -> None:
    clock = Clock(600.0 * 2000)  # the start of a state window
    starts = InstallStarts(MemoryKV(), STATE_SECONDS, clock=clock)
    flooders = [f"192.0.2.{n}" for n in range(40)]  # more than enough to spend the open part
    admitted = 0
    for _minute in range(NETWORK_STARTS // ADDRESS_STARTS + 1):
        admitted += sum(starts.admit(flooder) is None for flooder in flooders for _ in range(ADDRESS_STARTS))
        clock.now += ADDRESS_WINDOW_SECONDS
    per_window = MAX_OUTSTANDING_STATES // 2
    assert admitted == per_window - RESERVED_STATES
    assert starts.admit(flooders[-1]) is not None  # a network that has started waits for the next window
    # One that has not gets its start, once: the reserve is not a second open part.
    assert starts.admit("203.0.113.1") is None
    assert starts.admit("203.0.113.1") is not None
    assert starts.admit("2001:db8:cc::1") is None
    # Still, the cap in all bounds the states, however many networks ask.
    fresh = sum(starts.admit(f"198.18.{n // 256}.{n % 256}") is None for n in range(1000))
    assert admitted + 2 + fresh == per_window


def test_an_ipv4_mapped_address_counts_as_its_ipv4_address() -> None:
    starts = InstallStarts(MemoryKV(), STATE_SECONDS, clock=Clock(600.0 * 2000 + 20))
    assert [starts.admit("::ffff:198.51.100.7") for _ in range(ADDRESS_STARTS)] == [None] * ADDRESS_STARTS
    assert starts.admit("198.51.100.7") is not None


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        ("93.184.216.34", None, "93.184.216.34"),
        # A peer on the internet is the client, whatever it says it forwards for.
        ("93.184.216.34", "203.0.113.9", "93.184.216.34"),
        # A proxy of ours (loopback, private): the entry it appended, not those the client sent.
        ("127.0.0.1", "203.0.113.9", "203.0.113.9"),
        ("10.1.2.3", "1.1.1.1, 203.0.113.9", "203.0.113.9"),
        ("::1", "2001:DB8::0:1", "2001:db8::1"),
        # An IPv4 address written as IPv6 (a dual-stack socket's peer) is that IPv4 address: on
        # the internet it gets no say, on loopback it is a proxy of ours.
        ("::ffff:93.184.216.34", "203.0.113.9", "93.184.216.34"),
        ("::ffff:127.0.0.1", "203.0.113.9", "203.0.113.9"),
        ("::1", "::ffff:203.0.113.9", "203.0.113.9"),
        ("10.1.2.3", "not-an-address", "10.1.2.3"),
        ("10.1.2.3", "", "10.1.2.3"),
        ("", "203.0.113.9", ""),
    ],
)
def test_the_client_is_the_peer_unless_a_proxy_of_ours_forwarded_it(
    peer: str, forwarded: str | None, client: str
) -> None:
    assert client_address(peer, forwarded) == client
