"""How a finished `prdigest` process ends (bot/ops/stopping.py leave): at once when nothing of it
still runs, its buffered output delivered; as Python exits when a thread it waits for is at work."""

from __future__ import annotations

import subprocess
import sys

LEAVE_AT_ONCE = """
import sys
from bot.ops.stopping import leave
sys.stdout.write("x" * 100_000)  # buffered, not yet flushed: a digest's JSON
leave(4)
"""

LEAVE_WHILE_A_THREAD_WORKS = """
import threading, time
from bot.ops.stopping import leave
def work():
    time.sleep(0.3)
    print("the thread finished", flush=True)
threading.Thread(target=work).start()
leave(3)
"""


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)


def test_a_finished_process_ends_with_its_code_and_its_buffered_output() -> None:
    done = _run(LEAVE_AT_ONCE)
    assert (done.returncode, len(done.stdout), done.stderr) == (4, 100_000, "")


def test_a_thread_still_at_work_is_waited_for_as_python_waits() -> None:
    done = _run(LEAVE_WHILE_A_THREAD_WORKS)
    assert (done.returncode, done.stdout) == (3, "the thread finished\n")
