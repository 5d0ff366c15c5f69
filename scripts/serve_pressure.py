"""Pressure on a real `prdigest serve --http`: oversized unsigned bodies and connections that trickle.

    .venv/bin/python scripts/serve_pressure.py            # both scenarios
    .venv/bin/python scripts/serve_pressure.py --only rss

Starts fake Slack and GitHub on loopback and `prdigest serve --http` as a subprocess pointed at
them (no Redis: the embedded store), then prints, as issue 9 asks:

- rss: the server's RSS before and after 20 unsigned 10 MB bodies (target: +20 MB at most), and
  what the senders got back;
- trickle: the longest `/healthz` and signed `/pr` ack while 200 connections trickle their
  headers a byte at a time (target: under 1 s).
"""

from __future__ import annotations

import argparse
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from tempfile import TemporaryDirectory

import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.slack import FakeSlack
from devkit.ports import free_port
from devkit.proc import rss_mb
from devkit.slack_signing import signed_headers

ROOT = Path(__file__).resolve().parents[1]
SECRET = "pressure-signing-secret"
CHANNEL = "C0PRESS001"
REPO = "acme/pressure"
MB = 1024 * 1024


class Server:
    def __init__(self, slack: FakeSlack, github: FakeGitHub, workdir: Path) -> None:
        config = workdir / "prdigest.toml"
        config.write_text(
            f'[[channels]]\nid = "{CHANNEL}"\nrepos = ["{REPO}"]\nquiet_days = "silent"\n', encoding="utf-8"
        )
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "GITHUB_", "OPENAI_", "REDIS_"))},
            "PRDIGEST_CONFIG": str(config),
            "GITHUB_API_URL": github.url,
            "SLACK_BOT_TOKEN": slack.bot_token,
            "SLACK_SIGNING_SECRET": SECRET,
            "SLACK_API_URL": slack.api_url,
        }
        command = [
            sys.executable,
            "-m",
            "bot.cli",
            "serve",
            "--http",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
        ]
        self.process = subprocess.Popen(command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{self.base}/healthz", timeout=1).ok:
                    return
            except requests.ConnectionError:
                time.sleep(0.1)
        raise RuntimeError("the server did not start")

    def stop(self) -> str:
        """SIGTERM, then the server's stderr; it is killed if it has not exited 10 s later."""
        if self.process.returncode is not None:
            return "stopped already"
        started = time.monotonic()
        self.process.send_signal(signal.SIGTERM)
        try:
            _out, err = self.process.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _out, err = self.process.communicate()
            return f"did not stop within 10 s of SIGTERM\n{err.decode(errors='replace')}"
        return f"stopped {time.monotonic() - started:.1f} s after SIGTERM\n{err.decode(errors='replace')}"

    def signed_command(self, text: str, response_url: str) -> requests.Response:
        form = {
            "command": "/pr",
            "text": text,
            "channel_id": CHANNEL,
            "user_id": "U0PRESS",
            "response_url": response_url,
        }
        body = urllib.parse.urlencode(form).encode()
        headers = signed_headers(SECRET, body, "application/x-www-form-urlencoded")
        return requests.post(f"{self.base}/slack/events", data=body, headers=headers, timeout=30)


def unsigned_big_body(base: str, size: int) -> str:
    try:
        response = requests.post(
            f"{base}/slack/events", data=b"x" * size, headers={"Content-Type": "application/json"}, timeout=60
        )
    except requests.RequestException as exc:
        return type(exc).__name__
    return str(response.status_code)


def rss_scenario(server: Server, slack: FakeSlack) -> None:
    pid = server.process.pid
    time.sleep(1)
    before = rss_mb(pid)
    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(lambda _: unsigned_big_body(server.base, 10 * MB), range(20)))
    time.sleep(2)
    after = rss_mb(pid)
    counts = {answer: answers.count(answer) for answer in sorted(set(answers))}
    posted = [r.path for r in slack.requests if r.path.startswith(("/api/chat.", "/response/"))]
    print(f"rss: {before:.0f} MB before, {after:.0f} MB after 20 unsigned 10 MB bodies (+{after - before:.0f} MB)")
    print(f"rss: answers {counts}; posts that reached fake Slack: {posted}")
    # The largest bodies still read (just under the cap), 20 at once, 5 times over.
    for _ in range(5):
        with ThreadPoolExecutor(max_workers=20) as pool:
            answers = list(pool.map(lambda _: unsigned_big_body(server.base, MB - 1024), range(20)))
    time.sleep(2)
    below = rss_mb(pid)
    counts = {answer: answers.count(answer) for answer in sorted(set(answers))}
    print(f"rss: {below:.0f} MB after 100 more unsigned bodies just under 1 MiB (+{below - before:.0f} MB); {counts}")


