"""How many model calls each `[defaults] skip_model_for` class would save on the vLLM data set.

    .venv/bin/python -m scripts.skip_trial [--data PATH]

Reads shared/data/vllm-prs.jsonl where it lies (461 merged PRs, 2026-08-04 to 08-13) and judges
every PR by core/heuristic/skipping.py, the rule the card service applies: a PR of a listed class gets a
heuristic card and no model call, so the PRs matched are the calls saved (one per card and
language; a card's second request, when its first answer states an unsupported figure, is saved
too). The data set has the commit author's name, not GitHub's login or bot flag: each PR is by
the login the fake GitHub gives that author (dataset.login_of), and a bot is one whose login ends
in "[bot]", as GitHub's do. Prints one row per class, the union of all three, and
the PRs matched.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from devkit import tables
from devkit.fakes import dataset

from bot.core.heuristic.shape import is_bump
from bot.core.heuristic.skipping import CI_PREFIXES, SKIP_CLASSES, matches
from bot.models import FileChange, PRListing, PRSnapshot

REPO = "vllm-project/vllm"


def snapshot(row: dict[str, Any]) -> PRSnapshot:
    files = tuple(
        FileChange(entry["path"], "modified", entry["additions"] or 0, entry["deletions"] or 0, None)
        for entry in dataset.row_files(row)
    )
    author = dataset.login_of(str(row["author"]))
    listing = PRListing(
        repo=REPO,
        number=int(row["number"]),
        title=str(row["title"]),
        body=str(row.get("body") or ""),
        author=author,
        url=f"https://github.com/{REPO}/pull/{row['number']}",
        merged_at=datetime.fromisoformat(str(row["merged_at"])),
        merge_sha=str(row["commit"]),
        author_is_bot=author.lower().endswith("[bot]"),
    )
    return PRSnapshot(listing=listing, files=files)


def trial(snapshots: list[PRSnapshot]) -> dict[str, list[PRSnapshot]]:
    """The PRs of each class (a PR may be in several), and under "any" those in at least one."""
    found: dict[str, list[PRSnapshot]] = {kind: [s for s in snapshots if matches(s, kind)] for kind in SKIP_CLASSES}
    found["any"] = [s for s in snapshots if any(matches(s, kind) for kind in SKIP_CLASSES)]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=dataset.DATASET_PATH, help="the data set (JSON lines)")
    args = parser.parse_args(argv)
    snapshots = [snapshot(row) for row in dataset.load_rows(args.data)]
    found = trial(snapshots)
    total = len(snapshots)
    rows = [
        (
            kind,
            str(len(prs)),
            f"{100 * len(prs) / total:.1f}%" if total else "-",
            " ".join(f"#{s.listing.number}" for s in prs[:8]),
        )
        for kind, prs in found.items()
    ]
    print(f"{total} merged PRs of {REPO} in {args.data.name}")
    print(tables.table(("class", "model calls saved", "share", "PRs"), rows))
    for s in found["any"]:
        size = f"{len(s.files)} files, +{s.additions} -{s.deletions}"
        print(f"#{s.listing.number} {s.listing.author}: {s.listing.title} ({size})")
    # The look-alikes each rule leaves to the model, counted so the figures above can be read.
    ci_only = [s for s in snapshots if s.files and all(f.path.startswith(CI_PREFIXES) for f in s.files)]
    bumps = [s for s in snapshots if is_bump(s.listing.title)]
    print(f"look-alikes left to the model: {len(ci_only)} CI-only PRs of any size, {len(bumps)} bump titles by people")
    return 0


if __name__ == "__main__":
    sys.exit(main())
