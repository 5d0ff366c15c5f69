"""The 1,000-repository day's figures (issue 36): what one run on one Redis mode measured (`Day`),
its rows, and the 10,000-repository day on paper from the measured unit costs.

Only arithmetic and words: bench/scale.py measures.
"""

from __future__ import annotations

import math
import os
import statistics
from dataclasses import dataclass, field

from bench.scale_world import PRS_PER_REPO, REPOS_PER_CHANNEL, RedisMode
from bench.scenarios import REQUESTS_PER_PR, Row
from bot.jobs.scheduler import PARALLEL_CHANNELS

PAPER_REPOS = 10_000
# GitHub's primary rate limit per token or App installation, per hour ("Rate limits for the REST API").
GITHUB_HOURLY = 5_000
SLACK_PACE = 1.0  # seconds between two posts in a channel (bot/digests: Slack's ~1 a second)
# Days each family of keys is kept (docs/operations.md, "Redis keys"); any other: one day.
FAMILY_DAYS = {
    "snapshot": 30,
    "card": 30,
    "revision": 90,
    "digest": 30,
    "shown": 31,
    "watchpoints": 31,
    "delivery": 3,
    "run": 30,
}
GITHUB_TIMEOUT_MS = 10_000  # GitHub gives up on a delivery not answered within 10 s
SLACK_TIMEOUT_MS = 3_000


@dataclass
class Day:
    mode: RedisMode
    prs: int
    channels: int
    nodes: int  # Redis nodes holding the store
    workers: int
    threads: int
    # The cards: from the first delivery sent to the last acknowledged, and to the last card made.
    delivering: float = 0.0
    carding: float = 0.0
    cards: int = 0  # model calls
    second_asks: int = 0  # of them, a card asked again (it named what the PR does not)
    waited: int = 0  # of them, those that waited for a slot
    webhook_acks: list[float] = field(default_factory=list)
    webhook_failures: int = 0
    github_cards: int = 0
    github_kinds_cards: dict[str, int] = field(default_factory=dict)
    # CPU seconds while the cards were made: the workers, serve, Redis, the fakes' process.
    cpu_cards: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0)
    serve_rss_cards: float = math.nan
    bytes_cards: int = 0
    families_cards: dict[str, tuple[int, float]] = field(default_factory=dict)
    # The digests: seconds from post_at to the first and the last message.
    to_first: float = 0.0
    to_last: float = 0.0
    messages: int = 0
    shown: int = 0  # PRs the channels' digests showed, added up
    digest_calls: int = 0
    slash_acks: list[float] = field(default_factory=list)
    slash_failures: int = 0
    github_digests: int = 0
    pages_digests: int = 0
    github_kinds_digests: dict[str, int] = field(default_factory=dict)
    serve_rss_digests: float = math.nan
    bytes_day: int = 0
    families_day: dict[str, tuple[int, float]] = field(default_factory=dict)
    worker_rss: list[float] = field(default_factory=list)
    carded_late: list[str] = field(default_factory=list)  # PRs the digests asked the model for
    leases_lost: int = 0  # renewals the workers reported failed
    jobs_failed: int = 0  # card jobs that raised (and were retried)

    @property
    def repos(self) -> int:
        return self.prs // PRS_PER_REPO


def rows_of(days: list[Day], slots: int, latency: float) -> tuple[list[Row], list[str]]:
    rows = [row for day in days for row in _rows(day, slots, latency)]
    notes = [line for day in days for line in _cpu_note(day)]
    return rows, notes + (_paper(days[-1], slots, latency) if days else [])


def _model_bound(cards: int, slots: int, latency: float) -> float:
    return math.ceil(cards / slots) * latency


def _rounds(channels: int) -> int:
    """A serve's scheduler posts PARALLEL_CHANNELS channels at a time: the rounds to post them all."""
    return math.ceil(channels / PARALLEL_CHANNELS)


def _digest_bound(day: Day) -> float:
    """Slack's pace, one message a second in a channel, over the rounds of channels."""
    return _rounds(day.channels) * day.messages / day.channels * SLACK_PACE


