"""A Redis Cluster of three masters on loopback, for the tests and the benchmark.

Made as an operator makes one: three `redis-server --cluster-enabled yes`, then
`redis-cli --cluster create` to share the 16,384 slots among them (no replicas: the tests need
the slots spread, not failover). `url` names the first node; a client that follows the cluster's
redirects reaches every key from there, as prdigest does from REDIS_URL.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Self

import redis

from devkit.ports import free_port
from devkit.redis_server import RedisServer, RedisServerError

MASTERS = 3


class RedisCluster:
    def __init__(self, masters: int = MASTERS) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="prdigest-cluster-")
        self.nodes = [self._node(Path(self._folder.name)) for _ in range(masters)]
        self.url = self.nodes[0].url

    @staticmethod
    def _node(folder: Path) -> RedisServer:
        port = free_port()
        # Each node keeps its view of the cluster in a file of its own; the bus port is named
        # rather than left at port + 10000, which may be taken or past 65535.
        options = (
            "--cluster-enabled", "yes",
            "--cluster-config-file", str(folder / f"nodes-{port}.conf"),
            "--cluster-port", str(free_port()),
            "--cluster-node-timeout", "5000",
            "--dir", str(folder),
        )  # fmt: skip
        return RedisServer(port, options)

    def start(self, timeout: float = 30.0) -> None:
        """Start the nodes, join them into one cluster and return once every slot is served."""
        cli = shutil.which("redis-cli")
        if cli is None:
            raise RedisServerError("redis-cli is not installed (`make redis-server` installs it with redis-server)")
        for node in self.nodes:
            node.start()
        addresses = [f"127.0.0.1:{node.port}" for node in self.nodes]
        create = [cli, "--cluster", "create", *addresses, "--cluster-replicas", "0", "--cluster-yes"]
        done = subprocess.run(create, capture_output=True, timeout=timeout, check=False)
        if done.returncode != 0:
            self.stop()
            raise RedisServerError(f"redis-cli --cluster create failed: {done.stdout.decode()[-500:]}")
        deadline = time.monotonic() + timeout
        while not self._ready():
            if time.monotonic() > deadline:
                self.stop()
                raise RedisServerError("the cluster's slots were not all served in time")
            time.sleep(0.05)

    def _ready(self) -> bool:
        """Every node says the cluster is ok and knows all the others (they gossip it in)."""
        for node in self.nodes:
            with redis.Redis(port=node.port, socket_timeout=2) as client:
                info = client.cluster("INFO")
                known = client.cluster("NODES")
            state = info.get("cluster_state") if isinstance(info, dict) else None
            if state != "ok" or len(known) < len(self.nodes):
                return False
        return True

    def flush(self) -> None:
        """Every key of every master gone (between tests)."""
        for node in self.nodes:
            with redis.Redis(port=node.port, socket_timeout=2) as client:
                client.flushall()

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        self._folder.cleanup()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
