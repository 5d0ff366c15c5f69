"""What a day's digest leaves in Redis: bytes per key family, and a snapshot's bytes per PR as
GitHub gives it (JSON), compressed whole, and as stored (patches cut, compressed).

    PYTHONPATH=.:dev .venv/bin/python scripts/stored_bytes.py [--prs 461]

The benchmark's cold digest (bench/): a redis-server of its own on loopback, the fake GitHub
serving the data set's PRs (PRDIGEST_DATA, re-timed into the last 24 hours, patches synthesised
from their line counts) and the fake model, `prdigest digest --since 24h` run once. Then every
key under prdigest:v1: is read: MEMORY USAGE (what Redis holds for it, its overhead included)
and the value's own bytes (STRLEN, or the fields and members of a hash, list or set). Each
stored snapshot is read from the fake GitHub again for its whole form.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import redis
from devkit import tables
from devkit.fakes import dataset

from bench.env import REPO, Latencies, World, world
from bench.scenarios import run_prdigest
from bot.settings import load_settings
from bot.store import codec
from bot.store.kv import PREFIX
from bot.wiring.process import build_process

# Per PR at rest, a snapshot and a card together (issue 36).
TARGET_BYTES = 3000
NO_WAIT = Latencies(model=0.0, github=0.0, slack=0.0)


@dataclass
class Family:
    keys: int = 0
    memory: int = 0  # MEMORY USAGE: the value, the key and Redis' own bookkeeping
    value: int = 0  # the value's bytes alone


def family_of(key: str) -> str:
    """A key's family: its first part after the prefix, past a workspace's `team:{id}:`."""
    parts = key.removeprefix(PREFIX).split(":")
    return parts[2] if parts[0] == "team" and len(parts) > 2 else parts[0]


def value_bytes(client: redis.Redis, key: str) -> int:
    kind = client.type(key)
    if kind == b"string":
        return int(client.strlen(key))
    if kind == b"hash":
        return sum(len(field) + len(value) for field, value in client.hgetall(key).items())
    if kind == b"list":
        return sum(len(item) for item in client.lrange(key, 0, -1))
    if kind == b"set":
        return sum(len(member) for member in client.smembers(key))
    if kind == b"zset":
        return sum(len(member) for member in client.zrange(key, 0, -1))
    return 0


def families(client: redis.Redis) -> dict[str, Family]:
    found: dict[str, Family] = defaultdict(Family)
    for raw in client.scan_iter(match=f"{PREFIX}*", count=1000):
        key = raw.decode()
        family = found[family_of(key)]
        family.keys += 1
        family.memory += int(client.memory_usage(key) or 0)
        family.value += value_bytes(client, key)
    return dict(found)


@dataclass(frozen=True)
class SnapshotBytes:
    json: int  # the whole snapshot as JSON: before compression
    packed: int  # the whole snapshot compressed (zlib): before the cut
    stored: int  # as stored: patches cut, compressed


def snapshot_bytes(the_world: World, client: redis.Redis) -> list[SnapshotBytes]:
    process = build_process(load_settings(the_world.env))
    try:
        measured = []
        for raw in client.scan_iter(match=f"{PREFIX}snapshot:*", count=1000):
            stored = client.get(raw)
            assert stored is not None
            kept = codec.load_snapshot(stored)
            assert kept is not None, f"{raw.decode()} does not read back"
            whole = codec.dump_snapshot(process.source.fetch(kept.listing))
            plain = codec.unpacked(whole)
            assert isinstance(plain, bytes)
            measured.append(SnapshotBytes(len(plain), len(whole), len(stored)))
        return measured
    finally:
        process.close()


def spread(values: Sequence[int]) -> list[str]:
    return [f"{statistics.mean(values):,.0f}", f"{statistics.median(values):,.0f}", f"{max(values):,}"]


def family_table(found: dict[str, Family], prs: int) -> str:
    rows = [
        [name, f"{family.keys:,}", f"{family.value:,}", f"{family.memory:,}", f"{family.memory / prs:,.0f}"]
        for name, family in sorted(found.items(), key=lambda item: -item[1].memory)
    ]
    total = Family(*(sum(getattr(f, part) for f in found.values()) for part in ("keys", "memory", "value")))
    rows.append(["all", f"{total.keys:,}", f"{total.value:,}", f"{total.memory:,}", f"{total.memory / prs:,.0f}"])
    return tables.table(["family", "keys", "value bytes", "MEMORY USAGE", "per PR"], rows)


def snapshot_table(measured: Iterable[SnapshotBytes]) -> str:
    items = list(measured)
    return tables.table(
        ["snapshot bytes per PR", "mean", "median", "max"],
        [
            ["JSON, whole patches (before)", *spread([m.json for m in items])],
            ["compressed, whole patches", *spread([m.packed for m in items])],
            ["compressed, patches cut (after)", *spread([m.stored for m in items])],
        ],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--prs", type=int, default=461, help="PRs of the data set in the day (default: all 461)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder, world(args.prs, NO_WAIT, Path(folder), dataset.DATASET_PATH) as w:
        run_prdigest(w, ["digest", REPO, "--since", "24h", "--format", "json"], Path(folder))
        client = redis.Redis.from_url(w.redis_url)
        try:
            found = families(client)
            measured = snapshot_bytes(w, client)
        finally:
            client.close()
    prs = len(measured)
    print(f"A day's digest of {prs} PRs; bytes per PR are the family's MEMORY USAGE over {prs}.\n")
    print(family_table(found, prs), end="\n\n")
    print(snapshot_table(measured), end="\n\n")
    at_rest = sum(found[name].memory for name in ("snapshot", "card") if name in found) / prs
    verdict = "within" if at_rest <= TARGET_BYTES else "over"
    print(f"snapshot + card at rest: {at_rest:,.0f} bytes per PR, {verdict} the {TARGET_BYTES:,}-byte target")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
