"""Runs `prdigest` in this process and reports its peak RSS on stderr's last line, so the
benchmark measures each run alone (RUSAGE_CHILDREN would mix runs together)."""

from __future__ import annotations

import resource
import sys

from bot.cli.main import main
from bot.ops.stopping import leave

if __name__ == "__main__":
    code = main(sys.argv[1:])
    peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"PEAK_RSS_KB={peak_kb}", file=sys.stderr)
    # Ended as the `prdigest` command ends (bot/cli/main.py run), so its time is what a person waits.
    leave(code)