def _rows(day: Day, slots: int, latency: float) -> list[Row]:
    where = f"{day.mode} Redis" if day.mode == "single" else f"{day.nodes}-master cluster, queue apart"
    bound = _model_bound(day.prs, slots, latency)
    once = day.cards - day.second_asks == day.prs
    digest_bound = _digest_bound(day)
    per_pr_digests = (day.github_digests - day.pages_digests) / day.prs
    return [
        Row(
            f"{day.repos:,} repos × {PRS_PER_REPO} PRs: cards from {day.prs:,} merge webhooks, "
            f"{day.workers} workers × {day.threads} threads ({where})",
            f"{day.carding:.0f} s ({day.prs / day.carding:.1f} cards/s) · {day.cards:,} model calls "
            f"({day.second_asks} cards asked again), {day.waited:,} waited for a slot",
            f"⌈{day.prs:,}/{slots}⌉ × {latency:g} s = {bound:.0f} s",
            "≤ 1.2 × bound, each card made once",
            day.carding <= 1.2 * bound and once,
            "" if once else f"{day.cards - day.second_asks} cards asked for {day.prs} PRs",
        ),
        _acks_row(
            f"webhook acks while the cards are made, {day.prs:,} deliveries 8 at a time "
            f"({day.prs / day.delivering:.0f}/s) ({where})",
            day.webhook_acks,
            day.webhook_failures,
            GITHUB_TIMEOUT_MS,
            "GitHub's limit: 10,000 ms",
        ),
        Row(
            f"{day.channels} channels' digests at one post_at, {REPOS_PER_CHANNEL} repos each ({where})",
            f"post_at → last message {day.to_last:.0f} s (first {day.to_first:.1f} s) · {day.messages:,} messages · "
            f"{day.shown:,} PRs shown · {day.digest_calls} model calls",
            f"⌈{day.channels}/{PARALLEL_CHANNELS}⌉ rounds × {day.messages / day.channels:.0f} messages × "
            f"{SLACK_PACE:g} s = {digest_bound:.0f} s",
            "≤ 1.2 × bound, every PR shown, 0 model calls",
            day.to_last <= 1.2 * digest_bound and day.shown == day.prs and day.digest_calls == 0,
            "" if day.shown == day.prs else f"the digests showed {day.shown} of {day.prs} PRs",
        ),
        _acks_row(
            f"/pr acks while the digests post, one at a time ({where})",
            day.slash_acks,
            day.slash_failures,
            SLACK_TIMEOUT_MS,
            "Slack's limit: 3,000 ms",
        ),
        Row(
            f"GitHub requests per PR, the day ({where})",
            f"{(day.github_cards + day.github_digests - day.pages_digests) / day.prs:.2f} per PR "
            f"(cards {day.github_cards / day.prs:.2f}, digests {per_pr_digests:.2f}) "
            f"+ {day.pages_digests:,} list requests",
            "1 (files)",
            f"≤ {REQUESTS_PER_PR:g} + list pages",
            (day.github_cards + day.github_digests - day.pages_digests) / day.prs <= REQUESTS_PER_PR,
        ),
        Row(
            f"Redis bytes per PR ({where})",
            f"{day.bytes_cards / day.prs:,.0f} B after the cards, {day.bytes_day / day.prs:,.0f} B after the digests "
            f"({_family_line(day.families_day, day.prs)})",
            "used_memory, every node added",
            "—",
            True,
            judged=False,
        ),
        Row(
            f"peak RSS per process ({where})",
            f"serve {day.serve_rss_cards:.0f} MB carding, {day.serve_rss_digests:.0f} MB posting · workers "
            f"{min(day.worker_rss):.0f}–{max(day.worker_rss):.0f} MB",
            "VmHWM",
            "≤ 250 MB a process",
            max([day.serve_rss_cards, day.serve_rss_digests, *day.worker_rss]) <= 250,
        ),
    ]


