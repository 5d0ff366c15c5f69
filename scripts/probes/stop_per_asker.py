"""Another person's Stop, on a real `prdigest serve --http` (issue 23, item 5).

    PYTHONPATH=. .venv/bin/python scripts/probes/stop_per_asker.py            # the code of this checkout
    PYTHONPATH=. .venv/bin/python scripts/probes/stop_per_asker.py --root DIR # another tree's bot/ (e.g. main's)

Starts a redis-server, fake Slack, GitHub and OpenAI on loopback, posts a digest with `prdigest
digest --post`, then serves `prdigest serve --http` and drives it with signed events: two people
ask in the digest's thread, the fake model holds both answers part-way, the second person presses
Stop (Slack ends their stream and sends agent_session_stopped listing it), then the model goes on.
Printed, for the streamed path and for the placeholder path (Slack refusing streams): whether
the first person's answer was posted whole (target: yes) and the second's stopped (target: yes).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import redis
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack
from devkit.fakes.slack_agent import agent_session_stopped
from devkit.redis_server import RedisServer

from scripts.probes import served
from scripts.probes.served import ROOT

CHANNEL = "C0STOP0001"
REPO = "acme/stops"
DAY = "2026-08-05"
FIRST, SECOND = "U0FIRST001", "U0SECOND02"
SCRIPT = [f"Sentence {letter} of the answer. " for letter in "abcdefghijklmnopqrst"]
WHOLE = "".join(SCRIPT).strip()
WAIT = 30.0  # seconds; a scenario still waiting then prints what it has (a NO)


def card(request: dict[str, Any]) -> Any:
    if "response_format" in request:
        return {"headline": "Fuses the kernels", "verdict": "read", "minutes": 5, "why": [], "caveats": []}
    return "unused: answers are streamed from the script"


class World:
    def __init__(self, root: Path, workdir: Path) -> None:
        self.root, self.workdir = root, workdir
        self.redis = RedisServer()
        self.redis.start()
        self.slack = FakeSlack().start()
        self.github = FakeGitHub().start()
        self.model = FakeOpenAI(responder=card).start()
        self.github.add_repo(REPO)
        self.github.add_pr(
            REPO,
            7,
            title="[Perf] Fuse the kernels",
            body="Decode is 12% faster.",
            merged_at=datetime(2026, 8, 5, 10, tzinfo=UTC),
            files=[{"path": "kernels/fuse.py", "additions": 40, "deletions": 3}],
        )
        config = workdir / "prdigest.toml"
        config.write_text(
            f'[defaults]\ntimezone = "UTC"\n\n[[channels]]\nid = "{CHANNEL}"\nrepos = ["{REPO}"]\n', encoding="utf-8"
        )
        self.env = served.environment(
            config, slack=self.slack, github=self.github, model=self.model, redis_url=self.redis.url
        )
        self.server: served.Served | None = None

    def cli(self, *args: str) -> subprocess.CompletedProcess[bytes]:
        return served.prdigest(self.env, *args, code=self.root)

    def serve(self) -> None:
        self.server = served.Served(self.env, self.workdir, code=self.root)

    def event(self, event: dict[str, Any], event_id: str) -> int:
        assert self.server is not None
        return served.event(self.server.base, event, event_id=event_id).status_code

    def stop_marks(self, *, forget: bool = False) -> list[str]:
        """The Stop marks in Redis (whatever their names: main's or this branch's); `forget`
        deletes them, so a scenario starts with none left by the one before."""
        raw = redis.Redis.from_url(self.redis.url)
        try:
            keys = sorted(key if isinstance(key, str) else key.decode() for key in raw.keys("*stop:*"))
            if forget and keys:
                raw.delete(*keys)
            return keys
        finally:
            raw.close()

    def close(self) -> str:
        err = self.server.stop() if self.server is not None else ""
        for fake in (self.model, self.github, self.slack):
            fake.stop()
        self.redis.stop()
        return err


def reached(slack: FakeSlack, method: str, count: int) -> Callable[[], bool]:
    return lambda: len(slack.calls(method)) >= count


def scenario(world: World, thread_ts: str, path: str, n: int) -> str:
    """Both people ask; the second presses Stop; what each of them ends up with."""
    world.stop_marks(forget=True)
    world.model.go_on.clear()
    world.model.hold_after = 3
    world.model.chunk_delay = 0.05
    world.model.stream_script = SCRIPT
    if path == "placeholder":
        world.slack.fail_next("chat.startStream", "not_allowed", times=2)
    begun = "chat.postMessage" if path == "placeholder" else "chat.startStream"
    before = len(world.slack.calls(begun))
    asked = {}
    for i, user in enumerate((FIRST, SECOND)):
        text = f"what does #7 change? ({path})"
        ts = world.slack.add_message(CHANNEL, text, user=user, thread_ts=thread_ts)
        message = {"type": "message", "channel": CHANNEL, "user": user, "text": text, "ts": ts, "thread_ts": thread_ts}
        world.event(message, f"Ev{n}{i}")
        asked[user] = ts
        served.within(reached(world.slack, begun, before + i + 1), WAIT)
    ours = [m for m in world.slack.thread(CHANNEL, thread_ts) if m.get("bot_id") and m["ts"] > asked[FIRST]]
    by_user: dict[str, str] = {}
    if path == "streamed":
        for message in world.slack.streamed():
            if message["ts"] > asked[FIRST]:
                by_user[message["recipient_user_id"]] = message["ts"]
        streams = world.slack.stop_in_thread(CHANNEL, thread_ts, recipient=SECOND)
    else:
        placeholders = sorted(m["ts"] for m in ours)
        by_user = {FIRST: placeholders[0], SECOND: placeholders[1]}
        streams = []
    world.event(agent_session_stopped(SECOND, CHANNEL, thread_ts, streams), f"Ev{n}9")
    served.within(world.stop_marks, WAIT)  # the Stop is marked in Redis
    world.model.go_on.set()

    def ended(user: str) -> dict[str, Any] | None:
        updates = [call for call in world.slack.calls("chat.update") if call.get("ts") == by_user[user]]
        return updates[-1] if updates else None

    def closed(user: str) -> bool:
        # Every answer's last call: its placeholder edited, or its stream ended (or tidied, refused).
        method = "chat.update" if path == "placeholder" else "chat.stopStream"
        return any(call.get("ts") == by_user[user] for call in world.slack.calls(method))

    served.within(lambda: closed(FIRST) and closed(SECOND), WAIT)
    first = served.within(lambda: ended(FIRST), 5)  # a stream ended whole is then edited into the reply
    second_message = world.slack.message(CHANNEL, by_user[SECOND])
    second = ended(SECOND)
    first_whole = first is not None and WHOLE in str(first.get("text"))
    if path == "streamed":
        second_stopped = second is None and second_message.get("stream") == "stopped_by_user"
    else:
        second_stopped = second is not None and "Stopped" in str(second.get("text")) and WHOLE not in str(second)
    return (
        f"{path}: first person's answer posted whole: {'yes' if first_whole else 'NO'}; "
        f"second person's (who pressed Stop) stopped: {'yes' if second_stopped else 'NO'}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=ROOT, help="the tree whose bot/ is served")
    args = parser.parse_args()
    with TemporaryDirectory() as workdir:
        world = World(args.root.resolve(), Path(workdir))
        try:
            posted = world.cli("digest", REPO, "--date", DAY, "--post", CHANNEL)
            if posted.returncode != 0:
                print(posted.stderr.decode(errors="replace")[-2000:])
                return 1
            (lead, *_rest) = world.slack.messages(CHANNEL)
            world.serve()
            for n, path in enumerate(("streamed", "placeholder")):
                print(scenario(world, lead["ts"], path, n))
        finally:
            err = world.close()
            if "Traceback" in err:
                print(err[-3000:])
    return 0


if __name__ == "__main__":
    sys.exit(main())
