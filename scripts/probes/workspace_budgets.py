"""The token spend one workspace can cause another's budget, on a real `prdigest serve --http` in
OAuth mode (issue 23, item 2).

    PYTHONPATH=. .venv/bin/python scripts/probes/workspace_budgets.py [--code DIR] [--prs N]

Starts redis-server, fake Slack (with its OAuth endpoints), fake GitHub and a fake OpenAI on
loopback, and `prdigest serve --http` (with its card worker and poller) as a subprocess from
`--code` (default: this checkout; another checkout measures the code before a change). Installs
the app in two workspaces through /slack/install and /slack/oauth_redirect as a browser would.
Then, with signed requests only: home workspace A asks a question; workspace B runs `/pr follow`
of a busy repository (N PRs merged in the last completed window) and `/pr digest`; A asks again.
Prints A's day counter (`tokens:{day}`, what A's `[defaults] daily_token_budget` reads) before and
after B's work, B's own, and whether A's second question was answered or refused for the budget.
The config sets no `[slack] workspace_*` key, so the same file serves code before and after them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import urllib.parse
from datetime import UTC, datetime, timedelta
from datetime import time as time_of_day
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import redis
import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import RESPONSE_PREFIX, FakeSlack
from devkit.redis_server import RedisServer

from scripts.probes import served
from scripts.probes.served import ROOT, Served

HOME, SECOND = "T0HOMEPRB1", "T0SECNDPR1"
HOME_CHANNEL, SECOND_CHANNEL = "C0HOMEPRB1", "C0SECNDPR1"
HUMAN = "U0PROBE001"
HOME_REPO, BUSY_REPO = "acme/home", "acme/busy"
HOME_BUDGET = 30_000  # the shared daily_token_budget
ANSWER = "The change moves the slow part of the step out of the loop."
CARD = {"headline": "Step runs faster", "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}


def respond(request: dict[str, Any]) -> Any:
    return CARD if "response_format" in request or "tools" in request else ANSWER


def last_window_end(now: datetime) -> datetime:
    """The end of the window `/pr digest` posts (post_at 09:00 UTC, window 24h: the last ended)."""
    today = datetime.combine(now.date(), time_of_day(9, 0), tzinfo=UTC)
    return today if now >= today else today - timedelta(days=1)


def populate(github: FakeGitHub, prs: int) -> None:
    end = last_window_end(datetime.now(UTC))
    for number in (1, 2):
        github.add_pr(
            HOME_REPO,
            number,
            title=f"Home change {number}",
            merged_at=end - timedelta(hours=number),
            files=[{"path": f"src/home_{number}.py", "additions": 20, "deletions": 2}],
        )
    for number in range(1, prs + 1):
        github.add_pr(
            BUSY_REPO,
            number,
            title=f"Busy change {number}",
            merged_at=end - timedelta(minutes=20 * number),
            files=[{"path": f"src/busy_{number}.py", "additions": 40 + number, "deletions": 3}],
        )


WAIT = 120.0  # seconds for a reply, a digest or an install before the probe gives up


class Probe:
    def __init__(self, slack: FakeSlack, server: Served, redis_url: str) -> None:
        self.slack = slack
        self.base = server.base
        self.redis = redis.Redis.from_url(redis_url)

    def install(self, team: str) -> None:
        page = requests.get(f"{self.base}/slack/install", timeout=10)
        found = re.search(r"[?&]state=([^&\"']+)", page.text)
        assert page.ok and found, page.text
        cookie = page.headers["Set-Cookie"].split(";")[0]
        query = urllib.parse.urlencode(
            {"code": self.slack.install_code(team), "state": urllib.parse.unquote(found.group(1))}
        )
        done = requests.get(f"{self.base}/slack/oauth_redirect?{query}", headers={"Cookie": cookie}, timeout=10)
        assert done.ok, done.text

    def command(self, team: str, channel: str, text: str) -> list[dict[str, Any]]:
        url = self.slack.new_response_url()
        answer = served.command(self.base, text, channel=channel, user=HUMAN, response_url=url, team=team)
        assert answer.status_code == 200, answer.text
        said: list[dict[str, Any]] = served.until(
            lambda: self.slack.responses[url.removeprefix(self.slack.url + RESPONSE_PREFIX)], WAIT, "a reply"
        )
        return said

    def ask(self, team: str, channel: str, text: str) -> str:
        """A mention from `team`; the bot's final reply in its thread."""
        ts = self.slack.add_message(channel, f"<@UBOT> {text}", user=HUMAN)
        event = {"type": "app_mention", "channel": channel, "user": HUMAN, "text": f"<@UBOT> {text}", "ts": ts}
        answer = served.event(self.base, event, team=team)
        assert answer.status_code == 200, answer.text

        def replied() -> str:
            texts = [str(reply.get("text", "")) for reply in self.slack.thread(channel, ts)]
            return next((text for text in texts if ANSWER in text or "budget" in text or "card instead" in text), "")

        return str(served.until(replied, WAIT, "the answer"))

    def spent(self, team: str | None) -> int:
        """The day's `all` counter of `team`'s hash (None: `tokens:{day}`), whatever the key prefix."""
        day = datetime.now(UTC).date().isoformat()
        suffix = f"tokens:{day}" if team is None else f"tokens:{day}:{team}"
        for key in self.redis.scan_iter(match=f"*{suffix}"):
            if key.decode().endswith(suffix) and not key.decode().endswith(f"{suffix}:"):
                return int(self.redis.hget(key, "all") or 0)
        return 0


