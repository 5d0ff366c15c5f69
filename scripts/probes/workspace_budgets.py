"""The token spend one workspace can cause another's budget, and how far a burst of questions
passes a workspace's own, on a real `prdigest serve --http` in OAuth mode.

    PYTHONPATH=. .venv/bin/python scripts/probes/workspace_budgets.py [--code DIR] [--prs N]
    PYTHONPATH=. .venv/bin/python scripts/probes/workspace_budgets.py --burst N [--budget T] [--code DIR]

Starts redis-server, fake Slack (with its OAuth endpoints), fake GitHub and a fake OpenAI on
loopback, and `prdigest serve --http` (with its card worker and poller) as a subprocess from
`--code` (default: this checkout; another checkout measures the code before a change). Installs
the app in two workspaces through /slack/install and /slack/oauth_redirect as a browser would.
Then, with signed requests only: home workspace A asks a question; workspace B runs `/pr follow`
of a busy repository (N PRs merged in the last completed window) and `/pr digest`; A asks again.
Prints A's day counter (`tokens:{day}`, what A's `[defaults] daily_token_budget` reads) before and
after B's work, B's own, and whether A's second question was answered or refused for the budget.
The config sets no `[slack] workspace_*` key, so the same file serves code before and after them.

With `--burst N`: both daily budgets are T tokens (default 3,000) and the model takes 1.5 s a
request. Workspace B follows a repository of N PRs merged days ago (no poll queues their cards) and
asks N questions at once, one per PR, each needing a card and an answer; then home workspace A does
the same with its own N PRs. Prints, for each, the model calls, the tokens spent (the day's `all`
counter) against the budget, and how the questions were answered.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
import urllib.parse
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
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

from bot.core.prompting.context_window import OUTPUT_RESERVE, request_tokens
from bot.core.prompting.drafts import CardDraft
from bot.models import Message
from scripts.probes import served
from scripts.probes.served import ROOT, Served

HOME, SECOND = "T0HOMEPRB1", "T0SECNDPR1"
HOME_CHANNEL, SECOND_CHANNEL = "C0HOMEPRB1", "C0SECNDPR1"
HUMAN = "U0PROBE001"
HOME_REPO, BUSY_REPO, BURST_REPO = "acme/home", "acme/busy", "acme/burst"
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


def populate_burst(github: FakeGitHub, prs: int) -> None:
    """N PRs in each of B's and A's repositories, merged three days ago: outside the poller's first
    look back (a day), so only the burst's questions make their cards."""
    merged = datetime.now(UTC) - timedelta(days=3)
    for repo in (BURST_REPO, HOME_REPO):
        for number in range(1, prs + 1):
            github.add_pr(
                repo,
                number,
                title=f"Burst change {number}",
                merged_at=merged - timedelta(minutes=number),
                files=[{"path": f"src/burst_{number}.py", "additions": 40 + number, "deletions": 3}],
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
        return self.reply(channel, self.mention(team, channel, text))

    def mention(self, team: str, channel: str, text: str) -> str:
        """A mention from `team`, delivered; its ts."""
        ts = self.slack.add_message(channel, f"<@UBOT> {text}", user=HUMAN)
        event = {"type": "app_mention", "channel": channel, "user": HUMAN, "text": f"<@UBOT> {text}", "ts": ts}
        answer = served.event(self.base, event, team=team)
        assert answer.status_code == 200, answer.text
        return ts

    def reply(self, channel: str, ts: str) -> str:
        """The bot's final reply in the thread of `ts`."""

        def replied() -> str:
            texts = [str(reply.get("text", "")) for reply in self.slack.thread(channel, ts)]
            return next((text for text in texts if ANSWER in text or "budget" in text or "card instead" in text), "")

        return str(served.until(replied, WAIT, "the answer"))

    def burst(self, team: str, channel: str, repo: str, count: int) -> Counter[str]:
        """`count` questions from `team` at once, one per PR of `repo`; how they were answered."""
        texts = [f"what does {repo}#{number} change?" for number in range(1, count + 1)]
        with ThreadPoolExecutor(max_workers=count) as pool:
            sent = list(pool.map(lambda text: self.mention(team, channel, text), texts))
        replies = [self.reply(channel, ts) for ts in sent]
        return Counter(
            "answered" if ANSWER in text else "budget spent" if "budget" in text else "card instead" for text in replies
        )

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


def largest_hold(requests: list[dict[str, Any]]) -> int:
    """What the largest of `requests` holds of a budget (core/window.request_tokens): its messages'
    estimate, the card's schema where it carries one, the answer's room (no max_output_tokens)."""
    schema = json.dumps(CardDraft.model_json_schema())
    holds = [0]
    for body in requests:
        messages = [Message(message["role"], str(message.get("content") or "")) for message in body["messages"]]
        structured = "response_format" in body or "tools" in body
        holds.append(request_tokens(messages, OUTPUT_RESERVE, schema if structured else ""))
    return max(holds)


BURST_LATENCY = 1.5  # seconds a model request takes: the burst's questions overlap


def burst(code: Path, count: int, budget: int) -> int:
    with (
        TemporaryDirectory() as workdir,
        RedisServer() as redis_server,
        FakeSlack() as slack,
        FakeGitHub() as github,
        FakeOpenAI(responder=respond, latency=BURST_LATENCY) as model,
    ):
        populate_burst(github, count)
        config = Path(workdir) / "prdigest.toml"
        config.write_text(
            f'[defaults]\ntimezone = "UTC"\ndaily_token_budget = {budget}\n\n'
            f'[slack]\nhome_team = "{HOME}"\nworkspace_daily_token_budget = {budget}\n\n'
            f'[[channels]]\nid = "{HOME_CHANNEL}"\nrepos = ["{HOME_REPO}"]\n',
            encoding="utf-8",
        )
        env = served.environment(
            config, slack=slack, github=github, model=model, redis_url=redis_server.url, oauth=True
        )
        with Served(env, Path(workdir), code=code) as server:
            probe = Probe(slack, server, redis_server.url)
            probe.install(HOME)
            probe.install(SECOND)
            slack.members = {HOME_CHANNEL: [HUMAN], SECOND_CHANNEL: [HUMAN]}
            followed = json.dumps(probe.command(SECOND, SECOND_CHANNEL, f"follow {BURST_REPO}"))
            assert BURST_REPO in followed, followed
            settled(model)
            rows = []
            for name, team, channel, repo in (
                ("B", SECOND, SECOND_CHANNEL, BURST_REPO),
                ("A (home)", HOME, HOME_CHANNEL, HOME_REPO),
            ):
                calls, before = model.calls, probe.spent(None if team == HOME else team)
                said = probe.burst(team, channel, repo, count)
                settled(model)
                spent = probe.spent(None if team == HOME else team) - before
                rows.append((name, model.calls - calls, spent, said, largest_hold(model.chat_requests()[calls:])))
    print(f"code: {code}")
    print(f"{count} questions at once, model {BURST_LATENCY:g} s a request, daily budgets {budget:,} tokens")
    for name, calls, spent, said, hold in rows:
        answers = ", ".join(f"{amount} {kind}" for kind, amount in sorted(said.items()))
        print(f"workspace {name}: {calls} model calls, {spent:,} tokens spent ({spent / budget:.2f}x); {answers}")
        print(f"  past the budget: {max(spent - budget, 0):,}; the largest request's hold: {hold:,}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose bot/ is served")
    parser.add_argument("--prs", type=int, default=30, help="PRs of the busy repository merged in the window")
    parser.add_argument("--burst", type=int, default=0, help="questions asked at once by each workspace")
    parser.add_argument("--budget", type=int, default=3000, help="both daily budgets, with --burst")
    args = parser.parse_args()
    if args.burst:
        return burst(args.code, args.burst, args.budget)
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
