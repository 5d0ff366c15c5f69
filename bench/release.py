"""The benchmark's release row: a 500-PR release whose cards are all cached, posted to a channel.

What it costs GitHub (the release list and the compare's pages, nothing per PR), the model (no
call), and Slack's time: from the start to the last message against Slack's pacing bound (one
message a second in a channel, the fake enforcing it with 429s), the same ≤ 1.1 × the daily
thread's pacing row keeps. The PRs are the world's rows again under a repository of their own,
so the digest rows' cards and ledgers are untouched.
"""

from __future__ import annotations

import hashlib
import statistics
import time
from datetime import UTC, datetime, timedelta

import redis
from devkit.fakes import dataset

from bench.env import World
from bench.scenarios import Options, Row, spread
from bot.releases.posting import ReleaseAsked
from bot.settings import load_settings
from bot.wiring.process import build_process
from bot.wiring.slack import wire_slack
from bot.wiring.timing import Timing

RELEASE_REPO = "bench-org/releases"
RELEASE_PRS = 500
PACE_SECONDS = 1.0  # Slack: about one message a second per channel (chat.postMessage)


def _released(world: World, count: int) -> None:
    """`count` PRs on the branch between two full releases (and none outside them), the world's
    rows again as often as it takes, each with a merge commit of its own: the range is read from
    the compare's commits, so a SHA met twice would be one PR."""
    start = datetime.now(UTC) - timedelta(days=20)
    rows = [
        {
            **world.rows[index % len(world.rows)],
            "number": 100_000 + index,
            "commit": hashlib.sha1(f"{RELEASE_REPO}:{index}".encode()).hexdigest(),
            "merged_at": (start + timedelta(minutes=30 * index)).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        for index in range(count)
    ]
    dataset.populate(world.github, rows, repo=RELEASE_REPO)
    world.github.add_release(RELEASE_REPO, "v0.1.0", start - timedelta(hours=1))
    world.github.add_release(RELEASE_REPO, "v0.2.0", start + timedelta(minutes=30 * count))


def _forget_the_range(world: World) -> None:
    """The release list and range, not the cards: what a first post of a cached release asks."""
    client = redis.Redis.from_url(world.redis_url)
    for key in client.scan_iter(match="prdigest:v1:release*"):
        client.delete(key)
    client.close()


def release_row(world: World, options: Options) -> Row:
    count = RELEASE_PRS if options.prs >= 100 else max(options.prs, 12)  # --smoke: a dozen
    _released(world, count)
    settings = load_settings(world.env)
    services = build_process(settings, Timing(pace=PACE_SECONDS), warn=lambda message: None)
    try:
        tenant = wire_slack(services).tenants.home
        latency = world.model.latency
        world.model.latency = 0.01  # the cards are made once, beforehand: not what is measured
        releases, posting = tenant.releases.releases, tenant.releases.posting
        assert releases is not None and posting is not None
        releases.build(RELEASE_REPO, "v0.2.0")
        world.model.latency = latency
        world.slack.enforce_pacing = True
        walls: list[float] = []
        requests: list[int] = []
        compare: list[int] = []
        calls: list[int] = []
        messages = 0
        leads: list[str] = []
        for run in range(options.runs):
            _forget_the_range(world)
            world.reset_counts()
            channel = f"C0REL{run:05d}"
            started = time.monotonic()
            result = posting.run(ReleaseAsked(channel, RELEASE_REPO, "v0.2.0"))
            walls.append(time.monotonic() - started)
            assert result is not None
            messages = result.posted
            leads.extend(message["text"] for message in world.slack.messages(channel)[:1])
            kinds = world.github.counts_by_kind()
            # The channel may be shown a public repository: its visibility is asked once an hour.
            requests.append(len(world.github.requests) - kinds.get("repo", 0))
            compare.append(kinds.get("compare", 0))
            calls.append(world.model.calls)
    finally:
        world.slack.enforce_pacing = False
        services.close()
    bound = messages * PACE_SECONDS
    others = max(r - c for r, c in zip(requests, compare, strict=True)) - 1  # less the release list
    ok = max(calls) == 0 and others == 0 and statistics.median(walls) <= 1.1 * bound
    # The row measures the release its name says: each run's lead counts every PR of the range.
    said = f"{count} merged"
    wrong = [lead.partition(": ")[2].partition(" · ")[0] for lead in leads if said not in lead]
    error = "no lead posted" if not leads else f"the lead says {wrong[0]!r}, not {said!r}" if wrong else ""
    if max(calls) or others:
        error = f"{others} other GitHub requests, {max(calls)} model calls"
    return Row(
        f"a {count}-PR release, every card cached, posted",
        f"{max(compare)} compare pages + 1 release list · {max(calls)} model calls · "
        f"{spread(walls)} for {messages} messages",
        f"{messages} messages × {PACE_SECONDS:g} s = {bound:.0f} s",
        "compare pages only · 0 · ≤ 1.1 × bound",
        ok and not error,
        error,
    )