def settled(model: FakeOpenAI, quiet: float = 3.0) -> None:
    """Until the model has had no request for `quiet` seconds (the worker's and poller's cards done)."""
    last, since = model.calls, time.monotonic()
    while time.monotonic() - since < quiet:
        time.sleep(0.2)
        if model.calls != last:
            last, since = model.calls, time.monotonic()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose bot/ is served")
    parser.add_argument("--prs", type=int, default=30, help="PRs of the busy repository merged in the window")
    args = parser.parse_args()
    with (
        TemporaryDirectory() as workdir,
        RedisServer() as redis_server,
        FakeSlack() as slack,
        FakeGitHub() as github,
        FakeOpenAI(responder=respond) as model,
    ):
        populate(github, args.prs)
        config = Path(workdir) / "prdigest.toml"
        config.write_text(
            f'[defaults]\ntimezone = "UTC"\ndaily_token_budget = {HOME_BUDGET}\n\n[slack]\nhome_team = "{HOME}"\n\n'
            f'[[channels]]\nid = "{HOME_CHANNEL}"\nrepos = ["{HOME_REPO}"]\n',
            encoding="utf-8",
        )
        env = served.environment(
            config, slack=slack, github=github, model=model, redis_url=redis_server.url, oauth=True
        )
        with Served(env, Path(workdir), code=args.code) as server:
            probe = Probe(slack, server, redis_server.url)
            probe.install(HOME)
            probe.install(SECOND)
            slack.members = {HOME_CHANNEL: [HUMAN], SECOND_CHANNEL: [HUMAN]}

            first = probe.ask(HOME, HOME_CHANNEL, f"what does {HOME_REPO}#1 change?")
            settled(model)
            a_before, calls_before = probe.spent(None), model.calls
            followed = json.dumps(probe.command(SECOND, SECOND_CHANNEL, f"follow {BUSY_REPO}"))
            probe.command(SECOND, SECOND_CHANNEL, "digest")
            served.until(lambda: slack.messages(SECOND_CHANNEL), WAIT, "B's digest")
            settled(model)
            a_after, b_spent, b_calls = probe.spent(None), probe.spent(SECOND), model.calls - calls_before
            second = probe.ask(HOME, HOME_CHANNEL, f"what does {HOME_REPO}#2 change?")
    print(f"code: {args.code}")
    print(f"A's first question: {'answered' if ANSWER in first else first[:80]!r}")
    print(f"B's follow: {'followed' if BUSY_REPO in followed else followed[:120]}")
    print(f"B's follow + digest: {b_calls} model calls")
    print(f"A's counter (its budget {HOME_BUDGET:,}): {a_before:,} before B's work, {a_after:,} after")
    print(f"spend B caused in A's budget: {a_after - a_before:,} tokens")
    print(f"B's own counter: {b_spent:,}")
    print(f"A's next question: {'answered by the model' if ANSWER in second else repr(second[:100])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
