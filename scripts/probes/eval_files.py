"""`prdigest eval FILE` and `prdigest eval --answers FILE` on hostile files: what each prints, whether
a traceback appears, and the process's peak memory (`/usr/bin/time -v`, maximum resident set).

    PYTHONPATH=. .venv/bin/python scripts/probes/eval_files.py [--code DIR] [--mb 300]

The files: 100,000 nested `[`; /dev/zero; a file of `--mb` MB whose first line is bad; one line of
`--mb` MB; a FIFO nobody writes to; a directory; a valid line whose text holds U+2028 (accepted:
its PR is served by the loopback fake GitHub). Each command runs from `--code` (default: this
checkout; another checkout measures the code before a change) in a clean environment, for at
most 60 s (a run still going then is reported as blocked) and under a 2 GB address-space limit
(`--limit-mb`: the code before a change read /dev/zero until the machine's memory ran out). The
line every command starts with ("prdigest: config file …") is left out of the count.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from tempfile import TemporaryDirectory

from devkit.fakes.github import FakeGitHub

from scripts.probes.served import PRODUCT_ENV_PREFIXES, ROOT

REPO = "acme/widgets"
LABEL = {"ref": f"{REPO}#1", "verdict": "skim", "note": "one\u2028two"}
QUESTION = {"ref": f"{REPO}#1", "question": "what\u2028changed?", "must_say": ["scheduler"]}
TIMEOUT = 60.0


def _lines_of(path: Path, first: bytes, megabytes: int) -> None:
    line = b'{"ref": "acme/widgets#1", "verdict": "skim"}\n'
    chunk = line * 10_000
    with path.open("wb") as out:
        out.write(first)
        for _ in range(megabytes * 1024 * 1024 // len(chunk)):
            out.write(chunk)


def _one_line(path: Path, megabytes: int) -> None:
    with path.open("wb") as out:
        for _ in range(megabytes):
            out.write(b"x" * 1024 * 1024)
        out.write(b"\n")


def hostile(workdir: Path, megabytes: int) -> dict[str, tuple[str, str]]:
    """Each case: (the labels file, the answers file)."""
    workdir.mkdir()
    nested = workdir / "nested.jsonl"
    nested.write_text("[" * 100_000 + "\n", encoding="utf-8")
    bad_first = workdir / "bad-first.jsonl"
    _lines_of(bad_first, b"not json\n", megabytes)
    long_line = workdir / "long-line.jsonl"
    _one_line(long_line, megabytes)
    fifo = workdir / "fifo.jsonl"
    os.mkfifo(fifo)
    label, question = workdir / "u2028.jsonl", workdir / "u2028-answers.jsonl"
    label.write_text(json.dumps(LABEL, ensure_ascii=False) + "\n", encoding="utf-8")
    question.write_text(json.dumps(QUESTION, ensure_ascii=False) + "\n", encoding="utf-8")
    same: Callable[[Path], tuple[str, str]] = lambda path: (str(path), str(path))  # noqa: E731
    return {
        "100,000 nested [": same(nested),
        "/dev/zero": ("/dev/zero", "/dev/zero"),
        f"{megabytes} MB, first line bad": same(bad_first),
        f"one line of {megabytes} MB": same(long_line),
        "a FIFO": same(fifo),
        "a directory": same(workdir),
        "U+2028 in a valid line": (str(label), str(question)),
    }


def run(
    code: Path, env: dict[str, str], workdir: Path, args: list[str], limit_mb: int
) -> tuple[int | None, str, float]:
    """(exit code or None when blocked, what it printed, peak RSS in MB)."""
    timing = workdir / "time.txt"
    command = ["/usr/bin/time", "-v", "-o", str(timing), sys.executable, "-m", "bot.cli", "eval", *args]

    def limited() -> None:
        limit = limit_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    try:
        done = subprocess.run(
            command, env=env, cwd=code, capture_output=True, timeout=TIMEOUT, check=False, preexec_fn=limited
        )
    except subprocess.TimeoutExpired as expired:
        said = (expired.stdout or b"") + (expired.stderr or b"")
        return None, said.decode(errors="replace"), float("nan")
    found = re.search(r"Maximum resident set size \(kbytes\): (\d+)", timing.read_text(errors="replace"))
    rss = int(found.group(1)) / 1024 if found else float("nan")
    return done.returncode, (done.stdout + done.stderr).decode(errors="replace"), rss


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose bot/ runs")
    parser.add_argument("--mb", type=int, default=300, help="size of the big files, in MB")
    parser.add_argument("--limit-mb", type=int, default=2048, help="each run's address-space limit, in MB")
    args = parser.parse_args()
    with TemporaryDirectory() as temporary, FakeGitHub() as github:
        workdir = Path(temporary)
        github.add_pr(
            REPO,
            1,
            title="Make the scheduler faster",
            merged_at=datetime(2026, 11, 1, tzinfo=UTC),
            files=[{"path": "src/scheduler.py", "additions": 20, "deletions": 2}],
        )
        clean = {name: value for name, value in os.environ.items() if not name.startswith(PRODUCT_ENV_PREFIXES)}
        env = clean | {"GITHUB_API_URL": github.url, "GITHUB_TOKEN": "probe", "PYTHONPATH": str(args.code)}
        env["PRDIGEST_CACHE"] = "off"  # the store in memory: nothing kept in a developer's cache file
        print(f"code: {args.code}")
        print(f"{'file':<28} {'how':<10} {'exit':>5} {'lines':>5} {'traceback':>9} {'peak MB':>8}  last line")
        for name, (labels, answers) in hostile(workdir / "files", args.mb).items():
            for how, command in (("FILE", [labels]), ("--answers", ["--answers", answers])):
                code, said, rss = run(args.code, env, workdir, command, args.limit_mb)
                lines = [line for line in said.splitlines() if not line.startswith("prdigest: config file ")]
                last = (lines[-1] if lines else "")[:100]
                exit_code = "block" if code is None else str(code)
                traceback = "yes" if "Traceback" in said else "no"
                print(f"{name:<28} {how:<10} {exit_code:>5} {len(lines):>5} {traceback:>9} {rss:>8.1f}  {last}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
