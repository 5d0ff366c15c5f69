"""`prdigest serve --socket`: the same app over Socket Mode, against a fake WebSocket endpoint."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.fakes.socket_mode import FakeSocketMode

from bot.http.server import serve_socket
from bot.settings import load_settings
from bot.wiring.process import build_process
from bot.wiring.slack import slack_app, wire_slack
from bot.wiring.timing import Timing
from tests.integration.conftest import REPO, day
from tests.integration.slack_harness import CONFIG, wait_for


def test_a_mention_over_socket_mode_is_acknowledged_and_answered(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    github.add_pr(
        REPO, 7, title="Faster decode", merged_at=day(2), files=[{"path": "vllm/d.py", "additions": 9, "deletions": 1}]
    )
    model.responder = lambda request: (
        {"headline": "Decode is faster", "verdict": "skim", "minutes": 2, "why": [], "caveats": [], "watch": []}
        if "response_format" in request
        else "It speeds up `vllm/d.py`."
    )
    config = tmp_path / "prdigest.toml"
    config.write_text(CONFIG, encoding="utf-8")
    with FakeSlack() as slack, FakeSocketMode() as socket_mode:
        slack.socket_url = socket_mode.url
        settings = load_settings(
            {
                "PRDIGEST_CONFIG": str(config),
                "GITHUB_API_URL": github.url,
                "OPENAI_API_KEY": "test",
                "OPENAI_BASE_URL": f"{model.url}/v1",
                "REDIS_URL": redis_url,
                "SLACK_BOT_TOKEN": slack.bot_token,
                "SLACK_APP_TOKEN": slack.app_token,
                "SLACK_API_URL": slack.api_url,
            }
        )
        services = build_process(settings, Timing(model_retries=0), warn=lambda message: None)
        stopped = threading.Event()
        parts = slack_app(wire_slack(services), socket_mode=True)
        server = threading.Thread(target=serve_socket, args=(parts, slack.app_token, stopped), daemon=True)
        server.start()
        try:
            assert socket_mode.connected.wait(10)
            ts = slack.add_message("C0RANDOM01", f"<@UBOT> what does {REPO}#7 change?")
            event = {
                "type": "app_mention",
                "channel": "C0RANDOM01",
                "user": "U1",
                "text": f"<@UBOT> {REPO}#7?",
                "ts": ts,
            }
            socket_mode.send_event(
                "env-1", {"type": "event_callback", "team_id": "T0TEST", "event_id": "Ev1", "event": event}
            )
            wait_for(
                lambda: (
                    {"envelope_id": "env-1"} in [{"envelope_id": ack.get("envelope_id")} for ack in socket_mode.acks]
                )
            )
            wait_for(lambda: any("speeds up" in json.dumps(m["blocks"]) for m in slack.thread("C0RANDOM01", ts)))
        finally:
            stopped.set()
            server.join(timeout=10)
            services.close()
        assert not server.is_alive()
