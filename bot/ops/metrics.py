"""Prometheus series for bot/ops/telemetry.py's names, and GET /metrics.

One registry per process (not prometheus_client's global one, so tests can make several). A
gauge is read at scrape time; one whose source fails (Redis away) is left out of that scrape
rather than failing it, so /metrics always answers. A label whose values come from outside the
code (`repo`) passes through the rule the wiring gives for it (ops/metric_labels.py)
before it becomes a series, so what is scraped stays a bounded set. GET /metrics is served on a
port of its own (`serve --metrics-port`, `worker --metrics-port`: http/httpd.py's
`metrics_served`), never on the Slack one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from bot.ops.telemetry import SERIES

log = logging.getLogger(__name__)

PREFIX = "prdigest_"
# Model calls take seconds; acks take milliseconds.
_BUCKETS = {
    "model_latency_seconds": (0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300),
    "ack_latency_seconds": (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 3, 5),
}


class _Gauges(Collector):
    def __init__(self) -> None:
        self.readers: dict[str, Callable[[], float]] = {}

    def collect(self) -> Iterable[GaugeMetricFamily]:
        for name, read in list(self.readers.items()):
            try:
                value = float(read())
            except Exception as exc:  # a gauge's source is away: left out of this scrape
                log.debug("gauge %s not read: %s", name, exc)
                continue
            yield GaugeMetricFamily(PREFIX + name, SERIES[name][2], value=value)


class PrometheusSink:
    def __init__(self, bounded: Mapping[str, Callable[[str], str]] | None = None) -> None:
        """`bounded`: for a label name, the rule that turns a value into the one exported."""
        self._bounded = dict(bounded or {})
        self.registry = CollectorRegistry()
        self._series: dict[str, Any] = {}
        for name, (kind, labels, description) in SERIES.items():
            if kind == "counter":
                # prometheus_client adds _total itself.
                self._series[name] = Counter(
                    PREFIX + name.removesuffix("_total"), description, labels, registry=self.registry
                )
            elif kind == "histogram":
                self._series[name] = Histogram(
                    PREFIX + name, description, labels, registry=self.registry, buckets=_BUCKETS[name]
                )
        self._gauges = _Gauges()
        self.registry.register(self._gauges)

    def count(self, name: str, amount: float, labels: Mapping[str, str]) -> None:
        series = self._series[name]
        (series.labels(**self._exported(labels)) if labels else series).inc(amount)

    def observe(self, name: str, value: float, labels: Mapping[str, str]) -> None:
        series = self._series[name]
        (series.labels(**self._exported(labels)) if labels else series).observe(value)

    def _exported(self, labels: Mapping[str, str]) -> dict[str, str]:
        return {key: rule(value) if (rule := self._bounded.get(key)) else value for key, value in labels.items()}

    def gauge(self, name: str, read: Callable[[], float]) -> None:
        if SERIES[name][0] != "gauge":
            raise KeyError(name)
        self._gauges.readers[name] = read

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


CONTENT_TYPE = CONTENT_TYPE_LATEST


def metrics_app(exposition: Callable[[], bytes]) -> Callable[[dict[str, Any], Callable[..., Any]], list[bytes]]:
    """The WSGI app of a metrics port: GET /metrics, /healthz, and 404 for anything else."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        if environ.get("PATH_INFO") == "/healthz":
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"ok\n"]
        if environ.get("PATH_INFO") != "/metrics":
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"not found\n"]
        body = exposition()
        start_response("200 OK", [("Content-Type", CONTENT_TYPE), ("Content-Length", str(len(body)))])
        return [body]

    return app
