"""The `bot/` modules three flows pass through, and how often each climbs back to a layer it left.

    PYTHONPATH=. .venv/bin/python scripts/flow_paths.py [--modules]

Serves the real Bolt app on loopback (fake Slack, GitHub and model, a private redis-server) for
each flow, runs the flow once to warm every cache and import, then traces it a second time on
fresh data with a profiler on every thread:

- `/pr owner/repo#N`: the signed slash command to the card reaching the response_url;
- the scheduled digest: the scheduler's tick (as the integration tests drive it, against an
  injected clock) to the day's digest and its thread posted in the fake Slack;
- a thread question: a person's reply in a digest's thread to the answer in that thread.

For each flow it prints the distinct `bot/` modules whose functions ran, and its climbs: calls
from a module of one layer into a module of a higher layer (a lower rank below). The caller is
the nearest `bot/` frame under the callee (frames outside `bot/` are skipped, and so is
bot/ops/logs.py's wrapper that carries a request's id onto the pool's threads: it only calls what
it was handed); a lambda or a generated function counts as the file it is defined in. A
generator's body resumed by whoever iterates it is not a call up: values flow down to the caller.
Climbs are told in two kinds: into surfaces or the composition root (a callback up, which the
floors forbid), and into render/ or a feature through a port a lower layer was handed (the words
of bot/ports/wording.py, an answer's sink): inversion by design, shown so it stays visible.
`--modules` lists each flow's modules in the order they were first entered. The driving
thread's waits (the harness polling the app until it is idle) are not traced: they are the
harness's calls, not the flow's.

Layers (rank: lower is higher):
  0 surfaces and composition: bot/slack/ (but web.py and clients.py), bot/http/, bot/cli/,
    bot/jobs/, bot/wiring/
  1 bot/render/
  2 features: every other package of bot/
  3 adapters: bot/store/, bot/sources/, bot/llm/, bot/queue/, bot/ports/, bot/slack/web.py,
    bot/slack/clients.py
  4 pure: bot/core/, bot/models/, bot/words/, bot/ops/, bot/errors.py, bot/settings.py,
    bot/__init__.py
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import re
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from types import FrameType
from typing import Any
from unittest import mock

from devkit.clocks import WallClock
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.redis_server import RedisServer

import bot.core.pacing
from bot.models import DigestOptions, Filters, Window
from tests.integration.conftest import REPO
from tests.integration.slack_harness import DIGEST_CHANNEL, SlackHarness, serve_harness, wait_for
from tests.integration.test_slack_app import card_answer

ROOT = Path(__file__).resolve().parents[1]
BOT = ROOT / "bot"
_BOT_PREFIX = f"{BOT}/"

SURFACES, RENDER, FEATURES, ADAPTERS, PURE = range(5)
LAYER_NAMES = {SURFACES: "surface", RENDER: "render", FEATURES: "feature", ADAPTERS: "adapter", PURE: "pure"}
_SURFACE_PACKAGES = {"slack", "http", "cli", "jobs", "wiring"}
_ADAPTER_PACKAGES = {"store", "sources", "llm", "queue", "ports"}
_ADAPTER_FILES = {"bot/slack/web.py", "bot/slack/clients.py"}
_PURE_PACKAGES = {"core", "models", "words", "ops"}
_PURE_FILES = {"bot/errors.py", "bot/settings.py", "bot/__init__.py"}
# Pass-through frames: they call what they were handed, so the caller is the frame below them.
_TRANSPARENT = {"bot/ops/logs.py"}
_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


def layer(module: str) -> int:
    """The rank of a `bot/…` module path (lower is a higher layer)."""
    if module in _ADAPTER_FILES:
        return ADAPTERS
    if module in _PURE_FILES:
        return PURE
    package = module.split("/")[1]
    if package in _SURFACE_PACKAGES:
        return SURFACES
    if package == "render":
        return RENDER
    if package in _ADAPTER_PACKAGES:
        return ADAPTERS
    if package in _PURE_PACKAGES:
        return PURE
    return FEATURES


@dataclass
class Trace:
    """What one traced run crossed: modules in the order first entered, and its climbs."""

    modules: dict[str, None] = field(default_factory=dict)
    climbs: Counter[tuple[str, str]] = field(default_factory=Counter)


class Tracer:
    """A profiler for every thread started after `install()`: the served app's threads and its
    pools are all started after it. It records only inside `recording()`, and never on a thread
    inside `aside()`."""

    def __init__(self) -> None:
        self._trace: Trace | None = None
        self._aside: set[int] = set()
        self._modules: dict[str, str | None] = {}  # a code object's file: its bot/ path, or None

    def install(self) -> None:
        threading.setprofile(self._profile)
        sys.setprofile(self._profile)

    def uninstall(self) -> None:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]

    @contextlib.contextmanager
    def recording(self) -> Iterator[Trace]:
        self._trace = trace = Trace()
        try:
            yield trace
        finally:
            self._trace = None

    @contextlib.contextmanager
    def aside(self) -> Iterator[None]:
        """The calling thread's calls are not the flow's for the block (the harness waiting)."""
        ident = threading.get_ident()
        self._aside.add(ident)
        try:
            yield
        finally:
            self._aside.discard(ident)

    def _module(self, filename: str) -> str | None:
        try:
            return self._modules[filename]
        except KeyError:
            module = filename[len(str(ROOT)) + 1 :] if filename.startswith(_BOT_PREFIX) else None
            self._modules[filename] = module
            return module

    def _profile(self, frame: FrameType, event: str, arg: object) -> None:
        trace = self._trace
        if trace is None or event != "call":
            return
        callee = self._module(frame.f_code.co_filename)
        if callee is None or threading.get_ident() in self._aside:
            return
        trace.modules.setdefault(callee, None)
        rank = layer(callee)
        if rank == PURE or frame.f_code.co_flags & _GENERATOR_FLAGS:
            return  # nothing is below the lowest layer; a generator resumed is not a call up
        caller_frame = frame.f_back
        while caller_frame is not None:
            caller = self._module(caller_frame.f_code.co_filename)
            if caller is not None and caller not in _TRANSPARENT:
                if layer(caller) > rank:
                    trace.climbs[(caller, callee)] += 1
                return
            caller_frame = caller_frame.f_back


# -- serving -------------------------------------------------------------------------------


@contextlib.contextmanager
def served(*, config_text: str | None = None, now: Callable[[], datetime] | None = None) -> Iterator[SlackHarness]:
    """The app on loopback with its own fakes, redis-server and config directory; all closed
    (and the redis-server stopped) on exit."""
    with contextlib.ExitStack() as stack:
        tmp = stack.enter_context(tempfile.TemporaryDirectory())
        redis = stack.enter_context(RedisServer())
        github = stack.enter_context(FakeGitHub())
        model = stack.enter_context(FakeOpenAI())
        github.add_repo(REPO)
        yield stack.enter_context(serve_harness(github, model, redis.url, Path(tmp), config_text=config_text, now=now))


def add_pr(harness: SlackHarness, number: int, topic: str, merged_at: datetime) -> None:
    harness.github.add_pr(
        REPO,
        number,
        title=f"[Perf] Faster {topic} path number {number}",
        merged_at=merged_at,
        files=[{"path": f"vllm/{topic}/impl_{number}.py", "additions": 30 + number, "deletions": 2}],
    )


def card_or_answer(request: dict[str, Any]) -> dict[str, Any] | str:
    """The fake model: a card for a card's request (as the Slack app's tests make it), a short
    answer for a question."""
    if "response_format" not in request:
        return "It moves the work into `vllm/moe/impl_5.py`."
    return card_answer(request)


def thread_numbers(harness: SlackHarness, channel: str, thread_ts: str) -> set[int]:
    text = " ".join(message.get("text") or "" for message in harness.slack.thread(channel, thread_ts))
    return {int(number) for number in re.findall(r"#(\d+)\b", text)}


# -- the flows -------------------------------------------------------------------------------


PR_FLOW = "/pr lookup"
PR_WARM, PR_TRACED = 1, 2


def pr_lookup(tracer: Tracer) -> Trace:
    """`/pr owner/repo#N` in the digest channel, to the card at the response_url."""
    with served() as harness:
        for number in (PR_WARM, PR_TRACED):
            add_pr(harness, number, "kernel", datetime(2026, 8, 5, 10, number, tzinfo=UTC))

        def ask(number: int) -> None:
            hook, response = harness.command(f"{REPO}#{number}")
            assert response.status_code == 200, response.status_code
            with tracer.aside():
                wait_for(lambda: harness.slack.responses[hook])
                harness.settle()

        ask(PR_WARM)  # warm: imports, clients, caches
        with tracer.recording() as trace:
            ask(PR_TRACED)
    return trace


# Only the digest channel, so that one tick posts one digest.
SCHEDULED_CONFIG = f"""
[defaults]
timezone = "UTC"
post_at = "09:00"

