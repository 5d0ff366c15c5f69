"""The 1,000-repository day's world (issue 36): synthetic repositories whose PRs are the data
set's, the channels that follow them, the config files of the day's two phases, the store on one
Redis or on a three-master cluster, and what Redis and Linux say about the processes.

It owns none of the timing: bench/scale.py runs the day and makes the rows.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import os
import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Literal

import redis
from devkit.fakes import dataset
from devkit.fakes.github import FakeGitHub
from devkit.redis_cluster import RedisCluster
from devkit.redis_server import RedisServer, RedisServerError

PRS_PER_REPO = 20
REPOS_PER_CHANNEL = 10
KEY_PREFIX = "prdigest:v1:"  # every store key's (docs/operations.md, "Redis keys")
# Keys of each family whose MEMORY USAGE is asked; the family's size is their mean × its count.
FAMILY_SAMPLE = 200

RedisMode = Literal["single", "cluster"]


@dataclass(frozen=True)
class Merge:
    """A merged PR of a synthetic repository, as its webhook names it."""

    repo: str
    number: int
    sha: str
    merged_at: datetime


def repo_name(index: int) -> str:
    return f"org-{index:04d}/repo-{index:04d}"


def channel_name(index: int) -> str:
    return f"C0SCALE{index:03d}"


def populate(github: FakeGitHub, repos: int, source: list[dict[str, Any]], now: datetime) -> list[Merge]:
    """`repos` repositories of PRS_PER_REPO merged PRs each, each PR a data-set row drawn at random
    (seeded: its title, author, files with their paths and sizes, and so its patches and review
    comments), merged one after another across the day before `now`, the repositories taking turns.
    Returns the merges in merge order."""
    rng = random.Random(36)
    total = repos * PRS_PER_REPO
    # Within the last 20 hours and not the last one: a digest posted within 4 hours of `now` still
    # holds every PR in its 24-hour window.
    start, step = now - timedelta(hours=20), timedelta(hours=19) / total
    merges: list[Merge] = []
    rows: dict[str, list[dict[str, Any]]] = {repo_name(index): [] for index in range(repos)}
    for position in range(total):
        repo = repo_name(position % repos)
        number = 1000 + position // repos
        sha = hashlib.sha1(f"{repo}#{number}".encode()).hexdigest()
        merged_at = start + step * position
        row = rng.choice(source)
        rows[repo].append(
            {**row, "number": number, "commit": sha, "merged_at": merged_at.strftime("%Y-%m-%dT%H:%M:%SZ")}
        )
        merges.append(Merge(repo, number, sha, merged_at.replace(microsecond=0)))
    for repo, repo_rows in rows.items():
        dataset.populate(github, repo_rows, repo=repo)
    return merges


def channels(repos: int) -> dict[str, list[str]]:
    """Each channel follows REPOS_PER_CHANNEL repositories, no two channels the same one."""
    count = math.ceil(repos / REPOS_PER_CHANNEL)
    return {
        channel_name(index): [
            repo_name(r) for r in range(index * REPOS_PER_CHANNEL, min(repos, (index + 1) * REPOS_PER_CHANNEL))
        ]
        for index in range(count)
    }


def config_text(followed: dict[str, list[str]], post_at: datetime | None) -> str:
    """The config file: every channel daily at `post_at` (UTC, HH:MM); with None, a weekly roll-up
    on tomorrow's weekday instead, so that nothing is due while the cards are made. No poller:
    the webhook queues every card."""
    if post_at is None:
        weekday = (datetime.now().astimezone() + timedelta(days=1)).strftime("%a")
        schedule, when = f'cadence = "weekly"\nweekly_on = "{weekday}"\n', "23:59"
    else:
        schedule, when = "", post_at.strftime("%H:%M")
    lines = [f'[defaults]\ntimezone = "UTC"\npost_at = "{when}"\n\n[queue]\npoll_minutes = 0\n']
    for channel, repos in followed.items():
        quoted = ", ".join(f'"{repo}"' for repo in repos)
        lines.append(f'[[channels]]\nid = "{channel}"\nrepos = [{quoted}]\n{schedule}')
    return "\n".join(lines)


# -- the store: one Redis, or a cluster with the queue beside it ----------------------------------


@dataclass(frozen=True)
class Stores:
    mode: RedisMode
    queue: RedisServer  # the card queue's Redis (the single one holds the store too)
    store_ports: tuple[int, ...]  # every node that holds the store's keys
    env: dict[str, str]


@contextlib.contextmanager
def stores(mode: RedisMode) -> Iterator[Stores]:
    """single: one redis-server holds the store and the queue (REDIS_URL alone); cluster: three
    masters hold the store (REDIS_URL names the first) and a redis-server the queue (QUEUE_URL)."""
    queue = RedisServer()
    try:
        queue.start()
        if mode == "single":
            with queue:
                yield Stores(mode, queue, (queue.port,), {"REDIS_URL": queue.url})
            return
        with queue, RedisCluster() as cluster:
            ports = tuple(node.port for node in cluster.nodes)
            yield Stores(mode, queue, ports, {"REDIS_URL": cluster.url, "QUEUE_URL": queue.url})
    except RedisServerError as exc:
        raise SystemExit(f"bench: {exc}") from exc


def used_memory(ports: tuple[int, ...]) -> int:
    """Bytes the store's keys take on these nodes, added up: INFO memory's used_memory less its
    clients' buffers, which come and go with the processes connected (80 worker threads' among them)."""
    total = 0
    for port in ports:
        with redis.Redis(port=port) as client:
            info = client.info("memory")
            total += int(info["used_memory"]) - int(info.get("mem_clients_normal", 0))
    return total


def families(ports: tuple[int, ...]) -> dict[str, tuple[int, float]]:
    """The store's key families (the key's first part after the prefix: snapshot, card, …): how
    many keys each has, and their bytes estimated from a sample's MEMORY USAGE."""
    counts: Counter[str] = Counter()
    used: dict[str, list[int]] = {}
    for port in ports:
        with redis.Redis(port=port) as client:
            for key in client.scan_iter(f"{KEY_PREFIX}*", count=1000):
                family = key[len(KEY_PREFIX) :].split(b":", 1)[0].decode(errors="replace")
                counts[family] += 1
                sample = used.setdefault(family, [])
                if len(sample) < FAMILY_SAMPLE // len(ports):  # each node's share of the sample
                    sample.append(int(client.memory_usage(key, samples=0) or 0))
    return {family: (counts[family], counts[family] * sum(sizes) / len(sizes)) for family, sizes in used.items()}


# -- what Linux says about a process --------------------------------------------------------------


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident set size so far (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return math.nan


def cpu_seconds(pid: int) -> float:
    """User and system CPU time the process has used so far."""
    fields = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8").rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime: fields 14 and 15
