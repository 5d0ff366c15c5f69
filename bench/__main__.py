"""`python -m bench`: every scenario, a table of figures with bounds, targets and pass/miss.

make bench                      # the full run (a few minutes)
.venv/bin/python -m bench --smoke   # seconds: keeps the benchmark working (CI runs it)
.venv/bin/python -m bench --only requests   # the digest rows and GitHub's requests per PR
.venv/bin/python -m bench --only scale --repos 1000   # the 1,000-repository day (never in make bench)
"""

from __future__ import annotations

import argparse
import compileall
import platform
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

from devkit.tables import table

from bench.cache import past_day_row
from bench.deployed import worker_ack_rows
from bench.env import REPO_ROOT, Latencies, world
from bench.globs import match_row, saved_ack_row
from bench.past_day import date_path_row
from bench.queue import premade_digest_row, webhook_row, workers_row
from bench.release import release_row
from bench.scale import MODEL_LATENCY, scale_rows
from bench.scale_world import RedisMode
from bench.scenarios import (
    Options,
    Row,
    ack_rows,
    digest_rows,
    naive_row,
    pacing_row,
    parse_row,
    server_memory_row,
    stall_row,
    startup_row,
    token_budget_row,
)

FULL = Options(
    prs=150,
    runs=3,
    latencies=Latencies(),
    naive_sample=20,
    ack_requests=300,
    ack_concurrency=20,
    questions=5,
    memory_questions=1000,
    thread_cards=65,
    backlog=450,
    backlog_model_latency=0.5,
    webhook_deliveries=40,
)
SMOKE = Options(
    prs=12,
    runs=1,
    latencies=Latencies(model=0.05, github=0.002, slack=0.002),
    naive_sample=3,
    ack_requests=20,
    ack_concurrency=5,
    questions=1,
    memory_questions=5,
    thread_cards=12,
    stall_messages=1,
    parse_repeats=1,
    backlog=24,
    backlog_model_latency=0.05,
    webhook_deliveries=5,
)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--smoke", action="store_true", help="tiny and fast: checks that every scenario runs")
    parser.add_argument("--dataset", type=Path, help="a JSONL file in the shared data format (default: generated rows)")
    parser.add_argument("--prs", type=int, help="PRs in the digest (default 150)")
    parser.add_argument("--runs", type=int, help="repetitions of the timed scenarios (default 3)")
    parser.add_argument("--model-latency", type=float, help="seconds per model call (default 2.0)")
    parser.add_argument("--github-latency", type=float, help="seconds per GitHub request (default 0.05)")
    parser.add_argument("--slack-latency", type=float, help="seconds per Slack call (default 0.03)")
    parser.add_argument(
        "--only",
        choices=["requests", "release", "scale"],
        help="requests: only the digest rows, GitHub's requests per PR among them; release: only the release row; "
        "scale: only the day of many repositories (not part of the full run)",
    )
    parser.add_argument("--repos", type=int, default=1000, help="--only scale: repositories of 20 PRs (default 1000)")
    parser.add_argument(
        "--redis",
        choices=["single", "cluster", "both"],
        default="both",
        help="--only scale: the store on one Redis, on a three-master cluster, or each in turn (default)",
    )
    return parser.parse_args(argv)


def options_from(args: argparse.Namespace) -> Options:
    base = SMOKE if args.smoke else FULL
    latencies = Latencies(
        model=args.model_latency if args.model_latency is not None else base.latencies.model,
        github=args.github_latency if args.github_latency is not None else base.latencies.github,
        slack=args.slack_latency if args.slack_latency is not None else base.latencies.slack,
    )
    return Options(
        prs=args.prs or base.prs,
        runs=args.runs or base.runs,
        latencies=latencies,
        naive_sample=base.naive_sample,
        ack_requests=base.ack_requests,
        ack_concurrency=base.ack_concurrency,
        questions=base.questions,
        memory_questions=base.memory_questions,
        thread_cards=base.thread_cards,
        stall_messages=base.stall_messages,
        parse_repeats=base.parse_repeats,
        backlog=base.backlog,
        backlog_model_latency=base.backlog_model_latency,
        webhook_deliveries=base.webhook_deliveries,
    )


def verdict(row: Row) -> str:
    return "ERROR" if row.error else "—" if not row.judged else "pass" if row.ok else "MISS"