def trickle(port: int, count: int, stop: threading.Event, opened: list[int]) -> None:
    """`count` connections that send a request head one byte a second, reconnecting when dropped."""
    head = b"POST /slack/events HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 10_000
    selector = selectors.DefaultSelector()
    progress: dict[socket.socket, int] = {}

    def connect() -> None:
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex(("127.0.0.1", port))
        progress[sock] = 0
        selector.register(sock, selectors.EVENT_READ)
        opened[0] += 1

    for _ in range(count):
        connect()
    while not stop.is_set():
        for key, _mask in selector.select(timeout=0):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            try:
                data = sock.recv(4096)
            except OSError:
                data = b""
            if not data:  # the server dropped it: take its place
                selector.unregister(sock)
                sock.close()
                del progress[sock]
                connect()
        for sock, sent in list(progress.items()):
            try:
                sock.send(head[sent : sent + 1])
                progress[sock] = sent + 1
            except (BlockingIOError, OSError):
                pass
        stop.wait(1.0)
    for sock in progress:
        sock.close()
    selector.close()


def trickle_scenario(server: Server, slack: FakeSlack, connections: int, seconds: float) -> None:
    stop = threading.Event()
    opened = [0]
    thread = threading.Thread(target=trickle, args=(server.port, connections, stop, opened), daemon=True)
    thread.start()
    time.sleep(2)  # let every trickler connect and start
    health: list[float] = []
    acks: list[float] = []
    failures: list[str] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        started = time.monotonic()
        try:
            ok = requests.get(f"{server.base}/healthz", timeout=30).ok
            health.append(time.monotonic() - started)
            failures += [] if ok else ["healthz not ok"]
        except requests.RequestException as exc:
            failures.append(f"healthz {type(exc).__name__}")
        started = time.monotonic()
        try:
            response = server.signed_command(f"{REPO}#1", slack.new_response_url())
            acks.append(time.monotonic() - started)
            failures += [] if response.status_code == 200 else [f"ack {response.status_code}"]
        except requests.RequestException as exc:
            failures.append(f"ack {type(exc).__name__}")
        time.sleep(0.25)
    stopping = server.stop().splitlines()[0]  # while the connections still trickle
    stop.set()
    thread.join()

    def worst(values: list[float]) -> str:
        return (
            f"{max(values) * 1000:.0f} ms (median {sorted(values)[len(values) // 2] * 1000:.0f} ms)" if values else "-"
        )

    print(
        f"trickle: {connections} connections trickling headers ({opened[0]} opened in {seconds:.0f} s): "
        f"/healthz longest {worst(health)} over {len(health)}, signed /pr ack longest {worst(acks)} over {len(acks)}; "
        f"failures {failures or 'none'}; SIGTERM while they trickled: {stopping}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--only", choices=("rss", "trickle"))
    parser.add_argument("--connections", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    with FakeSlack() as slack, FakeGitHub() as github, TemporaryDirectory() as workdir:
        github.add_repo(REPO)
        github.add_pr(
            REPO,
            1,
            title="A change",
            merged_at=datetime(2026, 8, 5, tzinfo=UTC),
            files=[{"path": "a.py", "additions": 3, "deletions": 1}],
        )
        for scenario in ("rss", "trickle"):
            if args.only not in (None, scenario):
                continue
            server = Server(slack, github, Path(workdir))
            try:
                if scenario == "rss":
                    rss_scenario(server, slack)
                else:
                    trickle_scenario(server, slack, args.connections, args.seconds)
            finally:
                err = server.stop()
                print(f"{scenario}: exit {server.process.returncode}; {err.strip().splitlines()}")
                if "Traceback" in err:
                    print(err[-3000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