[[channels]]
id = "{DIGEST_CHANNEL}"
repos = ["{REPO}"]
"""


@contextlib.contextmanager
def production_clock_reads(clock: WallClock) -> Iterator[None]:
    """Production's wall clock (`utc_now` of bot/core/pacing.py, the default of Timing.now)
    reading `clock`. The integration tests hand the app a devkit clock instead, a frame outside
    bot/: the features' calls of the clock, callbacks into the composition root, would then go
    unseen here, where they are seen in the other flows, which run on the real clock."""

    class Frozen(datetime):
        @classmethod
        def now(cls, tz=None):
            return clock.now.astimezone(tz)

    with mock.patch.object(bot.core.pacing, "datetime", Frozen):
        yield


def scheduled_digest(tracer: Tracer) -> Trace:
    """The scheduler's tick at the channel's post time, to the day's digest and its thread in
    the fake Slack (a Wednesday and a Thursday: no weekly roll-up is due). The tick does what it
    does every time besides: the merge and release polls, the watch DMs' check."""
    clock = WallClock(datetime(2026, 8, 1, tzinfo=UTC))
    with production_clock_reads(clock), served(config_text=SCHEDULED_CONFIG) as harness:
        harness.model.responder = card_or_answer
        scheduler = harness.parts.scheduler

        def post(day: date, numbers: range) -> None:
            posted_at = datetime(day.year, day.month, day.day, 9, 5, tzinfo=UTC)
            for offset, number in enumerate(numbers):
                add_pr(harness, number, "scheduler", posted_at - timedelta(hours=20 - offset))
            clock.now = posted_at
            leads = len(harness.slack.messages(DIGEST_CHANNEL))
            scheduler.tick()
            with tracer.aside():
                wait_for(lambda: not scheduler.busy, timeout=60)
                harness.settle()
            messages = harness.slack.messages(DIGEST_CHANNEL)
            assert len(messages) == leads + 1, f"the tick of {day} posted {len(messages) - leads} digests"
            shown = thread_numbers(harness, DIGEST_CHANNEL, messages[-1]["ts"])
            assert set(numbers) <= shown, f"the digest of {day} shows {sorted(shown)}, not {list(numbers)}"

        post(date(2026, 8, 5), range(11, 14))  # warm
        with tracer.recording() as trace:
            post(date(2026, 8, 6), range(21, 24))
    return trace


