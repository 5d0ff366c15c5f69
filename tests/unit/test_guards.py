"""Which response_urls the app follows, and which key makes a command or click handled once."""

from __future__ import annotations

from typing import Any

import pytest

from bot.slack.guards import ResponseUrlGuard, first_time, response_origins
from bot.store.backends.memory import MemoryKV
from bot.store.threads import ThreadStore
from bot.workspaces.deliveries import Deliveries

API = "http://127.0.0.1:5555/api/"  # a configured SLACK_API_URL, as tests set it
GUARD = ResponseUrlGuard(response_origins(API))


@pytest.mark.parametrize(
    "url",
    [
        "https://hooks.slack.com/commands/T0001/1234/abcdef",
        "https://hooks.slack.com/actions/T0001/1234/abcdef",
        "https://hooks.slack.com:443/commands/T0001/1234/abcdef",  # the default port, spelled out
        "https://HOOKS.Slack.com/commands/T0001/1234/abcdef",  # host names ignore case
        "http://127.0.0.1:5555/response/R0001",  # the configured API's exact origin
    ],
)
def test_slack_hooks_and_the_configured_api_origin_are_followed(url: str) -> None:
    assert GUARD.allows(url)


@pytest.mark.parametrize(
    "url",
    [
        "http://hooks.slack.com/commands/T0001/1234/abcdef",  # not https
        "https://hooks.slack.com:8443/commands/T0001/1234/abcdef",  # another port
        "https://hooks.slack.com./commands/x",
        "https://hooks.slack.com.evil.test/commands/x",
        "https://evil.test/hooks.slack.com/commands/x",
        "https://evil.test?https://hooks.slack.com/",
        "https://user@hooks.slack.com/commands/x",  # credentials: parsers disagree on these
        "https://hooks.slack.com:x@evil.test/",
        "https://hooks.slack.com\\@evil.test/",
        "https://hooks.slack.com/commands/x\n",
        " https://hooks.slack.com/commands/x",
        "https://hooks.slack.com:99999/x",
        "https://slack.com/api/",  # Slack's API host, but not the configured one here
        "http://127.0.0.1:5556/response/R0001",  # the configured host, another port
        "https://127.0.0.1:5555/response/R0001",  # the configured port, another scheme
        "http://localhost:5555/response/R0001",  # the same machine by another name
        "http://127.0.0.1:6379/",  # Redis
        "redis://127.0.0.1:6379/0",
        "file:///etc/passwd",
        "//hooks.slack.com/commands/x",
        "x",
        "",
        5,
        ["https://hooks.slack.com/commands/x"],
    ],
)
def test_any_other_response_url_is_refused(url: Any) -> None:
    assert not GUARD.allows(url)


def test_an_unparseable_api_url_leaves_slack_hooks_only() -> None:
    guard = ResponseUrlGuard(response_origins("not a url"))
    assert guard.allows("https://hooks.slack.com/commands/x")
    assert not guard.allows("http://127.0.0.1:5555/response/R0001")


def test_a_payload_is_handled_the_first_time_only() -> None:
    threads = Deliveries(ThreadStore(MemoryKV()))
    command = {"command": "/pr", "trigger_id": "13345224609.738474920.8088930838d88f008e0"}
    assert first_time(threads, command)
    assert not first_time(threads, command)
    assert first_time(threads, {**command, "trigger_id": "13345224609.738474920.0000000000000000000"})


def test_a_click_without_a_trigger_id_is_keyed_by_its_user_and_timestamp() -> None:
    threads = Deliveries(ThreadStore(MemoryKV()))
    click = {"type": "block_actions", "user": {"id": "U1"}, "actions": [{"action_ts": "1700000000.000100"}]}
    assert first_time(threads, click)
    assert not first_time(threads, click)
    assert first_time(threads, {**click, "user": {"id": "U2"}})


@pytest.mark.parametrize(
    "body",
    [
        {"command": "/pr"},
        {"command": "/pr", "trigger_id": ""},
        {"command": "/pr", "trigger_id": 5},
        {"command": "/pr", "trigger_id": "1." * 200},
        {"type": "block_actions", "actions": [{"action_ts": "1.0"}]},
        {"type": "block_actions", "user": "U1", "actions": "x"},
    ],
)
def test_a_payload_slack_would_not_send_is_never_acted_on(body: dict[str, Any]) -> None:
    threads = Deliveries(ThreadStore(MemoryKV()))
    assert not first_time(threads, body)
    assert not first_time(threads, body)
