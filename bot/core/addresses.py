"""Which client an HTTP request stands for, and which network it counts in (pure).

The peer (REMOTE_ADDR) is the client unless it is a proxy of ours: a loopback or private address,
as the README's nginx and the k8s Ingress are. Then the client is the last X-Forwarded-For entry:
the address that proxy saw and appended ($proxy_add_x_forwarded_for; ingress-nginx likewise).
Earlier entries are whatever the client sent, so they are never read. A peer on the internet
gets no say: its X-Forwarded-For would let it be anyone. An IPv4 address written as IPv6
(::ffff:192.0.2.1, RFC 4291 2.5.5.2, what a dual-stack socket reports) is that IPv4 address.

A rate limit counts an IPv6 client by its network, not its address: one subscriber is given a
whole /64 at least (RFC 6177), and picks any of its 2^64 addresses at will.
"""

from __future__ import annotations

import ipaddress

Address = ipaddress.IPv4Address | ipaddress.IPv6Address


def client_address(peer: str, forwarded_for: str | None) -> str:
    """The client's address, in canonical form; `peer` as given when it is no address at all."""
    direct = _address(peer)
    if direct is None:
        return peer
    if forwarded_for and (direct.is_loopback or direct.is_private):
        forwarded = _address(forwarded_for.rsplit(",", 1)[-1].strip())
        if forwarded is not None:
            return str(forwarded)
    return str(direct)  # no forwarded entry, or not one a proxy of ours wrote: the peer it is


def counted_as(address: str, ipv6_prefix: int) -> str:
    """What a limit counts `address` as: an IPv4 address itself, an IPv6 one its /`ipv6_prefix`
    network ("2001:db8:1:2::/64"); anything else (no address at all) as given."""
    parsed = _address(address)
    if parsed is None:
        return address
    if parsed.version == 4:
        return str(parsed)
    return str(ipaddress.IPv6Network((parsed, ipv6_prefix), strict=False))


def _address(text: str) -> Address | None:
    """`text` as an address, an IPv4-mapped IPv6 one as its IPv4 address; None if it is none."""
    try:
        parsed = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is not None:
        return parsed.ipv4_mapped
    return parsed
