"""The bench row of an older day's digest (`--date`): GitHub's issue search finds its PRs, which
carries no merge SHA and no sizes; the files give both the sizes and the cards' key (issue 26)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from devkit.fakes import dataset

from bench.env import World
from bench.scenarios import REQUESTS_PER_PR, Row, list_pages, run_prdigest

PAST_REPO = "vllm-project/vllm-past"  # the day's PRs again, ten days back, in a repository of their own
DAYS_BACK = 10


def past_rows(rows: list[dict[str, Any]], day: datetime) -> list[dict[str, Any]]:
    """`rows` (the last 24 hours' PRs) moved onto the UTC `day`, in their order and spacing."""
    times = [dataset.parse_time(row["merged_at"]) for row in rows]
    first = min(times)
    return [
        {**row, "merged_at": (day + (moment - first) * 0.95).strftime("%Y-%m-%dT%H:%M:%SZ")}
        for row, moment in zip(rows, times, strict=True)
    ]


def date_path_row(world: World, workdir: Path) -> Row:
    """GitHub requests per PR of a cold `digest --date` (one run: the count does not vary)."""
    day = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=DAYS_BACK)
    rows = past_rows(world.rows, day)
    dataset.populate(world.github, rows, repo=PAST_REPO)
    world.flush_redis()
    world.reset_counts()
    run = run_prdigest(world, ["digest", PAST_REPO, "--date", f"{day:%Y-%m-%d}", "--format", "json"], workdir)
    shown = json.loads(run.stdout)["shown"]
    if shown != len(rows):
        return Row("GitHub requests per PR, --date path", "—", "—", "—", False, f"showed {shown} of {len(rows)} PRs")
    pages = list_pages(world)
    per_pr = (len(world.github.requests) - pages) / len(rows)
    return Row(
        "GitHub requests per PR, --date path",
        f"{per_pr:.2f} per PR + {pages} list requests",
        "1 (files; no GET of each PR for its merge SHA)",
        f"≤ {REQUESTS_PER_PR:g} + list pages",
        per_pr <= REQUESTS_PER_PR,
        "" if per_pr <= 2.0 else "more than 2 GitHub requests for a PR",
    )