def _acks_row(scenario: str, acks: list[float], failures: int, limit_ms: float, bound: str) -> Row:
    if not acks:
        return Row(scenario, "no request answered", bound, "—", False, "nothing was sent")
    ordered = sorted(acks)
    p99 = ordered[min(len(ordered) - 1, math.ceil(len(ordered) * 0.99) - 1)]
    worst = ordered[-1]
    return Row(
        scenario,
        f"p50 {statistics.median(ordered):.0f} ms · p99 {p99:.0f} ms · max {worst:.0f} ms · "
        f"{len(ordered):,} requests · {failures} failures",
        bound,
        f"p99 ≤ 250 ms, max < {limit_ms:,.0f} ms, 0 failures",
        p99 <= 250 and worst < limit_ms and failures == 0,
        f"{failures} requests not acknowledged" if failures else "",
    )


def _family_line(sizes: dict[str, tuple[int, float]], prs: int) -> str:
    largest = sorted(sizes.items(), key=lambda item: -item[1][1])[:4]
    return ", ".join(f"{family} {total / prs:,.0f} B" for family, (_, total) in largest)


def _cpu_note(day: Day) -> list[str]:
    workers, serve, redis, fakes = day.cpu_cards
    spent = workers + serve + redis + fakes
    cards, digests = _kinds(day.github_kinds_cards), _kinds(day.github_kinds_digests)
    late = ", ".join(day.carded_late[:5]) or "none"
    return [
        f"{day.mode}: GitHub's requests by kind, the cards: {cards}; the digests: {digests}",
        f"{day.mode}: the workers reported {day.leases_lost} leases lost while held and {day.jobs_failed} jobs "
        f"that raised (retried); cards the digests asked the model for: {late}",
        f"{day.mode}: while the cards were made ({day.carding:.0f} s), CPU seconds: workers {workers:.0f} "
        f"({workers / day.prs * 1000:.1f} ms a card), serve {serve:.0f} ({serve / day.prs * 1000:.1f} ms a delivery), "
        f"Redis {redis:.0f}, the fakes {fakes:.0f}: {spent / day.carding:.2f} of the {os.cpu_count()} cores "
        "busy on average",
    ]


def _kinds(counts: dict[str, int]) -> str:
    return ", ".join(f"{kind} {count:,}" for kind, count in sorted(counts.items(), key=lambda item: -item[1])) or "none"


def _paper(day: Day, slots: int, latency: float) -> list[str]:
    """The 10,000-repository day from this day's unit costs: each grows with the PRs or the channels."""
    scale = PAPER_REPOS / day.repos
    prs, channels = PAPER_REPOS * PRS_PER_REPO, math.ceil(PAPER_REPOS / REPOS_PER_CHANNEL)
    per_card = day.cpu_cards[0] / day.prs
    model_rate = slots / latency
    requests = (day.github_cards + day.github_digests) * scale
    month = sum(total / day.prs * FAMILY_DAYS.get(family, 1) for family, (_, total) in day.families_day.items())
    posting = day.to_last / _rounds(day.channels) * _rounds(channels)
    return [
        f"{PAPER_REPOS:,} repositories on paper (from the {day.mode} run's unit costs): "
        f"{prs:,} PRs, {channels:,} channels",
        f"- model: ⌈{prs:,}/{slots}⌉ × {latency:g} s = {_model_bound(prs, slots, latency) / 60:.0f} min with one "
        f"server of {slots} slots ({model_rate:.0f} cards/s)",
        f"- workers: {per_card * 1000:.0f} ms of CPU a card, {per_card * prs / 3600:.1f} core-hours a day; "
        f"{math.ceil(per_card * model_rate)} cores keep up with the model's {model_rate:.0f} cards/s",
        f"- GitHub: {requests:,.0f} requests a day ({requests / prs:.2f} per PR, list pages included): "
        f"{requests / GITHUB_HOURLY:.0f} hours of one token's {GITHUB_HOURLY:,} an hour, "
        f"so at least {math.ceil(requests / GITHUB_HOURLY / 24)} rate limits (App installations) over the day",
        f"- Redis: {day.bytes_day / day.prs * prs / 2**30:.2f} GiB for the day's keys; "
        f"{month * prs / 2**30:.1f} GiB held once every family has reached its TTL (snapshots and cards 30 days)",
        f"- digests: one serve posts {PARALLEL_CHANNELS} channels at a time: {posting / 60:.0f} min from post_at "
        f"to the last of {channels:,} channels, {math.ceil(posting / 900)} serve replicas to post them all "
        "within 15 minutes",
    ]
