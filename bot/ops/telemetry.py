"""What prdigest counts and times, said without any metrics library.

Services and adapters call `count`, `observe` and `gauge`; nothing happens until a process that
exports metrics (serve, worker) installs a sink (bot/ops/metrics.py, Prometheus). So policy code stays
free of vendors, the CLI pays nothing, and tests may install a sink of their own. The names are
the contract: bot/ops/metrics.py declares one series for each, with the labels given here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from typing import Protocol

# name → (kind, label names, help). Counters end in _total, as Prometheus names them.
SERIES: dict[str, tuple[str, tuple[str, ...], str]] = {
    "digests_posted_total": ("counter", (), "Digests posted to Slack (lead and thread complete)"),
    "messages_posted_total": ("counter", (), "Messages of digests posted to Slack"),
    "cards_total": ("counter", ("source", "mode"), "Cards made, by source (llm, heuristic) and output mode"),
    "model_calls_total": ("counter", ("kind",), "Requests to the model endpoint (card, answer)"),
    "model_tokens_total": ("counter", ("direction",), "Tokens the model endpoint reported (in, out)"),
    # A bounded label: the config file's public repositories by name, any other as "other"
    # (bot/ops/metric_labels.py, applied by the exporter).
    "model_tokens_by_repo_total": ("counter", ("repo",), "Tokens (in + out) spent on each repository's PRs"),
    "model_latency_seconds": ("histogram", ("kind",), "Seconds per request to the model endpoint"),
    "github_requests_total": ("counter", (), "Requests to GitHub's API"),
    "github_rate_limit_remaining": ("gauge", (), "Requests left in GitHub's rate limit, as last reported"),
    "slack_calls_total": ("counter", ("method",), "Calls to Slack's Web API"),
    "slack_ratelimited_total": ("counter", ("method",), "Calls Slack answered 429 (rate limited)"),
    "queue_depth": ("gauge", (), "Card jobs waiting in the shared queue (retries included)"),
    "queue_oldest_job_seconds": ("gauge", (), "Seconds the oldest waiting card job has waited"),
    "jobs_total": ("counter", ("outcome",), "Card jobs this process ran (done, failed, dropped)"),
    "ack_latency_seconds": ("histogram", ("kind",), "Seconds from a Slack request's arrival to its acknowledgement"),
    "questions_answered_total": ("counter", ("surface",), "Questions answered (thread, mention, command, dm)"),
    "answers_stopped_total": (
        "counter",
        ("surface",),
        "Answers the asker stopped before they ended (thread, mention, dm)",
    ),
}


class Sink(Protocol):
    def count(self, name: str, amount: float, labels: Mapping[str, str]) -> None: ...

    def observe(self, name: str, value: float, labels: Mapping[str, str]) -> None: ...

    def gauge(self, name: str, read: Callable[[], float]) -> None:
        """Read `name`'s value with `read()` at each scrape."""
        ...


_sink: Sink | None = None


def install(sink: Sink | None) -> None:
    """Send every later count and observation to `sink` (None: nowhere)."""
    global _sink  # noqa: PLW0603 - one sink per process, set at start
    _sink = sink


@contextlib.contextmanager
def installed(sink: Sink) -> Iterator[Sink]:
    """`sink` installed while inside, the one before it again after. A sink reads the parts of
    the process that installed it (a gauge reads its queue, a label asks its GitHub client), so
    it must not outlive them: a count after they closed would open a connection nobody closes."""
    before = _sink
    install(sink)
    try:
        yield sink
    finally:
        install(before)


def active() -> bool:
    """Whether a sink is installed (a process that exports metrics is serving)."""
    return _sink is not None


def count(name: str, amount: float = 1.0, **labels: str) -> None:
    if _sink is not None:
        _sink.count(name, amount, labels)


def observe(name: str, value: float, **labels: str) -> None:
    if _sink is not None:
        _sink.observe(name, value, labels)


def gauge(name: str, read: Callable[[], float]) -> None:
    if _sink is not None:
        _sink.gauge(name, read)
