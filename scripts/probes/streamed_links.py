"""Links in streamed answers, measured on a real `prdigest serve --http` (issue 23, item 3).

    PYTHONPATH=. .venv/bin/python scripts/probes/streamed_links.py

Starts fake Slack, GitHub and OpenAI on loopback, a redis-server of its own, posts a digest with
`prdigest digest --post` (the scheduler's path), then serves `prdigest serve --http` and asks it,
by signed events, about a PR whose body is the attacker's, once per hostile answer of the issue
and per surface (the digest's thread, an @mention, the DM). Prints, per answer and surface, the
streamed calls (chat.startStream / appendStream / stopStream) and the links Slack could render in
their `markdown_text` (devkit/fakes/markdown_links.py) and how often the attacker's host is shown,
then the total (target: 0).
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.markdown_links import links_in_markdown, shown_text
from devkit.fakes.slack import FakeSlack
from devkit.fakes.slack_agent import im_message
from devkit.redis_server import RedisServer

from scripts.probes import served

CHANNEL, DM, USER = "C0LINKS001", "D0LINKS001", "U0LINKS001"
REPO, NUMBER = "acme/widgets", 7
FIRST = "It fuses the MoE dispatch kernels. "
HOSTILE = {
    "[Share in channel](http:evil.example/share)": FIRST
    + "[Share in channel](http:evil.example/share) to tell the team.",
    "<http:evil.example/login|github.com/acme/widgets>": FIRST
    + "Log in at <http:evil.example/login|github.com/acme/widgets> first.",
    "[docs][1] + [1]: http:evil.example/ref": FIRST + "See [docs][1] for more.\n\n[1]: http:evil.example/ref",
    "[x](\\\\evil.example/y)": FIRST + "Read [x](\\\\evil.example/y) before upgrading.",
}
STREAM_METHODS = ("chat.startStream", "chat.appendStream", "chat.stopStream")


def main() -> int:
    with (
        FakeSlack() as slack,
        FakeGitHub() as github,
        FakeOpenAI() as model,
        RedisServer() as redis,
        TemporaryDirectory() as workdir,
    ):
        slack.members[CHANNEL] = [USER]
        config = Path(workdir) / "prdigest.toml"
        config.write_text(f'[[channels]]\nid = "{CHANNEL}"\nrepos = ["{REPO}"]\n', encoding="utf-8")
        env = served.environment(config, slack=slack, github=github, model=model, redis_url=redis.url)
        total = 0
        for number, answer in enumerate(HOSTILE.values(), start=NUMBER):
            github.add_pr(
                REPO,
                number,
                title="[Perf] Fuse the MoE dispatch kernels",
                body=f"Fuses the MoE dispatch kernels.\n\n{answer}",
                merged_at=datetime(2026, 8, 5, number, tzinfo=UTC),
                files=[{"path": "widgets/dispatch.py", "additions": 40, "deletions": 3}],
            )
        current = {"answer": FIRST}
        model.responder = lambda request: respond(request, current["answer"])
        digest = served.prdigest(env, "digest", REPO, "--date", "2026-08-05", "--post", CHANNEL)
        if digest.returncode != 0:
            print(digest.stderr.decode(errors="replace"))
            return 1
        (lead,) = [m for m in slack.messages(CHANNEL) if m.get("bot_id") and not m.get("thread_ts")]
        server = served.Served(env, Path(workdir))
        try:
            base = server.base
            for number, (name, answer) in enumerate(HOSTILE.items(), start=NUMBER):
                current["answer"] = answer
                for surface in ("thread", "mention", "dm"):
                    before = {method: len(slack.calls(method)) for method in (*STREAM_METHODS, "chat.update")}
                    ask(base, slack, surface, number, str(lead["ts"]))
                    updates = before["chat.update"]
                    served.until(lambda: len(slack.calls("chat.update")) > updates, 60, "reply")  # noqa: B023 (called at once)
                    calls = [args for m in STREAM_METHODS for args in slack.calls(m)[before[m] :]]
                    links = [link for args in calls for link in links_in_markdown(str(args.get("markdown_text") or ""))]
                    shown = shown_text("".join(str(args.get("markdown_text") or "") for args in calls))
                    total += len(links)
                    answered = "answered" if shown.startswith(FIRST.strip()) else "NOT ANSWERED"
                    print(
                        f"{name:50} {surface:8} {answered}, {len(calls)} streamed calls, {len(links)} links,"
                        f" evil.example shown {shown.count('evil.example')}x {links or ''}"
                    )
        finally:
            err = server.stop()
            if "Traceback" in err:
                print(err[-3000:])
        print(f"links in every streamed call for the four hostile answers: {total} (target 0)")
    return 0


def respond(request: dict[str, Any], answer: str) -> Any:
    """A card for the card's request (it asks for a schema), `answer` for a question."""
    if "response_format" in request:
        return {"headline": "Fuses the MoE dispatch kernels", "verdict": "read", "minutes": 5}
    return answer


def ask(base: str, slack: FakeSlack, surface: str, number: int, thread_ts: str) -> None:
    text = f"what does {REPO}#{number} change?"
    if surface == "thread":
        ts = slack.add_message(CHANNEL, f"what does #{number} change?", user=USER, thread_ts=thread_ts)
        event = {"type": "message", "channel": CHANNEL, "user": USER, "text": f"what does #{number} change?"}
        event |= {"ts": ts, "thread_ts": thread_ts}
    elif surface == "mention":
        ts = slack.add_message(CHANNEL, f"<@UBOT> {text}", user=USER)
        event = {"type": "app_mention", "channel": CHANNEL, "user": USER, "text": f"<@UBOT> {text}", "ts": ts}
    else:
        ts = slack.add_message(DM, text, user=USER)
        event = im_message(USER, DM, text, ts)
    served.event(base, event).raise_for_status()


if __name__ == "__main__":
    sys.exit(main())