def thread_question(tracer: Tracer) -> Trace:
    """A person's reply in a digest's thread, to the answer posted in that thread."""
    with served() as harness:
        harness.model.responder = card_or_answer
        threads = []
        for day, numbers in ((date(2026, 8, 5), range(1, 4)), (date(2026, 8, 6), range(4, 7))):
            start = datetime(day.year, day.month, day.day, tzinfo=UTC)
            for number in numbers:
                add_pr(harness, number, ["kv-cache", "moe", "sampler"][number % 3], start + timedelta(hours=number))
            result = harness.parts.digests.run(
                DIGEST_CHANNEL,
                day.isoformat(),
                Window(start, start + timedelta(days=1)),
                (REPO,),
                options=DigestOptions("en", Filters(), "note"),
            )
            assert result is not None and result.thread_ts
            threads.append(result.thread_ts)
        harness.settle()

        def ask(thread_ts: str, number: int) -> None:
            before = len(answers(harness, thread_ts))
            _, response = harness.thread_reply(DIGEST_CHANNEL, thread_ts, f"what does #{number} change?")
            assert response.status_code == 200, response.status_code
            with tracer.aside():
                (answer, *_) = wait_for(lambda: answers(harness, thread_ts)[before:], timeout=30)
                harness.settle()
            assert f"#{number}" in str(answer.get("blocks")) + (answer.get("text") or ""), answer

        ask(threads[0], 2)  # warm
        with tracer.recording() as trace:
            ask(threads[1], 5)
    return trace


