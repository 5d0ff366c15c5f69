"""Which client an HTTP request stands for: the address its rate limits count against (pure).

The peer (REMOTE_ADDR) is the client unless it is a proxy of ours: a loopback or private address,
as the README's nginx and the k8s Ingress are. Then the client is the last X-Forwarded-For entry:
the address that proxy saw and appended ($proxy_add_x_forwarded_for; ingress-nginx likewise).
Earlier entries are whatever the client sent, so they are never read. A peer on the internet
gets no say: its X-Forwarded-For would let it be anyone.
"""

from __future__ import annotations

import ipaddress


def client_address(peer: str, forwarded_for: str | None) -> str:
    """The client's address, in canonical form; `peer` as given when it is no address at all."""
    try:
        direct = ipaddress.ip_address(peer)
    except ValueError:
        return peer
    if forwarded_for and (direct.is_loopback or direct.is_private):
        try:
            return str(ipaddress.ip_address(forwarded_for.rsplit(",", 1)[-1].strip()))
        except ValueError:
            pass  # not written by a proxy of ours: the peer it is
    return str(direct)
