"""Every error a line: what used to end in a traceback ends in one line on stderr and a non-zero exit."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.server import LoopbackServer, RecordedRequest, Response

from bot.cli.main import error_line, main
from bot.errors import SourceNotAPI, SourceUnreachable
from tests.integration.conftest import REPO, day, told

WEB_PAGE = b"<!DOCTYPE html><html><head><title>Sign in</title></head><body>GitHub Enterprise</body></html>"


class WebHost(LoopbackServer):
    """A GitHub Enterprise server's web host, asked as if it were the API: every path a page,
    as a redirect to its sign-in page, or a 200 (a 404 page where the path is none of its own)."""

    def __init__(self, status: int = 200) -> None:
        super().__init__()
        self.status = status

    def handle(self, request: RecordedRequest) -> Response:
        headers = {"content-type": "text/html; charset=utf-8"}
        if self.status == 302:
            headers["location"] = f"{self.url}/login?return_to={request.path}"
        return Response(self.status, headers, WEB_PAGE)


def _one_line(err: str) -> str:
    lines = told(err)
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@pytest.mark.parametrize("status", [200, 302, 404])
@pytest.mark.parametrize(
    "argv",
    [["card", f"{REPO}#1"], ["digest", REPO], ["digest", REPO, "--date", "2026-08-05"], ["ask", f"{REPO}#1", "why?"]],
    ids=["card", "digest", "digest-date", "ask"],
)
def test_a_host_that_answers_web_pages_is_one_line_for_a_person(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], argv: list[str], status: int
) -> None:
    with WebHost(status) as web:
        monkeypatch.setenv("GITHUB_API_URL", web.url)
        assert main(argv) == 1
        assert web.requests  # it was reached
        expected = (
            "prdigest: GITHUB_API_URL answered with a web page, not GitHub's API; "
            f"for GitHub Enterprise use {web.url}/api/v3"
        )
    assert _one_line(capsys.readouterr().err) == expected


def _closed_port() -> str:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{closed.getsockname()[1]}"


def test_github_out_of_reach_says_how_to_try_it_offline(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An offline `make run` said "cannot reach GitHub" and nothing more."""
    url = _closed_port()
    monkeypatch.setenv("GITHUB_API_URL", url)
    assert main(["digest", REPO]) == 1
    assert _one_line(capsys.readouterr().err) == (
        f"prdigest: {REPO}: cannot reach GitHub at {url} (ConnectionError); offline, try the README's "
        "“Try it against the bundled fakes”: they serve a GitHub on this machine, and GITHUB_API_URL points there"
    )
    line = error_line(SourceUnreachable(REPO, url, "ConnectionError"), "zh-CN")
    assert "GITHUB_API_URL" in line and "README" in line and "离线" in line and "offline" not in line


def test_doctor_tells_a_web_host_from_one_not_reached(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with WebHost() as web:
        monkeypatch.setenv("GITHUB_API_URL", web.url)
        assert main(["doctor"]) == 1
        url = web.url
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if " github " in line)
    assert line.startswith(f"FAIL  github  {url} answered") and "cannot reach" not in line
    assert line.endswith(f"for GitHub Enterprise use {url}/api/v3")
    # The same URL, now with nothing listening: not reached.
    assert main(["doctor"]) == 1
    assert f"FAIL  github  cannot reach {url} (ConnectionError)" in capsys.readouterr().out


@pytest.mark.parametrize("token", [None, "ghp_test"])
def test_doctor_marks_a_spent_rate_limit_as_a_problem(
    github: FakeGitHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    token: str | None,
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    if token:
        monkeypatch.setenv("GITHUB_TOKEN", token)
    github.rate_limit = 0
    assert main(["doctor"]) == 1
    out = capsys.readouterr().out
    line = next(line for line in out.splitlines() if " github " in line)
    assert line.startswith("FAIL  github ") and "rate limit spent: 0/" in line, out


@pytest.mark.parametrize(
    ("url", "suggested"),
    [
        ("https://github.com", "https://api.github.com"),
        ("https://ghe.example.com", "https://ghe.example.com/api/v3"),
        ("https://robot:pw@ghe.example.com:8443/", "https://ghe.example.com:8443/api/v3"),
    ],
)
def test_the_web_page_line_suggests_the_api_of_that_host(url: str, suggested: str) -> None:
    assert SourceNotAPI.at(url).suggested == suggested


@pytest.mark.parametrize(
    "argv",
    [
        ["digest", REPO, "--date", "2026-08-05", "--format", "json"],
        ["digest", REPO, "--date", "2026-08-05"],
        ["card", f"{REPO}#101", "--format", "json"],
        ["ask", f"{REPO}#101", "what changed?"],
    ],
    ids=["digest-json", "digest-text", "card-json", "ask"],
)
def test_a_closed_stdout_ends_quietly(github: FakeGitHub, argv: list[str]) -> None:
    for number in (101, 102):
        github.add_pr(
            REPO,
            number,
            title=f"Change {number}",
            merged_at=day(number - 100),
            files=[{"path": "a.py", "additions": 3, "deletions": 1}],
        )
    # `| head -1` whose reader is gone before a byte is written: every write meets a closed pipe,
    # every run (with a real head, 3 runs in 10 did).
    read_end, write_end = os.pipe()
    os.close(read_end)
    environ = {**os.environ, "GITHUB_API_URL": github.url, "PRDIGEST_CONFIG": ""}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "bot.cli", *argv],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=environ,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        os.close(write_end)
    assert done.returncode in (0, 141), done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
    assert "BrokenPipe" not in done.stderr


# -- prdigest worker, as an operator runs it ---------------------------------------------------------