def answers(harness: SlackHarness, thread_ts: str) -> list[dict[str, Any]]:
    """The bot's settled answers in a thread (not its placeholders, streams or digest parts)."""
    return [
        message
        for message in harness.slack.thread(DIGEST_CHANNEL, thread_ts)
        if message.get("bot_id")
        and message["ts"] != thread_ts
        and harness.settled(message)
        and "Looking into it" not in (message.get("text") or "")
        and not (message.get("metadata") or {}).get("event_type")
    ]


FLOWS: dict[str, Callable[[Tracer], Trace]] = {
    PR_FLOW: pr_lookup,
    "scheduled digest": scheduled_digest,
    "thread question": thread_question,
}


def trace_flows(flows: list[str]) -> dict[str, Trace]:
    if not Path(bot.__file__).resolve().is_relative_to(BOT):
        raise SystemExit(f"bot/ is imported from {bot.__file__}, not {BOT}: put this tree first on PYTHONPATH")
    tracer = Tracer()
    tracer.install()
    try:
        return {name: FLOWS[name](tracer) for name in flows}
    finally:
        tracer.uninstall()


# -- the report ------------------------------------------------------------------------------


def described(module: str) -> str:
    return f"{module} ({layer(module)} {LAYER_NAMES[layer(module)]})"


def callbacks_up(trace: Trace) -> Counter[tuple[str, str]]:
    """The climbs into a surface or the composition root."""
    return Counter({edge: calls for edge, calls in trace.climbs.items() if layer(edge[1]) == SURFACES})


def report(traces: dict[str, Trace], *, modules: bool) -> None:
    print(f"{'flow':<19}{'modules':>8}{'climbs up to surfaces':>23}{'through ports':>15}  (edges/calls)")
    for name, trace in traces.items():
        up = callbacks_up(trace)
        ports = trace.climbs - up
        print(
            f"{name:<19}{len(trace.modules):>8}"
            f"{f'{len(up)}/{sum(up.values())}':>23}{f'{len(ports)}/{sum(ports.values())}':>15}"
        )
    for name, trace in traces.items():
        print(f"\n{name}: {len(trace.climbs)} climb edges (caller -> callee, calls)")
        for (caller, callee), calls in sorted(trace.climbs.items(), key=lambda item: (-item[1], item[0])):
            print(f"  {described(caller)} -> {described(callee)}  {calls}")
        if not trace.climbs:
            print("  none")
    if modules:
        for name, trace in traces.items():
            print(f"\n{name}: {len(trace.modules)} bot/ modules, in the order first entered")
            for module in trace.modules:
                print(f"  {layer(module)} {module}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--modules", action="store_true", help="list each flow's modules")
    args = parser.parse_args(argv)
    report(trace_flows(list(FLOWS)), modules=args.modules)


if __name__ == "__main__":
    main()