def status(rows: list[Row], smoke: bool) -> int:
    """1 for an error in any run; a missed target counts only in the full run, since --smoke's
    latencies are too small for its figures to be compared with the bounds."""
    if any(row.error for row in rows):
        return 1
    return 0 if smoke or all(row.ok for row in rows) else 1


def with_bytecode() -> None:
    """Time prdigest as an installed copy runs: from bytecode. pip compiles what it installs and
    Python writes the rest on a first run, but a shell with PYTHONDONTWRITEBYTECODE (as CI and
    some containers set) would have every run compile bot/ from source, a cost no user pays.
    (A PYTHONPYCACHEPREFIX would hide the installed packages' own bytecode, so it goes beside
    the sources, in the __pycache__ folders git ignores.)"""
    compileall.compile_dir(REPO_ROOT / "bot", quiet=1)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    options = options_from(args)
    started = time.monotonic()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="prdigest-bench-") as tmp:
        workdir = Path(tmp)
        with_bytecode()
        if args.only == "scale":
            return scale(args, options, workdir, started)
        with world(options.prs, options.latencies, workdir, args.dataset) as bench_world:
            if args.only == "requests":
                rows.extend(digest_rows(bench_world, options, workdir)[0])
                rows.append(date_path_row(bench_world, workdir))
                return report(rows, options, started, args.smoke)
            if args.only == "release":
                rows.append(release_row(bench_world, options))
                return report(rows, options, started, args.smoke)
            rows.append(startup_row(options))
            digest, cold_median = digest_rows(bench_world, options, workdir)
            rows.extend(digest)
            rows.append(past_day_row(bench_world, options, workdir))
            rows.append(naive_row(bench_world, options, cold_median))
            rows.append(token_budget_row(bench_world, workdir))
            acks, thread_ts = ack_rows(bench_world, options)
            rows.extend(acks)
            rows.append(parse_row(options))
            rows.append(stall_row(bench_world, options, thread_ts))
            rows.append(match_row(bench_world, options))
            rows.append(pacing_row(bench_world, options))
            rows.append(server_memory_row(bench_world, options, workdir))
            # After the rows that use the first digest's thread: these flush Redis.
            rows.append(saved_ack_row(bench_world, options))
            rows.extend(worker_ack_rows(bench_world, options))
            rows.append(premade_digest_row(bench_world, options))
            rows.append(webhook_row(bench_world, options, options.webhook_deliveries))
            rows.append(workers_row(bench_world, options, options.backlog, options.backlog_model_latency))
            # Last: these add a repository of their own to the fake GitHub (and flush Redis).
            rows.append(release_row(bench_world, options))
            rows.append(date_path_row(bench_world, workdir))
    return report(rows, options, started, args.smoke)


def scale(args: argparse.Namespace, options: Options, workdir: Path, started: float) -> int:
    modes: list[RedisMode] = ["single", "cluster"] if args.redis == "both" else [args.redis]
    rows, notes = scale_rows(args.repos, modes, options.latencies, args.dataset, workdir)
    latency = options.latencies
    heading = (
        f"{args.repos:,} repositories × 20 PRs · latencies: model {MODEL_LATENCY:g} s, "
        f"GitHub {latency.github * 1000:g} ms, Slack {latency.slack * 1000:g} ms"
    )
    code = report(rows, options, started, smoke=False, heading=heading)
    print("\n".join(notes))
    return code


def report(rows: list[Row], options: Options, started: float, smoke: bool, heading: str = "") -> int:
    latency = options.latencies
    heading = heading or (
        f"{options.prs} PRs, {options.runs} run(s) · latencies: model {latency.model:g} s, "
        f"GitHub {latency.github * 1000:g} ms, Slack {latency.slack * 1000:g} ms"
    )
    print(
        f"prdigest benchmark · {datetime.now(UTC):%Y-%m-%d %H:%M} UTC · {platform.machine()}, "
        f"{_cores()} cores, Python {platform.python_version()} · {heading}"
    )
    headers = ("scenario", "figure", "compared with", "target", "")
    print(table(headers, [(row.scenario, row.figure, row.bound, row.target, verdict(row)) for row in rows]))
    for row in rows:
        if row.error:
            print(f"ERROR {row.scenario}: {row.error}")
    print(f"({time.monotonic() - started:.0f} s)")
    return status(rows, smoke)


def _cores() -> int:
    import os

    return os.cpu_count() or 0


if __name__ == "__main__":
    sys.exit(main())
