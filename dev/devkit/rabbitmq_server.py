"""A private RabbitMQ node on loopback for the tests: Debian's rabbitmq-server, with its ports,
data, logs and Erlang port mapper all its own, gone when it stops.

Started as the server's own script (not /usr/sbin's wrapper, which drops to the rabbitmq user
and its /var/lib folders); up in about six seconds. The guest user may connect from loopback.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Self

from devkit.ports import free_port

# Debian's package puts the server's own script here; /usr/sbin/rabbitmq-server wraps it.
SCRIPT = Path("/usr/lib/rabbitmq/bin/rabbitmq-server")


class RabbitmqServerError(RuntimeError):
    """rabbitmq-server is missing or did not come up."""


class RabbitmqServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"amqp://guest:guest@127.0.0.1:{self.port}/%2F"
        self._folder = tempfile.TemporaryDirectory(prefix="prdigest-rabbitmq-")
        self._epmd_port = free_port()
        self._process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 60.0) -> None:
        script = str(SCRIPT) if SCRIPT.exists() else shutil.which("rabbitmq-server")
        if script is None:
            raise RabbitmqServerError("rabbitmq-server is not installed (`make redis-server` installs it)")
        folder = Path(self._folder.name)
        (folder / "mnesia").mkdir()
        (folder / "log").mkdir()
        (folder / "enabled_plugins").write_text("[].\n", encoding="utf-8")
        (folder / "rabbitmq.conf").write_text(
            f"listeners.tcp.default = 127.0.0.1:{self.port}\nloopback_users.guest = true\n", encoding="utf-8"
        )
        env = os.environ | {
            "HOME": str(folder),
            "RABBITMQ_NODENAME": f"prdigest{self.port}@localhost",
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.port),
            "RABBITMQ_DIST_PORT": str(free_port()),
            "RABBITMQ_MNESIA_BASE": str(folder / "mnesia"),
            "RABBITMQ_LOG_BASE": str(folder / "log"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(folder / "enabled_plugins"),
            "RABBITMQ_CONFIG_FILE": str(folder / "rabbitmq"),
            "ERL_EPMD_ADDRESS": "127.0.0.1",
            "ERL_EPMD_PORT": str(self._epmd_port),
        }
        # A session of its own: the Erlang VM's children (and its port mapper) stop with it.
        with (folder / "server.out").open("wb") as log:
            self._process = subprocess.Popen(
                [script], env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True, cwd=folder
            )
        deadline = time.monotonic() + timeout
        while not _answers(self.port):
            if self._process.poll() is not None or time.monotonic() > deadline:
                tail = (folder / "server.out").read_text(errors="replace")[-800:]
                self.stop()
                raise RabbitmqServerError(f"rabbitmq-server did not start on 127.0.0.1:{self.port}: {tail}")
            time.sleep(0.1)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            for sent in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(process.pid, sent)
                except ProcessLookupError:
                    break
                try:
                    process.wait(timeout=20)
                    break
                except subprocess.TimeoutExpired:
                    continue
            # The port mapper left its session: ask it to go by its port.
            epmd = shutil.which("epmd")
            if epmd is not None:
                subprocess.run(
                    [epmd, "-port", str(self._epmd_port), "-kill"], capture_output=True, timeout=10, check=False
                )
        self._folder.cleanup()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()


def _answers(port: int) -> bool:
    """Whether AMQP answers on `port`: the protocol header gets the server's connection.start."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as sock:
            sock.sendall(b"AMQP\x00\x00\x09\x01")
            return len(sock.recv(8)) > 0
    except OSError:
        return False
