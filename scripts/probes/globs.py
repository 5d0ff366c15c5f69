"""The worst globs the entry checks let through, saved in a real `prdigest serve --http`: a
channel's Paths and Authors to leave out (the settings form) and a `/pr watch`; then the
channel's scheduled digest and the watcher's DM (at the scheduler's ticks) run their matchers while
/healthz and signed acks are timed from outside.

    PYTHONPATH=. .venv/bin/python scripts/probes/globs.py [--seconds 150] [--dataset FILE]

Prints the longest /healthz and the longest signed ack, and whether the digest and the DM came.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import requests

from bench.env import CHANNEL, REPO, SECRET, Latencies, World, world
from bot.render.slack.subscriptions import SETTINGS_CALLBACK
from scripts.probes import served

DATASET = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "vllm-prs.jsonl"
USER = "U0PROBE001"
# Written out, not imported, so that the probe runs against a checkout from before the checks too.
WILDCARDS = 16
WORST_FILTER = "*?" * (WILDCARDS // 2) + "#"
WORST_WATCH = "**?" * (WILDCARDS // 3) + "*#"
TIMEOUT = 10.0  # seconds: a request not answered by then is counted as never answered


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=150.0, help="how long to time acks (past post_at's tick)")
    parser.add_argument("--prs", type=int, default=60)
    parser.add_argument("--dataset", type=Path, default=DATASET, help="the shared data set (real vLLM paths)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="prdigest-probe-") as tmp:
        workdir = Path(tmp)
        latencies = Latencies(model=0.05, github=0.002, slack=0.002)
        with world(args.prs, latencies, workdir, args.dataset) as probe_world:
            probe(probe_world, workdir, args.seconds)


def probe(probe_world: World, workdir: Path, seconds: float) -> None:
    # Due a minute or two from now: the settings are saved first, then the scheduler's digest of
    # the last 24 hours (every PR of the world) runs with them.
    soon = (datetime.now(UTC) + timedelta(minutes=1)).strftime("%H:%M")
    config = workdir / "probe.toml"
    config.write_text(
        f'[defaults]\ntimezone = "UTC"\npost_at = "{soon}"\n\n[slack]\nallow_channel_edits = true\n\n'
        f'[queue]\npoll_minutes = 0\n\n[[channels]]\nid = "{CHANNEL}"\nrepos = ["{REPO}"]\n',
        encoding="utf-8",
    )
    probe_world.slack.members = {CHANNEL: [USER]}
    serve = served.Served(probe_world.env | {"PRDIGEST_CONFIG": str(config)}, workdir)
    base = serve.base
    try:
        timer = Timer(base)
        timer.start()
        form = _settings(base, {"repos": REPO, "paths": f"{WORST_FILTER}, *", "exclude_authors": WORST_FILTER})
        watch = _command(base, f"watch {REPO} {WORST_WATCH}", probe_world.slack.new_response_url())
        _command(base, f"watch {REPO} vllm/**", probe_world.slack.new_response_url())  # so a DM is due
        print(f"form: {form.status_code} {form.text!r} · watch: {watch.text[:80]!r}")
        started = time.monotonic()
        posted = bool(served.within(lambda: probe_world.slack.messages(CHANNEL), seconds))
        print(f"digest lead posted: {posted} after {time.monotonic() - started:.1f} s")
        for lead in probe_world.slack.messages(CHANNEL)[:1]:
            print(f"lead: {str(lead.get('text'))[:120]!r}")
        time.sleep(max(0.0, seconds - (time.monotonic() - started)))  # past the next tick: the DM's matcher
        timer.stop()
        dms = [call for call in probe_world.slack.calls("chat.postMessage") if str(call.get("channel")) != CHANNEL]
        print(f"other messages posted (the watcher's DM): {len(dms)}")
        print(
            f"longest /healthz {max(timer.health) * 1000:.0f} ms · longest signed ack {max(timer.acks) * 1000:.0f} ms "
            f"({len(timer.health)} of each over {seconds:.0f} s; not answered within {TIMEOUT:.0f} s: "
            f"{timer.unanswered})"
        )
    finally:
        serve.stop(grace=0)  # a frozen server (before the fix) does not stop on SIGTERM


class Timer(threading.Thread):
    """GET /healthz and a signed `/pr help`, one after the other, until stopped."""

    def __init__(self, base: str) -> None:
        super().__init__(daemon=True)
        self.base = base
        self.health: list[float] = []
        self.acks: list[float] = []
        self.unanswered = 0
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.is_set():
            for times, ask in (
                (self.health, lambda: requests.get(f"{self.base}/healthz", timeout=TIMEOUT)),
                (self.acks, lambda: _command(self.base, "help", "http://127.0.0.1:9/unused")),
            ):
                started = time.monotonic()
                try:
                    ask()
                except requests.RequestException:
                    self.unanswered += 1
                times.append(time.monotonic() - started)
            self._done.wait(0.05)

    def stop(self) -> None:
        self._done.set()
        self.join()


def _command(base: str, text: str, response_url: str) -> requests.Response:
    return served.command(
        base, text, channel=CHANNEL, user=USER, response_url=response_url, secret=SECRET, timeout=TIMEOUT
    )


def _settings(base: str, fields: dict[str, str]) -> requests.Response:
    values = {name: {"value": {"type": "plain_text_input", "value": value}} for name, value in fields.items()}
    view = {
        "id": "V0PROBE001",
        "team_id": "T0TEST",
        "type": "modal",
        "callback_id": SETTINGS_CALLBACK,
        "private_metadata": json.dumps({"channel": CHANNEL}),
        "state": {"values": values},
        "hash": f"{time.time():.6f}",
    }
    payload: dict[str, Any] = {
        "type": "view_submission",
        "team": {"id": "T0TEST", "domain": "probe"},
        "user": {"id": USER, "team_id": "T0TEST"},
        "api_app_id": "A0PROBE",
        "trigger_id": served.trigger_id(),
        "view": view,
        "response_urls": [],
    }
    return served.interaction(base, payload, secret=SECRET, timeout=TIMEOUT)


if __name__ == "__main__":
    main()
