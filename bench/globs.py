"""Hostile globs: how long one path takes against the worst patterns, and the longest ack while
a channel's digest runs with them saved (issue 23: a 29-character pattern froze every ack)."""

from __future__ import annotations

import statistics
import threading
import time
from datetime import UTC, datetime

import requests

from bench.env import World
from bench.scenarios import CHANNEL, REPO, Options, Row, Served, _scheduled_window
from bot.core.strings.globs import MAX_GLOB_WILDCARDS, glob_matches
from bot.core.watches import path_matches
from bot.models import DigestOptions, Filters

PAIRS = MAX_GLOB_WILDCARDS // 2
# The worst each entry check lets through, and what the settings box took before the checks.
WORST_FILTER = "*?" * PAIRS + "#"
WORST_WATCH = "**?" * (MAX_GLOB_WILDCARDS // 3) + "*#"
SAVED_BEFORE = "*?" * 1500


def _paths(world: World) -> list[str]:
    return sorted({str(change["path"]) for row in world.rows for change in row["files"]})


def match_row(world: World, options: Options) -> Row:
    """Per path, the slowest of the worst patterns (best of a few rounds, the machine being shared)."""
    paths = _paths(world)
    worst = 0.0
    for match in (
        lambda path: glob_matches(WORST_FILTER, path, "filter"),
        lambda path: path_matches(WORST_WATCH, path),
        lambda path: glob_matches(SAVED_BEFORE, path, "filter"),
    ):
        rounds = []
        for _round in range(max(options.runs, 3)):
            started = time.perf_counter()
            for path in paths:
                match(path)
            rounds.append((time.perf_counter() - started) / len(paths))
        worst = max(worst, min(rounds))
    longest = max(len(path) for path in paths)
    return Row(
        f"a path against the worst globs ({len(paths)} paths, up to {longest} characters)",
        f"{worst * 1000:.3f} ms a path",
        "before: 42 s a path at 5 pairs, no answer at 8",
        "≤ 1 ms",
        worst <= 0.001,
    )


def saved_ack_row(world: World, options: Options) -> Row:
    """The longest signed /pr and /healthz while a digest filters every PR with the worst globs."""
    world.flush_redis()
    served = Served(world, pace=0.0)
    window, day = _scheduled_window(datetime.now(UTC))
    filters = Filters(exclude_authors=(WORST_FILTER, SAVED_BEFORE), paths=(WORST_FILTER, SAVED_BEFORE, "*"))
    done = threading.Event()

    def digest() -> None:
        try:
            served.parts.digests.run(CHANNEL, day, window, (REPO,), options=DigestOptions("en", filters, "note"))
        finally:
            done.set()

    runner = threading.Thread(target=digest)
    runner.start()
    health = served.url.replace("/slack/events", "/healthz")
    waits: list[float] = []
    while not done.is_set() or len(waits) < 10:
        number = world.rows[len(waits) % len(world.rows)]["number"]
        started = time.monotonic()
        served.command(f"{REPO}#{number}", world.slack.new_response_url())
        requests.get(health, timeout=30)
        waits.append(time.monotonic() - started)
    runner.join()
    served.close()
    longest = max(waits)
    return Row(
        "acks while a digest filters with the worst globs saved",
        f"longest /pr ack + /healthz {longest * 1000:.0f} ms · median {statistics.median(waits) * 1000:.0f} ms "
        f"({len(waits)} pairs)",
        "before: never answered",
        "< 1 s",
        longest < 1.0,
    )
