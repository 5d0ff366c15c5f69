"""The terminal's cache file (no Redis): a past day's digest run again, as a person runs it.

`python -m bench.cache` runs this row alone (its own fakes, the full run's 150 PRs; `--smoke` for
a few); `python -m bench` runs it with every other row.
"""

from __future__ import annotations

import dataclasses
import json
import statistics
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from devkit.fakes import dataset

from bench.env import World, world
from bench.scenarios import Options, Row, run_prdigest, spread
from bot.digests.windows import window_for_date
from bot.render.data import digest_data
from bot.settings import load_settings
from bot.wiring.process import build_process
from bot.wiring.timing import Timing

PAST_REPO = "bench-org/past-day"
PAST_DAY_AGO = timedelta(days=7)  # long final: its window ended days ago (cards/service.py FINAL_AFTER)
PAST_DAY_SECONDS = 0.3


def past_day_row(bench_world: World, options: Options, workdir: Path) -> Row:
    """A past day's digest twice with the cache file: the second run asks GitHub and the model
    nothing at all (its list, snapshots and cards are in the file) and imports neither SDK."""
    day = (datetime.now(UTC) - PAST_DAY_AGO).date()
    start = datetime(day.year, day.month, day.day, tzinfo=UTC)
    step = timedelta(hours=23) / max(len(bench_world.rows), 1)
    rows = [
        {**row, "merged_at": (start + step * index).strftime("%Y-%m-%dT%H:%M:%SZ")}
        for index, row in enumerate(bench_world.rows)
    ]
    dataset.populate(bench_world.github, rows, repo=PAST_REPO)
    env = {name: value for name, value in bench_world.env.items() if name != "REDIS_URL"}
    env["PRDIGEST_CACHE"] = str(workdir / "cache" / "past-day.sqlite3")
    cached = dataclasses.replace(bench_world, env=env)
    args = ["digest", PAST_REPO, "--date", day.isoformat(), "--format", "json"]
    scenario = f"warm digest of a past day, {len(rows)} PRs (cache file, no Redis)"
    bench_world.reset_counts()
    cold = json.loads(run_prdigest(cached, args, workdir).stdout)
    if cold["shown"] != len(rows):
        return Row(scenario, "—", "—", "—", False, f"the cold run showed {cold['shown']} of {len(rows)} PRs")
    walls: list[float] = []
    requests: list[int] = []
    calls: list[int] = []
    for _ in range(max(options.runs, 3)):
        bench_world.reset_counts()
        walls.append(run_prdigest(cached, args, workdir).wall)
        requests.append(len(bench_world.github.requests))
        calls.append(bench_world.model.calls)
    asked = max(requests) + max(calls)
    inside = _in_process(cached, day, max(options.runs, 3))
    return Row(
        scenario,
        f"{max(requests)} GitHub requests · {max(calls)} model calls · {spread(walls)} "
        f"(the digest itself, in process: {spread(inside)})",
        "0 · 0 · Python's start and prdigest's imports",
        f"0 · 0 · ≤ {PAST_DAY_SECONDS:g} s",
        asked == 0 and statistics.median(walls) <= PAST_DAY_SECONDS,
        "" if asked == 0 else "the warm digest of a past day asked GitHub or the model",
    )


def _in_process(cached: World, day: date, runs: int) -> list[float]:
    """Seconds of the digest alone, from the file to its JSON (no interpreter start, no imports)."""
    services = build_process(load_settings(cached.env), Timing(), warn=lambda message: None)
    window = window_for_date(day, ZoneInfo("UTC"), datetime.now(UTC))
    walls: list[float] = []
    try:
        for _ in range(runs):
            started = time.monotonic()
            json.dumps(digest_data(services.digests.build((PAST_REPO,), window)))
            walls.append(time.monotonic() - started)
    finally:
        services.close()
    return walls


def main(argv: list[str]) -> int:
    from bench.__main__ import options_from, parse_args, verdict, with_bytecode

    options = options_from(parse_args(argv))
    with_bytecode()  # timed as an installed copy runs, whatever this shell sets
    with tempfile.TemporaryDirectory(prefix="prdigest-bench-") as tmp:
        workdir = Path(tmp)
        with world(options.prs, options.latencies, workdir) as bench_world:
            row = past_day_row(bench_world, options, workdir)
    print(f"{row.scenario}: {row.figure} · target {row.target} · {verdict(row)} {row.error}".rstrip())
    return 0 if row.ok or (options.runs == 1 and not row.error) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
