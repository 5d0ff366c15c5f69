"""The prdigest command in-process, as a user runs it, against the fakes on loopback."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI, SilentServer
from devkit.fakes.slack import FakeSlack
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.cli import waiting
from bot.cli.main import main
from bot.wiring.store import MEMORY_STORE_NOTE
from tests.integration.conftest import REPO, day, told

CONTRACT_ITEM_KEYS = {"repo", "number", "url", "title", "author", "merged_at", "card"}
CONTRACT_CARD_KEYS = {"headline", "verdict", "minutes", "why", "caveats", "watch", "source", "coverage"}


@pytest.fixture
def env(github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> FakeGitHub:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    for number, title in (
        (101, "[CI] Bump the runner image"),
        (102, "[Perf] Fuse the decode kernels for 1.6us per layer"),
    ):
        github.add_pr(
            REPO,
            number,
            title=title,
            merged_at=day(number - 100),
            files=[
                {
                    "path": ".github/workflows/ci.yml" if number == 101 else "vllm/kernels/decode.py",
                    "additions": 120 * (number - 100),
                    "deletions": 4,
                }
            ],
        )
    return github


def test_digest_json_follows_the_contract(env: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["digest", REPO, "--date", "2026-08-05", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert data["repos"] == [REPO]
    assert data["window"] == {"start": "2026-08-05T00:00:00Z", "end": "2026-08-06T00:00:00Z"}
    assert data["total_merged"] == 2 and data["shown"] == 2
    for item in data["items"]:
        assert item.keys() >= CONTRACT_ITEM_KEYS
        assert item["card"].keys() >= CONTRACT_CARD_KEYS
        assert {"files_total", "files_read", "skipped", "files_unlisted"} <= item["card"]["coverage"].keys()
        assert item["url"] == f"https://github.com/{REPO}/pull/{item['number']}"
    assert err.count(MEMORY_STORE_NOTE) == 1


def test_digest_text_is_readable(env: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["digest", REPO, "--date", "2026-08-05"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{REPO} · 2026-08-05 (UTC)\n2 merged · ")
    assert "1.6us" in out
    assert f"https://github.com/{REPO}/pull/102" in out
    assert "Coverage: read its one file" in out
    # Said once in the lead, not on every card; the skip is one line under its own heading.
    assert out.count("summary from metadata") == 1 and "All 2 cards: summary from metadata, no model" in out
    assert out.endswith("Skip (1): the headline says enough\n  - [CI] Bump the runner image · vllm-project/vllm#101\n")


def test_card_by_url_as_json(env: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["card", f"https://github.com/{REPO}/pull/102", "--format", "json"]) == 0
    item = json.loads(capsys.readouterr().out)
    assert item["number"] == 102 and item["card"].keys() >= CONTRACT_CARD_KEYS


def test_model_cards_through_the_cli(
    env: FakeGitHub, model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{model.url}/v1")
    monkeypatch.setenv("PRDIGEST_MODEL", "fake-model")
    assert main(["digest", REPO, "--date", "2026-08-05", "--format", "json", "--lang", "zh-CN"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {item["card"]["source"] for item in data["items"]} == {"llm"}
    assert model.chat_requests()[0]["model"] == "fake-model"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["digest", "nobody/nothing", "--date", "2026-08-05"], "prdigest: nobody/nothing: not found on GitHub"),
        (["digest", REPO, "--date", "2026-02-30"], "prdigest: --date: '2026-02-30' is not a date"),
        (["digest", REPO, "--since", "forever"], "prdigest: --since: 'forever' is not a duration"),
        (["digest", "vllm"], "prdigest: 'vllm' is not a repository"),
        (["card", "vllm#1"], "prdigest: 'vllm#1' is not a pull request reference"),
        (["card", f"{REPO}#999"], f"prdigest: {REPO}#999: not found on GitHub"),
        (["worker"], "prdigest: REDIS_URL is not set: a worker takes its card jobs from Redis"),
        (["worker", "--threads", "0"], "prdigest: --threads 0 is not a number of cards at once"),
    ],
)
def test_bad_input_is_one_line_and_a_non_zero_exit(
    env: FakeGitHub, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(argv) == 1
    err = capsys.readouterr().err
    lines = told(err)
    assert len(lines) == 1 and lines[0].startswith(message)
    assert "Traceback" not in err


def test_argument_mistakes_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["digest", REPO, "--format", "yaml"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "invalid choice" in err


def test_bad_config_is_named(
    env: FakeGitHub, monkeypatch: pytest.MonkeyPatch, tmp_path: object, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PRDIGEST_CONFIG", "bad.toml")
    with open("bad.toml", "w", encoding="utf-8") as handle:
        handle.write("[defaults]\nconcurrancy = 4\n")
    assert main(["digest", REPO]) == 1
    assert capsys.readouterr().err.strip() == "prdigest: bad.toml: unknown key 'defaults.concurrancy'"


def test_doctor_reports_each_part(
    env: FakeGitHub,
    model: FakeOpenAI,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-value")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{model.url}/v1")
    monkeypatch.setenv("REDIS_URL", redis_url)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_supersecrettoken")
    assert main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "secret-value" not in out and "supersecrettoken" not in out
    for name in ("config", "redis", "github", "model", "slack"):
        assert f" {name} " in out


PASSWORD = "hunter2-pw"


def _with_credentials(url: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://robot:{PASSWORD}@{rest}"


@pytest.mark.parametrize("variable", ["OPENAI_BASE_URL", "REDIS_URL", "GITHUB_API_URL", "SLACK_API_URL"])
@pytest.mark.parametrize("reachable", [True, False], ids=["reachable", "unreachable"])
def test_doctor_never_prints_a_password_in_a_url(
    env: FakeGitHub,
    model: FakeOpenAI,
    redis_url: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    variable: str,
    reachable: bool,
) -> None:
    with FakeSlack() as slack:
        urls = {
            "OPENAI_BASE_URL": f"{model.url}/v1",
            "REDIS_URL": redis_url,
            "GITHUB_API_URL": env.url,
            "SLACK_API_URL": slack.api_url,
        }
        for name, url in urls.items():
            monkeypatch.setenv(name, url)
        # Both the line of a check that passed and the line of one that failed show the URL.
        target = urls[variable] if reachable else "http://127.0.0.1:1/v1"
        if variable == "REDIS_URL" and not reachable:
            target = "redis://127.0.0.1:1/0"
        if variable == "SLACK_API_URL" and not reachable:
            # No port: http.client then reads the password as one and its error quotes it.
            target = "http://127.0.0.1/api/"
        monkeypatch.setenv(variable, _with_credentials(target))
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("SLACK_BOT_TOKEN", "xoxb-test")
        main(["doctor"])
    out, err = capsys.readouterr()
    assert PASSWORD not in out + err and "robot" not in out + err
    assert PASSWORD not in caplog.text  # what the libraries log goes to stderr too
    assert "://***@" in out  # the URL is still shown, with what identifies it


def test_card_from_a_model_that_never_answers_ends_within_model_timeout(
    env: FakeGitHub, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    budget = 2.0
    with open("prdigest.toml", "w", encoding="utf-8") as handle:
        handle.write(f"[defaults]\nmodel_timeout = {budget}\n")
    monkeypatch.setenv("PRDIGEST_CONFIG", "prdigest.toml")
    monkeypatch.setattr(waiting, "NOTICE_AFTER_SECONDS", budget / 4)  # 5 s in real life
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # the notice is for terminals only
    with SilentServer() as silent:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", _with_credentials(f"{silent.url}/v1"))
        started = time.monotonic()
        assert main(["card", f"{REPO}#102", "--format", "json"]) == 0
        elapsed = time.monotonic() - started
        assert silent.connections == 1  # not retried: the timeout spent the budget
        host = silent.url.removeprefix("http://")
    out, err = capsys.readouterr()
    assert json.loads(out)["card"]["source"] == "heuristic"
    assert elapsed < 2 * budget + 2  # generous: about one budget, never one per attempt
    lines = [line.strip() for line in told(err)]
    assert lines == [
        f"prdigest: waiting for the model at {host} (up to 2 s)…",
        f"prdigest: the model at {host} gave no card: it is from metadata (--debug says why)",
    ]
    assert PASSWORD not in err


def test_digest_with_the_model_down_says_so_in_one_line(env: FakeGitHub) -> None:
    for number in range(103, 106):
        env.add_pr(REPO, number, title=f"Change {number}", merged_at=day(number - 100))
    # A port bound but not listening: every connection is refused, as with a stopped server.
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        environ = {
            **os.environ,
            "GITHUB_API_URL": env.url,
            "OPENAI_API_KEY": "sk-test",
            "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
            "PRDIGEST_CONFIG": "",
        }
        done = subprocess.run(
            [sys.executable, "-m", "bot.cli", "digest", REPO, "--date", "2026-08-05"],
            env=environ,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert "5 merged" in done.stdout
    lines = told(done.stderr)
    assert lines == [
        f"prdigest: the model at 127.0.0.1:{port} gave no card for 5 of 5 PRs: "
        "their cards are from metadata (--debug says why)"
    ]


def test_doctor_fails_when_redis_is_away(
    env: FakeGitHub, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("REDIS_URL", "redis://127.0.0.1:1/0")
    assert main(["doctor"]) == 1
    assert "FAIL  redis" in capsys.readouterr().out


# What people type after `prdigest digest` or `prdigest card`: anything, pasted or not.
TYPED = st.text() | st.lists(
    st.sampled_from(
        [REPO, "#", "12", "-", "--", "-h", "--since", "=", "\n", "\u2028", "中文", "🚀", "<!channel>", "0001"]
    )
    | st.text(max_size=5),
    max_size=8,
).map("".join)
ARGV = st.one_of(
    st.builds(lambda text: ["digest", text, "--date", "2026-08-05"], TYPED),
    st.builds(lambda text: ["digest", REPO, f"--since={text}"], TYPED),
    st.builds(lambda text: ["digest", REPO, "--since", text], TYPED),
    st.builds(lambda text: ["digest", REPO, f"--date={text}"], TYPED),
    st.builds(lambda text: ["card", text], TYPED),
    st.builds(lambda text: ["card", f"{REPO}#101", "--format", text], TYPED),
)


# Each example builds the services and asks the fake GitHub: a few dozen are enough.
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=ARGV)
@example(argv=["digest", "a\nb", "--date", "2026-08-05"])  # the message repeats the repository
@example(argv=["digest", REPO, "--since", "99999999999d"])  # timedelta overflow
@example(argv=["digest", REPO, "--date=0001-01-01"])
@example(argv=["card", "a/b#" + "1" * 5000])  # int() of 5,000 digits
@example(argv=["digest", REPO, "--date", "2026-08-05", "--x\ny"])  # argparse repeats the unknown option
def test_whatever_is_typed_the_answer_is_a_result_or_one_line(
    env: FakeGitHub, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    capsys.readouterr()
    try:
        code: int | str | None = main(argv)
    except SystemExit as exit_info:  # argparse: --help (0) or a usage mistake (2)
        code = exit_info.code
    out, err = capsys.readouterr()
    lines = told(err)
    assert "Traceback" not in err
    if code == 0:
        assert out and not lines, (argv, err)
    else:
        assert code in (1, 2), (argv, code, err)
        assert len(lines) == 1 and lines[0].startswith("prdigest: "), (argv, err)


def test_doctor_says_what_github_answered(
    env: FakeGitHub, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A GitHub Enterprise URL without its /api/v3: the server answers, with a 404.
    monkeypatch.setenv("GITHUB_API_URL", f"{env.url}/wrong")
    assert main(["doctor"]) == 1
    assert f"FAIL  github  {env.url}/wrong answered 404; check GITHUB_TOKEN" in capsys.readouterr().out


def test_doctor_says_what_slack_answered(
    env: FakeGitHub, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with FakeSlack() as slack:
        monkeypatch.setenv("SLACK_API_URL", slack.api_url)
        monkeypatch.setenv("SLACK_BOT_TOKEN", slack.bot_token)
        slack.fail_next("auth.test", "invalid_auth")
        assert main(["doctor"]) == 1
        assert f"FAIL  slack   auth.test at {slack.api_url} failed: invalid_auth" in capsys.readouterr().out
