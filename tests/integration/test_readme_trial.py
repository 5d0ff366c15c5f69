"""The README's "Try it against the bundled fakes" block, run exactly as written, in bash, from
the repository: the fakes start, `make run` prints the digest of their 52-PR day, the fakes stop
and say what they were asked."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.shared_data import shared_rows

pytestmark = [pytest.mark.filterwarnings("error"), pytest.mark.slow]

REPO_ROOT = Path(__file__).resolve().parents[2]
# Where a failed export would send prdigest: a closed port on loopback, never the real services.
NOWHERE = "http://127.0.0.1:9"


def readme_block() -> str:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Try it against the bundled fakes", 1)[1]
    return section.split("```sh\n", 1)[1].split("```\n", 1)[0]


def test_the_readme_block_runs_the_main_job_against_the_fakes(tmp_path: Path) -> None:
    shared_rows()  # skips (fails on CI) without the data set the fakes serve
    if subprocess.run(["make", "-q", "setup"], cwd=REPO_ROOT, capture_output=True, check=False).returncode:
        pytest.skip("`make setup` would install packages: the block is for a set-up checkout")
    env = os.environ | {
        "GITHUB_API_URL": NOWHERE,
        "OPENAI_BASE_URL": f"{NOWHERE}/v1",
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
        "TMPDIR": str(tmp_path),
    }
    env.pop("PRDIGEST_CONFIG", None)  # the repository's example config, as for a newcomer
    # A session of its own, so a run that hangs is stopped with the fakes it started.
    with subprocess.Popen(
        ["bash", "-c", readme_block()],
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            out, err = process.communicate(timeout=120)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
    done = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "52 of them merged on 2026-08-05, moved into the 24 hours that end now" in out
    assert "\n52 merged · " in out
    assert "# model calls: 52" in out
    assert "Traceback" not in done.stderr
