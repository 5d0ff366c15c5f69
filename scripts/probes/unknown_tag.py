"""GitHub requests for the same question naming a tag GitHub does not have, asked 20 times of a real
`prdigest serve --http` with a real redis-server.

    PYTHONPATH=. .venv/bin/python scripts/probes/unknown_tag.py [--code DIR] [--times 20]

Starts redis-server, fake Slack and fake GitHub (a repository with two releases, v0.1.0 and
v0.2.0) on loopback, and `prdigest serve --http` as a subprocess from `--code` (default: this
checkout; another checkout measures the code before a change). Mentions the bot `--times` times,
one after the other (each waits for its reply), with "what changed between v0.1.0 and v0.9.0?",
then `--times` times at once with v0.8.0. Prints the GitHub requests each round made, by kind.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from tempfile import TemporaryDirectory

from devkit.fakes.github import FakeGitHub
from devkit.fakes.slack import FakeSlack
from devkit.redis_server import RedisServer

from scripts.probes import served
from scripts.probes.served import ROOT, Served

REPO = "acme/widgets"
CHANNEL = "C0PROBETAG"
HUMAN = "U0PROBE001"
WAIT = 60.0
START = datetime(2026, 9, 1, tzinfo=UTC)


def populate(github: FakeGitHub) -> None:
    for number in range(1, 11):
        github.add_pr(
            REPO,
            number,
            title=f"[Core] Change {number}",
            merged_at=START + timedelta(hours=number),
            files=[{"path": f"src/part_{number}.py", "additions": number, "deletions": 1}],
        )
    github.add_release(REPO, "v0.1.0", START + timedelta(hours=5, minutes=1))
    github.add_release(REPO, "v0.2.0", START + timedelta(hours=8, minutes=1))


def ask(slack: FakeSlack, base: str, text: str) -> str:
    """A mention in the channel; the bot's reply in its thread."""
    ts = slack.add_message(CHANNEL, f"<@UBOT> {text}", user=HUMAN)
    event = {"type": "app_mention", "channel": CHANNEL, "user": HUMAN, "text": f"<@UBOT> {text}", "ts": ts}
    answer = served.event(base, event)
    assert answer.status_code == 200, answer.text

    def replied() -> str:
        texts = [str(reply.get("text", "")) for reply in slack.thread(CHANNEL, ts) if reply.get("bot_id")]
        return next((text for text in texts if "has no release" in text), "")

    return served.until(replied, WAIT, "a reply")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout whose bot/ is served")
    parser.add_argument("--times", type=int, default=20, help="how many times the question is asked")
    args = parser.parse_args()
    with TemporaryDirectory() as workdir, RedisServer() as redis_server, FakeSlack() as slack, FakeGitHub() as github:
        populate(github)
        config = Path(workdir) / "prdigest.toml"
        config.write_text(
            f'[defaults]\ntimezone = "UTC"\n\n[[channels]]\nid = "{CHANNEL}"\nrepos = ["{REPO}"]\n', encoding="utf-8"
        )
        slack.members = {CHANNEL: [HUMAN]}
        env = served.environment(config, slack=slack, github=github, redis_url=redis_server.url)
        with Served(env, Path(workdir), code=args.code) as server:
            github.reset_requests()
            replies = [ask(slack, server.base, "what changed between v0.1.0 and v0.9.0?") for _ in range(args.times)]
            one_by_one = github.counts_by_kind()
            github.reset_requests()
            with ThreadPoolExecutor(max_workers=args.times) as pool:
                burst = list(
                    pool.map(
                        lambda _: ask(slack, server.base, "what changed between v0.1.0 and v0.8.0?"), range(args.times)
                    )
                )
            at_once = github.counts_by_kind()
    print(f"code: {args.code}")
    print(f"reply: {replies[0][:120]!r}")
    said = {reply.replace("v0.8.0", "v0.9.0") for reply in [*replies, *burst]}
    print(f"all {2 * args.times} replies say the same: {len(said) == 1}")
    print(f"{args.times} questions one by one: {sum(one_by_one.values())} GitHub requests {one_by_one}")
    print(f"{args.times} questions at once:    {sum(at_once.values())} GitHub requests {at_once}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
