"""GET /slack/install floods counted by client and network, on a real `prdigest serve --http`
(OAuth mode) and redis-server.

    PYTHONPATH=. .venv/bin/python scripts/probes/install_networks.py [--code DIR]

Each scenario gets its own Redis and server. The probe connects from loopback, which the server
takes for a proxy of ours (bot/core/addresses.py), so the last X-Forwarded-For entry of each GET is
the client; a first entry stands for what a client may send itself, which is never believed.
- one /64: 699 GETs, each from a new address of 2001:db8:64:1::/64.
- one /48: 3,000 GETs, each from a new /64 of 2001:db8:48::/48.
- many networks: 60 IPv4 addresses start 10 each (a client's most in a minute), then 2,000 GETs,
  each from a new /48.
After each flood, one GET each from an IPv4 client, a /64 of the flood's /48 (when the flood was
one /64) and another /48: their answers, then the OAuth states in Redis (target: at most 10 from
the /64, no other client refused, at most 500 states in all).

`--code DIR` serves the `bot` package found in DIR (e.g. `git worktree add DIR HEAD`), to measure
the code before a change with this same probe.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

import redis
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.slack import FakeSlack
from devkit.redis_server import RedisServer

from scripts.probes import served
from scripts.probes.served import ROOT, Served

CHANNEL = "C0PROBE001"
SPOOFED = "198.18.0.1"  # what a client writes first itself; our proxy appends the address it saw

Scenario = Callable[[Callable[[Iterable[str]], Counter[int]]], None]


def one_64(get: Callable[[Iterable[str]], Counter[int]]) -> None:
    print(f"  699 addresses of one /64: {dict(get(f'2001:db8:64:1:{n:x}::{n % 7 + 1:x}' for n in range(699)))}")
    others(get, ("198.51.100.20", "2001:db8:64:2::1", "2001:db8:77::1"))


def one_48(get: Callable[[Iterable[str]], Counter[int]]) -> None:
    print(f"  3,000 /64s of one /48: {dict(get(f'2001:db8:48:{n:x}::1' for n in range(3000)))}")
    others(get, ("198.51.100.20", "2001:db8:77::1"))


def many_networks(get: Callable[[Iterable[str]], Counter[int]]) -> None:
    flooders = [f"192.0.2.{n}" for n in range(60)]
    print(f"  60 IPv4 addresses, 10 each: {dict(get(a for a in flooders for _ in range(10)))}")
    others(get, ("198.51.100.20", "2001:db8:77::1"))
    print(f"  2,000 new /48s, one each: {dict(get(f'2001:{n // 256 + 1:x}:{n % 256:x}::1' for n in range(2000)))}")
    others(get, ("198.51.100.21", "2001:db8:78::1"))


def others(get: Callable[[Iterable[str]], Counter[int]], clients: tuple[str, ...]) -> None:
    print("  then " + ", ".join(f"{client}: {next(iter(get([client])))}" for client in clients))


def run(name: str, scenario: Scenario, code: Path, workdir: Path) -> None:
    config = workdir / "prdigest.toml"
    config.write_text(
        f'[slack]\nhome_team = "T0PROBE01"\n\n[[channels]]\nid = "{CHANNEL}"\nrepos = ["acme/probe"]\n',
        encoding="utf-8",
    )
    with FakeGitHub() as github, FakeSlack() as slack, RedisServer() as store:
        env = served.environment(config, slack=slack, github=github, redis_url=store.url, oauth=True)
        server = Served(env, workdir, code=code)
        client = redis.Redis.from_url(store.url)
        try:
            # The counts are per minute and per 10 minutes: one scenario stays inside both.
            left = min(60 - time.time() % 60, 600 - time.time() % 600)
            if left < 30:
                time.sleep(left + 0.5)
            print(f"{name}:")
            with requests.Session() as session:

                def get(addresses: Iterable[str]) -> Counter[int]:
                    url = f"{server.base}/slack/install"
                    return Counter(
                        session.get(url, headers={"X-Forwarded-For": f"{SPOOFED}, {a}"}, timeout=10).status_code
                        for a in addresses
                    )

                scenario(get)
            states = sum(1 for _ in client.scan_iter(match="*oauth_state:*"))
            print(f"  OAuth states in Redis: {states}; keys in all: {client.dbsize()}")
        finally:
            client.close()
            log = server.stop()
        print(f"  server log: {log.count('Traceback (most recent call last)')} tracebacks")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--code", type=Path, default=ROOT, help="the directory whose bot package is served")
    args = parser.parse_args()
    scenarios: dict[str, Scenario] = {"one /64": one_64, "one /48": one_48, "many networks": many_networks}
    for name, scenario in scenarios.items():
        with tempfile.TemporaryDirectory() as tmp:
            run(name, scenario, args.code.resolve(), Path(tmp))


if __name__ == "__main__":
    main()
