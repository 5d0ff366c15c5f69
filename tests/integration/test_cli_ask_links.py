"""`prdigest ask` with a hostile answer: the link forms of issue 23 (item 3) lose their foreign
address in the terminal as in Slack (a terminal makes a link of `http:evil.example` too)."""

from __future__ import annotations

import json

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.cli.main import main
from tests.integration.test_cli_ask import QUESTION, REF, answering, env  # noqa: F401 (env is a fixture)

FIRST = "It moves the jobs to the new runner. "
HOSTILE = [
    FIRST + "[Share in channel](http:evil.example/share) to tell the team.",
    FIRST + "Log in at <http:evil.example/login|github.com/acme/widgets> first.",
    FIRST + "See [docs][1] for more.\n\n[1]: http:evil.example/ref",
    FIRST + "Read [x](\\\\evil.example/y) before upgrading.",
]


@pytest.mark.parametrize("hostile", HOSTILE)
def test_the_terminal_answer_keeps_the_words_not_the_foreign_link(
    env: FakeGitHub,  # noqa: F811
    model: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    hostile: str,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{model.url}/v1")
    model.responder = answering(hostile)
    assert main(["ask", REF, QUESTION, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["answer"].startswith(FIRST.strip())
    assert "evil" not in data["answer"]