def _worker(redis_url: str, *args: str) -> subprocess.Popen[str]:
    environ = {**os.environ, "REDIS_URL": redis_url, "PRDIGEST_CONFIG": ""}
    command = [sys.executable, "-m", "bot.cli", "worker", "--threads", "1", *args]
    return subprocess.Popen(command, env=environ, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _lines_until(process: subprocess.Popen[str], ending: str) -> list[str]:
    assert process.stderr is not None
    lines: list[str] = []
    for line in process.stderr:
        lines.append(line.rstrip("\n"))
        if ending in line:
            return lines
    raise AssertionError(f"the worker ended before saying {ending!r}: {lines}")


def _stop(process: subprocess.Popen[str]) -> str:
    process.send_signal(signal.SIGTERM)
    _out, err = process.communicate(timeout=90)
    return err


def test_a_worker_s_metrics_port_in_use_is_one_line_naming_the_port(redis_url: str) -> None:
    with socket.create_server(("0.0.0.0", 0)) as busy:
        taken = busy.getsockname()[1]
        process = _worker(redis_url, "--metrics-port", str(taken))
        _out, err = process.communicate(timeout=60)
    lines = told(err)
    assert (process.returncode, len(lines)) == (1, 1), err
    assert lines[0] == f"prdigest: cannot serve on 127.0.0.1:{taken}: port {taken} is in use by another process"


def test_a_worker_on_metrics_port_0_says_the_port_it_got_on_this_machine_only(redis_url: str) -> None:
    process = _worker(redis_url, "--metrics-port", "0")
    try:
        lines = _lines_until(process, "making cards from the shared queue")
        served = next(line for line in lines if "serving metrics at" in line)
        assert served.startswith("prdigest: serving metrics at http://127.0.0.1:"), served
        port = int(served.rsplit(":", 1)[1].removesuffix("/metrics"))
        assert port > 0
        assert requests.get(f"http://127.0.0.1:{port}/metrics", timeout=10).status_code == 200
        # Bound to 127.0.0.1 alone, not every interface: another address of this host is refused.
        with pytest.raises(requests.ConnectionError):
            requests.get(f"http://127.0.0.2:{port}/metrics", timeout=10)
    finally:
        err = _stop(process)
    assert "Traceback" not in err


def test_a_worker_serves_its_metrics_at_its_host(redis_url: str) -> None:
    process = _worker(redis_url, "--host", "127.0.0.2", "--metrics-port", "0")
    try:
        lines = _lines_until(process, "making cards from the shared queue")
        served = next(line for line in lines if "serving metrics at" in line)
        port = int(served.rsplit(":", 1)[1].removesuffix("/metrics"))
        assert served == f"prdigest: serving metrics at http://127.0.0.2:{port}/metrics"
        assert requests.get(f"http://127.0.0.2:{port}/healthz", timeout=10).status_code == 200
    finally:
        err = _stop(process)
    assert "Traceback" not in err


def test_a_worker_says_one_thing_while_redis_is_away() -> None:
    with socket.socket() as closed:  # a port bound but not listening: Redis is away
        closed.bind(("127.0.0.1", 0))
        process = _worker(f"redis://127.0.0.1:{closed.getsockname()[1]}/0")
        try:
            said = _lines_until(process, "waiting for Redis")
            # Its next lines would follow within microseconds: SIGTERM after a second finds them said.
            time.sleep(1.0)
        finally:
            err = _stop(process)
    assert process.returncode == 0, err  # stopped by its own handler, so past what it says at start
    lines = [*said, *err.splitlines()]
    assert not any("making cards from the shared queue" in line for line in lines), lines
    assert "Traceback" not in err


# -- libraries' log lines ---------------------------------------------------------------------------


def _rate_limited_digest(github: FakeGitHub, *options: str) -> list[str]:
    for number in range(1, 9):
        github.add_pr(REPO, number, title=f"Change {number}", merged_at=day(number), files=[{"path": "a.py"}])
    github.rate_limit = 5  # spent halfway through the PRs' requests
    environ = {**os.environ, "GITHUB_API_URL": github.url, "PRDIGEST_CONFIG": ""}
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", *options, "digest", REPO, "--date", "2026-08-05"],
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert github.count(lambda request: True) > 5  # some requests were refused
    return done.stderr.splitlines()


LIBRARY_LINES = ("failed with 403", "Required backoff", "max_rate_limit_wait", "Retry")


def test_a_rate_limited_digest_prints_no_library_line(github: FakeGitHub) -> None:
    lines = _rate_limited_digest(github)
    assert not [line for line in lines if any(words in line for words in LIBRARY_LINES)], lines
    assert len(lines) == len(set(lines)), lines


def test_with_debug_library_lines_come_once_through_our_handler(github: FakeGitHub) -> None:
    lines = _rate_limited_digest(github, "--debug")
    refused = [line for line in lines if "failed with 403" in line]
    assert refused and all(line.startswith("prdigest: ") for line in refused), refused
    bare = {line for line in lines if not line.startswith("prdigest: ")}
    assert not {line for line in lines if line.removeprefix("prdigest: ") in bare and line.startswith("prdigest: ")}


@pytest.mark.parametrize("url", ["garbage", "ftp://ghe.example.com/api/v3"])
@pytest.mark.parametrize("argv", [["card", f"{REPO}#1"], ["doctor"]], ids=["card", "doctor"])
def test_a_github_api_url_that_is_no_http_url_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], url: str, argv: list[str]
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", url)
    assert main(argv) == 1
    assert _one_line(capsys.readouterr().err) == (
        "prdigest: GITHUB_API_URL is not an http(s) URL with a host; "
        "use https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise"
    )
