"""This process's Prometheus series, fed by everything from the moment they are installed
(`serve --metrics-port`, `worker --metrics-port`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from bot.ops import telemetry
from bot.ops.metric_labels import RepoLabels
from bot.ops.metrics import PrometheusSink
from bot.wiring.process import Process


@contextlib.contextmanager
def metrics_installed(process: Process) -> Iterator[PrometheusSink]:
    """The sink, installed while inside: every count and gauge reaches it, until the process's
    parts it reads are closed."""
    # Only the file's public repositories keep their names (ops/metric_labels.py); the
    # visibility asks GitHub at the first count that needs it.
    named = (repo for channel in process.settings.config.channels for repo in channel.repos)
    repos = RepoLabels(named, process.visibility.is_private)
    sink = PrometheusSink(bounded={"repo": repos.label})
    with telemetry.installed(sink):
        if (queue := process.queue) is not None:
            telemetry.gauge("queue_depth", queue.depth)
            telemetry.gauge("queue_oldest_job_seconds", queue.oldest_age)
        # What GitHub's last response said (LookupError before any did): a scrape sends no request.
        telemetry.gauge("github_rate_limit_remaining", process.source.rate_limit_remaining)
        yield sink
