"""What is counted where (bot/ops/telemetry.py's names), with a recording sink; and log lines as JSON."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor

import httpx2
import openai
import pytest
from devkit.scripted import ScriptedModel

from bot.cards.writer import ModelCardWriter
from bot.core.deadline import Budget
from bot.core.pacing import Pacing
from bot.core.prompting.drafts import CardDraft
from bot.errors import ModeRefused
from bot.http.server import delivery_id, request_kind
from bot.llm.openai_model import OpenAIModel
from bot.models import Message
from bot.ops import telemetry
from bot.ops.logs import JsonFormatter, PlainFormatter, carried, current_request_id, request_id
from bot.ops.metrics import PrometheusSink
from tests.unit.builders import make_file, make_snapshot
from tests.unit.test_openai_model import completion, deadline, error


class Recorded:
    def __init__(self) -> None:
        self.counts: list[tuple[str, float, dict[str, str]]] = []
        self.observed: list[tuple[str, float, dict[str, str]]] = []

    def count(self, name: str, amount: float, labels: Mapping[str, str]) -> None:
        self.counts.append((name, amount, dict(labels)))

    def observe(self, name: str, value: float, labels: Mapping[str, str]) -> None:
        self.observed.append((name, value, dict(labels)))

    def gauge(self, name: str, read: Callable[[], float]) -> None:
        pass

    def total(self, name: str, **labels: str) -> float:
        return sum(amount for named, amount, got in self.counts if named == name and got == labels)


@pytest.fixture
def recorded() -> Iterator[Recorded]:
    with telemetry.installed(Recorded()) as sink:
        assert isinstance(sink, Recorded)
        yield sink


def test_every_request_to_the_model_is_counted_and_timed_retries_included(recorded: Recorded) -> None:
    answers = iter([error(503), completion("It is faster.")])
    http = httpx2.Client(transport=httpx2.MockTransport(lambda request: next(answers)))
    client = openai.OpenAI(api_key="k", base_url="http://model.test/v1", http_client=http, max_retries=0)
    model = OpenAIModel(client, "test-model")
    assert model.complete([Message("user", "What changed?")], deadline(retries=1)) == "It is faster."
    assert recorded.total("model_calls_total", kind="answer") == 2
    assert [labels for name, _, labels in recorded.observed if name == "model_latency_seconds"] == [
        {"kind": "answer"}
    ] * 2


def test_a_card_is_counted_once_with_the_mode_the_endpoint_took(recorded: Recorded) -> None:
    good = CardDraft(headline="Decode is faster", verdict="skim", minutes=3, why=[], caveats=[], watch=[])
    model = ScriptedModel(ModeRefused("json_schema", 400, None, "response_format is not supported"), good)
    writer = ModelCardWriter(
        model, token_budget=8000, budget=Budget(100, 0), pacing=Pacing(model.clock, model.clock.sleep)
    )
    writer.card(make_snapshot([make_file("vllm/decode.py", 3, 1)], title="Faster decode"), "en")
    assert [call.mode for call in model.calls] == ["json_schema", "tools"]
    assert recorded.counts == [("cards_total", 1.0, {"source": "llm", "mode": "tools"})]


def test_prometheus_sink_declares_every_series_with_its_labels() -> None:
    sink = PrometheusSink()
    for name, (kind, labels, _) in telemetry.SERIES.items():
        values = {label: "x" for label in labels}
        if kind == "counter":
            sink.count(name, 1, values)
        elif kind == "histogram":
            sink.observe(name, 0.5, values)
    text = sink.exposition().decode()
    assert 'prdigest_cards_total{mode="x",source="x"} 1.0' in text
    assert 'prdigest_ack_latency_seconds_count{kind="x"} 1.0' in text


# -- Slack deliveries: their kind and their request id ---------------------------------------------


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ({"type": "event_callback", "event": {"type": "message"}, "event_id": "Ev1"}, "event"),
        ({"type": "url_verification", "challenge": "c"}, "event"),
        ({"command": "/pr", "text": "help"}, "command"),
        ({"type": "block_actions", "actions": []}, "action"),
        ({"type": "view_submission", "view": {}}, "action"),
        ({"ssl_check": "1"}, None),
    ],
)
def test_a_delivery_is_timed_under_its_kind(body: dict[str, object], kind: str | None) -> None:
    assert request_kind(body) == kind


def test_a_delivery_id_is_the_event_id_else_a_digest_of_the_signature() -> None:
    assert delivery_id({"event_id": "Ev0123"}, {}) == "Ev0123"
    headers = {"x-slack-request-timestamp": "1700000000", "x-slack-signature": "v0=abcdef"}
    one = delivery_id({"command": "/pr"}, headers)
    assert one == delivery_id({}, headers) and one.startswith("slack-") and "abcdef" not in one
    assert one != delivery_id({}, {**headers, "x-slack-signature": "v0=012345"})


# -- log lines ---------------------------------------------------------------------------------------


def record(message: str, *args: object, exc_info: bool = False) -> logging.LogRecord:
    info = sys.exc_info() if exc_info else None
    return logging.LogRecord("bot.test", logging.WARNING, __file__, 1, message, args, info)


def test_a_json_line_has_time_level_logger_message_and_request_id() -> None:
    with request_id("C0DIGEST01:2026-08-05"):
        line = JsonFormatter().format(record("digest of %s posted", "C0DIGEST01"))
    entry = json.loads(line)
    assert entry.keys() == {"time", "level", "logger", "message", "request_id"}
    assert entry["level"] == "WARNING" and entry["logger"] == "bot.test"
    assert entry["message"] == "digest of C0DIGEST01 posted"
    assert entry["request_id"] == "C0DIGEST01:2026-08-05"
    assert entry["time"].endswith("+00:00")
    assert json.loads(JsonFormatter().format(record("outside")))["request_id"] is None


def _fail() -> None:
    raise ValueError("boom\nsecond line")


def test_a_json_line_carries_the_traceback_on_one_line() -> None:
    try:
        _fail()
    except ValueError:
        line = JsonFormatter().format(record("failed", exc_info=True))
    assert "\n" not in line
    assert "ValueError: boom" in json.loads(line)["exc_info"]


def test_tokens_never_reach_a_log_line_in_either_format() -> None:
    message = (
        "calling with xoxb-1234-5678-abcdef and Authorization: Bearer sk-proj-abcdefgh012345 at redis://:pw@h:6379"
    )
    for formatter in (JsonFormatter(), PlainFormatter()):
        line = formatter.format(record(message))
        assert "xoxb-1234" not in line and "sk-proj" not in line and ":pw@" not in line
    assert PlainFormatter().format(record("plain as %s", "ever")) == "prdigest: plain as ever"


def test_work_handed_to_a_pool_keeps_the_request_id() -> None:
    with ThreadPoolExecutor(max_workers=2) as pool, request_id("Ev42"):
        carried_id = pool.submit(carried(current_request_id)).result()
        bare_id = pool.submit(current_request_id).result()
    assert (carried_id, bare_id) == ("Ev42", None)


def test_a_sink_installed_for_a_while_gives_way_to_the_one_before() -> None:
    outer, inner = Recorded(), Recorded()
    with telemetry.installed(outer):
        with telemetry.installed(inner):
            telemetry.count("jobs_total", outcome="done")
        telemetry.count("jobs_total", outcome="failed")
    telemetry.count("jobs_total", outcome="dropped")  # no sink: counted nowhere
    assert [labels for _, _, labels in inner.counts] == [{"outcome": "done"}]
    assert [labels for _, _, labels in outer.counts] == [{"outcome": "failed"}]
    assert not telemetry.active()
