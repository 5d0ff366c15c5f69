"""What Linux says about a running process, for the memory figures of the benchmark, the soak
and the scripts."""

from __future__ import annotations

import math
from pathlib import Path


def rss_mb(pid: int) -> float:
    """The process's resident set size in MiB, from /proc/PID/status. NaN when it has none (a
    zombie reports no VmRSS), so a table shows `nan` for that figure instead of ending the run."""
    for line in Path(f"/proc/{pid}/status").read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024  # reported in kB
    return math.nan
