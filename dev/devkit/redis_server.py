"""A private redis-server on loopback for the tests, the benchmark and the soak: no persistence,
a port of its own, and stop/start on that same port to stage an outage."""

from __future__ import annotations

import re
import shutil
import socket
import subprocess
import time
from types import TracebackType
from typing import Self

from devkit.ports import free_port

_PROCESS_ID = re.compile(rb"process_id:(\d+)\r\n")


class RedisServerError(RuntimeError):
    """redis-server is missing or did not come up."""


class RedisServer:
    """A redis-server process; `url` is where clients find it, across restarts."""

    def __init__(self, port: int | None = None, options: tuple[str, ...] = ()) -> None:
        self.port = free_port() if port is None else port
        self.options = options  # more of redis-server's options, e.g. a cluster node's
        self.url = f"redis://127.0.0.1:{self.port}/0"
        # Until clients hold the URL, a port another process took first is swapped for a new one.
        self._pinned = port is not None
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 10.0) -> None:
        """Start the server and return once it answers; a second start reuses the port."""
        binary = shutil.which("redis-server")
        if binary is None:
            raise RedisServerError("redis-server is not installed (`make redis-server` installs it)")
        for _attempt in range(3):
            if self._launch(binary, timeout):
                self._pinned = True
                return
            if self._pinned:
                break
            self.port = free_port()
            self.url = f"redis://127.0.0.1:{self.port}/0"
        raise RedisServerError(f"redis-server did not start on 127.0.0.1:{self.port}")

    def stop(self) -> None:
        """Stop the server and wait until it has exited (its port is then free to restart on)."""
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> Self:
        """Running for the block (started here unless it already is), stopped after it."""
        if self._process is None:
            self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()

    def _launch(self, binary: str, timeout: float) -> bool:
        process = subprocess.Popen(
            [
                binary,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                *self.options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:  # exited: most likely the port was taken meanwhile
                return False
            # Ours, not merely a server on this port: another one there would get our flushes.
            if _server_pid(self.port) == process.pid:
                self._process = process
                return True
            time.sleep(0.02)
        process.kill()
        process.wait()
        return False


def _server_pid(port: int) -> int | None:
    """The process id the redis-server on `port` reports (INFO server), or None if none answers."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"INFO server\r\n")
            reply = b""
            while (found := _PROCESS_ID.search(reply)) is None:
                chunk = sock.recv(65536)
                if not chunk:
                    return None
                reply += chunk
    except OSError:
        return None
    return int(found.group(1))
