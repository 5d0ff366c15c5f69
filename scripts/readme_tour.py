"""Write the README's "A 30-second tour" from real runs of its commands against the bundled fakes.

    .venv/bin/python scripts/readme_tour.py           # rewrite the tour's console blocks in README.md
    .venv/bin/python scripts/readme_tour.py --check   # exit 1 when the README differs from a run

The fakes are the README's own as `scripts/dev_fakes.py` starts them with no `--date`: the fake
GitHub holds the whole data set at its own days (so a run tomorrow prints the same) and its
releases (devkit/fakes/dataset_releases.py); there is no model key. Each command runs as a newcomer runs it,
`.venv/bin/prdigest` from the repository, in a fresh cache, in the order of the tour (the digest
makes the cards the questions then read). A block shows what the command printed: its stderr
lines (the setup lines a first run says are left out), then its first lines of stdout and "…".
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from devkit.fakes import dataset
from devkit.fakes.dataset_releases import add_releases
from devkit.fakes.github import FakeGitHub

REPO_ROOT = Path(__file__).resolve().parents[1]
README = REPO_ROOT / "README.md"
PROGRAM = ".venv/bin/prdigest"
REPO = "vllm-project/vllm"
DAY = "2026-08-05"
TOUR_HEADING = "## A 30-second tour"
_BLOCK = re.compile(r"```console\n.*?```\n", re.DOTALL)
# The lines every first run says about its setup (bot/cli/start_notes.py): not what the tour shows.
_SETUP = re.compile(r"prdigest: (?:config file |no config file at |REDIS_URL is not set)")
MORE = "…"


@dataclass(frozen=True)
class Step:
    args: tuple[str, ...]
    lines: int | None = None  # the lines of stdout the README shows, then "…" (None: all)


# One tuple per console block of the tour, in the README's order.
TOUR: tuple[tuple[Step, ...], ...] = (
    (Step(("digest", REPO, "--date", DAY), 14),),
    (Step(("card", f"{REPO}#51079")),),
    (
        Step(("ask", REPO, f"which PRs merged on {DAY} touched attention?")),
        Step(("ask", f"{REPO}#51079", "what changed in the workflow?"), 1),
    ),
    (Step(("release", REPO, "v0.13.0"), 7),),
)


def shown(arg: str) -> str:
    """An argument as the README types it: in double quotes when the shell would split it."""
    return f'"{arg}"' if re.search(r"[^\w@%+=:,./#-]", arg) else arg


def environment(github_url: str, home: Path) -> dict[str, str]:
    """A newcomer's environment pointed at the fakes, as their exports do, and nothing of ours."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "XDG_CACHE_HOME": str(home / "cache"),
        "PRDIGEST_CACHE": str(home / "fakes" / "cache.sqlite3"),
        "GITHUB_API_URL": github_url,
        "GITHUB_TOKEN": "test",
    }


def run_step(step: Step, env: dict[str, str]) -> list[str]:
    """The lines of a block for one command: the prompt, its stderr (less the setup), its stdout."""
    done = subprocess.run(
        [str(REPO_ROOT / PROGRAM), *step.args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"readme_tour: {PROGRAM} {' '.join(step.args)} exited {done.returncode}: {done.stderr}")
    told = [line for line in done.stderr.splitlines() if line.strip() and not _SETUP.match(line)]
    out = done.stdout.rstrip("\n").splitlines()
    if step.lines is not None and len(out) > step.lines:
        kept = out[: step.lines]
        while kept and not kept[-1].strip():
            kept.pop()
        out = [*kept, MORE]
    return [f"$ {PROGRAM} {' '.join(shown(arg) for arg in step.args)}", *told, *out]


def run_tour() -> list[str]:
    """Each console block of the tour, as the commands print it now."""
    rows = dataset.load_rows()
    with FakeGitHub() as github, tempfile.TemporaryDirectory(prefix="prdigest-tour-") as home:
        dataset.populate(github, rows, repo=REPO)
        add_releases(github, REPO, until=None)
        env = environment(github.url, Path(home))
        return ["".join(f"{line}\n" for step in block for line in run_step(step, env)) for block in TOUR]


def rewritten(readme: str, blocks: Sequence[str]) -> str:
    """The README with its tour's console blocks replaced by `blocks`, the prose between kept."""
    head, heading, rest = readme.partition(TOUR_HEADING)
    if not heading:
        raise SystemExit(f"readme_tour: {README} has no {TOUR_HEADING!r} section")
    section, next_heading, tail = rest.partition("\n## ")
    found = _BLOCK.findall(section)
    if len(found) != len(blocks):
        raise SystemExit(f"readme_tour: the tour has {len(found)} console blocks, the script writes {len(blocks)}")
    pieces = iter(blocks)
    section = _BLOCK.sub(lambda match: f"```console\n{next(pieces)}```\n", section)
    return head + heading + section + next_heading + tail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only compare: exit 1 when the README differs")
    args = parser.parse_args(argv)
    try:
        blocks = run_tour()
    except dataset.DatasetMissing as exc:
        print(f"readme_tour: {exc}", file=sys.stderr)
        return 2
    readme = README.read_text(encoding="utf-8")
    updated = rewritten(readme, blocks)
    if args.check:
        if updated != readme:
            print("readme_tour: the README's tour differs from what the commands print; run it without --check")
            return 1
        return 0
    README.write_text(updated, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
