"""Private names in a shared channel's replies, on a real `prdigest serve --http`.

    PYTHONPATH=. .venv/bin/python scripts/probes/shared_names.py

Starts fake Slack, GitHub and OpenAI on loopback, a redis-server of its own and `prdigest serve
--http` pointed at them, with one channel configured for a private repository that Slack says
is shared with another organisation (conversations.info: is_ext_shared). Then, with signed
requests, as a person there who types no repository: `/pr following`, `/pr digest`, `/pr #2`,
`/pr watch #7`, an @mention of "#3", "what merged this week?" and a click on a Share button of the repository's
#7. Prints how often the repository's name reached Slack in the replies (chat.* calls, the
response_url payloads and the acknowledgements): issue 23's target is 0. A `/pr acme/secret#7`
typed by the person is named back; it is asked last and counted apart.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from tempfile import TemporaryDirectory

import requests
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.redis_server import RedisServer

from scripts.probes import served

CHANNEL = "C0SHARED01"
REPO = "acme/secret"
USER = "U0GUEST001"  # of the other organisation


def command(base: str, slack: FakeSlack, text: str) -> tuple[str, requests.Response]:
    url = slack.new_response_url()
    return url.rsplit("/", 1)[-1], served.command(base, text, channel=CHANNEL, user=USER, response_url=url)


def mention(base: str, slack: FakeSlack, text: str, index: int) -> tuple[str, requests.Response]:
    ts = slack.add_message(CHANNEL, f"<@UBOT> {text}")
    event = {"type": "app_mention", "channel": CHANNEL, "user": USER, "text": f"<@UBOT> {text}", "ts": ts}
    return ts, served.event(base, event, event_id=f"EvShared{index}")


def share(base: str, slack: FakeSlack, ref: str) -> tuple[str, requests.Response]:
    url = slack.new_response_url()
    payload = {
        "type": "block_actions",
        "team": {"id": served.TEAM},
        "user": {"id": USER},
        "channel": {"id": CHANNEL},
        "response_url": url,
        "trigger_id": served.trigger_id(),
        "actions": [
            {
                "action_id": "share_card",
                "block_id": "b",
                "type": "button",
                "action_ts": f"{time.time():.6f}",
                "value": json.dumps({"pr": ref, "by": USER}, separators=(",", ":")),
            }
        ],
    }
    return url.rsplit("/", 1)[-1], served.interaction(base, payload)


def replies(slack: FakeSlack, paths: tuple[str, ...] = ("/api/chat.", "/api/assistant.", "/response/")) -> list[str]:
    """The bodies of every reply-bearing request fake Slack got (chat.*, assistant.*, response_url)."""
    return [request.body.decode(errors="replace") for request in slack.requests if request.path.startswith(paths)]


def main() -> None:
    with (
        TemporaryDirectory() as tmp,
        RedisServer() as redis,
        FakeSlack() as slack,
        FakeGitHub() as github,
        FakeOpenAI() as model,
    ):
        github.add_repo(REPO, private=True)
        merged = datetime.now(UTC) - timedelta(hours=30)
        for number in (2, 3, 7):
            github.add_pr(
                REPO,
                number,
                title=f"Secret change {number}",
                merged_at=merged,
                files=[{"path": f"secret/{number}.py", "additions": 4, "deletions": 1}],
            )
        slack.channel_info[CHANNEL] = {"is_ext_shared": True, "is_shared": True}
        config = Path(tmp) / "prdigest.toml"
        config.write_text(f'[[channels]]\nid = "{CHANNEL}"\nrepos = ["{REPO}"]\n', encoding="utf-8")
        env = served.environment(config, slack=slack, github=github, model=model, redis_url=redis.url)
        with served.Served(env, Path(tmp)) as server:
            base = server.base
            acks: list[requests.Response] = []
            hooks = []
            for text in ("following", "digest", "#2", "watch #7"):
                hook, ack = command(base, slack, text)
                hooks.append(hook)
                acks.append(ack)
            hook, ack = share(base, slack, f"{REPO}#7")
            hooks.append(hook)
            acks.append(ack)
            bare_ts, ack = mention(base, slack, "what does #3 change?", 1)
            acks.append(ack)
            _, ack = mention(base, slack, "what merged this week?", 2)
            acks.append(ack)
            # Each command and the click answer once through their response_url.
            served.until(lambda: all(slack.responses[hook] for hook in hooks), 20, "the commands' answers")
            served.until(lambda: any(e.get("thread_ts") == bare_ts for e in slack.ephemeral), 20, "@mention #3")
            # The two refusals through the Web API (the @mention's ephemeral, the week's reply),
            # besides the response_url ones above.
            served.until(
                lambda: sum("can't answer" in body for body in replies(slack, ("/api/chat.",))) >= 2,
                20,
                "what merged this week?",
            )
            told = replies(slack) + [ack.text for ack in acks]
            named = sum(text.lower().count(REPO) for text in told)
            leaking = [text for text in told if REPO in text.lower()]
            print(
                f"shared channel: {len(told)} replies to a person who typed no repository; "
                f"{REPO} named {named} times, in {len(leaking)} of them (target: 0)"
            )
            for text in leaking:
                print("  ", text[:160])
            before = len(replies(slack))
            hook, ack = command(base, slack, f"{REPO}#7")
            served.until(lambda: slack.responses[hook], 20, "typed /pr")
            typed = [*replies(slack)[before:], ack.text]
            print(
                f"typed by the person (/pr {REPO}#7): named {sum(t.lower().count(REPO) for t in typed)} times, "
                f"e.g. {slack.responses[hook][-1]['text']!r}"
            )


if __name__ == "__main__":
    main()
