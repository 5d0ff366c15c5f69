"""The `bot/` modules a `/pr owner/repo#N` passes through, from the signed request to the card
reaching the response_url: the figure issue 24 compares before and after a reshape.

    PYTHONPATH=. .venv/bin/python scripts/pr_call_path.py

The `/pr` flow of scripts/flow_paths.py (which also traces the scheduled digest and a thread
question, and counts each flow's climbs back to a higher layer): the real Bolt app served on
loopback (fake Slack, GitHub and model, a private redis-server), asked once to warm every cache
and import, then a second `/pr` for another PR traced with a profiler on every thread. Prints
the distinct `bot/` modules whose functions ran, in the order they were first entered. The
harness's own polling while it waits for the app to be idle is not counted (until flow_paths.py
it was: bot/slack/app.py and bot/jobs/scheduler.py, two modules more).
"""

from __future__ import annotations

from scripts.flow_paths import PR_FLOW, PR_TRACED, trace_flows
from tests.integration.conftest import REPO


def main() -> None:
    trace = trace_flows([PR_FLOW])[PR_FLOW]
    print(f"{len(trace.modules)} bot/ modules on the path of /pr {REPO}#{PR_TRACED}:")
    for module in trace.modules:
        print(f"  {module}")


if __name__ == "__main__":
    main()
