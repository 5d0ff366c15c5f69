"""Free TCP ports on loopback, for servers that must be told their port before they start
(redis-server, `prdigest serve --http` in a subprocess). A server in this process binds port 0
instead and reads back the port it got: no other process can take that one in between."""

from __future__ import annotations

import socket


def free_port() -> int:
    """A loopback port nothing listens on right now (the kernel's pick for port 0)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
