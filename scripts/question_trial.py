"""Ask the questions of tests/questions/asked.jsonl through the real app and score its replies.

    PYTHONPATH=. .venv/bin/python scripts/question_trial.py [--model none|fluent|wrong|all]
        [--json] [--only q07] [--show]

The world the questions are asked in: the clock at 2026-08-14T10:00:00Z (a Friday), a channel
following vllm-project/vllm in UTC (English), the fake GitHub holding the whole shared data set
at its own dates, and the digests of Aug 12 and Aug 13 posted through the app's own posting.
The model (`--model`, default all three, one column each): none (the rules alone), or a scripted
model that answers badly (devkit/fakes/bad_models.py): `fluent` writes prose citing no PR,
`wrong` cites PRs it was not shown and figures none of them has. Both write prose for cards and
readings too, so every card is the rules' as without a model: the runs differ in the answers alone,
and every question should score the same in all three.

The Bolt app is served on loopback as the integration tests serve it (fake Slack, a private
redis-server) and each question is sent as a signed event on its surface: an @mention in the
channel, a reply in the Aug 13 digest's thread, or a message in the asker's DM with the app (the
asker is a member of the channel, in UTC).

A question passes when the reply names every PR of `expect` and none outside `expect` ∪ `also`
(a PR is named by `#N` or by its URL), and, for a count question, states `count`. Every question
is asked as if it were the first in its thread: the digest thread's remembered turns are
forgotten before each one, so a question's score does not depend on the ones asked before it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import sys
import tempfile
import time
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from devkit.fakes import dataset
from devkit.fakes.bad_models import RESPONDERS
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack_agent import im_message
from devkit.redis_server import RedisServer

from bot.models import Window
from tests.integration.conftest import REPO
from tests.integration.slack_harness import DIGEST_CHANNEL, HUMAN, SlackHarness, serve_harness

QUESTIONS = Path(__file__).resolve().parents[1] / "tests" / "questions" / "asked.jsonl"
NOW = datetime(2026, 8, 14, 10, 0, tzinfo=UTC)
DIGEST_DAYS = ("2026-08-12", "2026-08-13")
THREAD_DAY = "2026-08-13"  # "thread" questions are replies in this digest's thread
ASKER_DM = "D0ASKER001"
SURFACES = ("mention", "thread", "dm")
MODELS = ("none", "fluent", "wrong")
LANGS = ("en", "zh")

CONFIG = f"""
[defaults]
timezone = "UTC"
language = "en"

[[channels]]
id = "{DIGEST_CHANNEL}"
repos = ["{REPO}"]
"""

# How long one question may take to be answered; a reply takes well under a second on loopback.
REPLY_TIMEOUT = 20.0
# After the app has gone idle with no reply, how long to keep looking before calling it silent.
SILENCE = 1.0

_PR_URL = re.compile(r"https?://[^\s|>]*/pull/(\d+)")
_PR_HASH = re.compile(r"(?<!&)#(\d+)\b")  # `#123`, `owner/repo#123`; not an HTML entity
_CODE = re.compile(r"`[^`\n]*`")  # literal syntax, as in the help's `/pr owner/repo#123`
_NUMBER = re.compile(r"(?<![\d.])(\d[\d,]*)(?![\d.])")
_NOISE = re.compile(
    r"<[^>]*>"  # Slack links and mentions: <url|label>, <@U…>, <#C…>
    r"|https?://\S+"
    r"|#\d+"
    r"|\b\d{4}-\d{2}-\d{2}(?:T[\d:]+Z?)?"  # dates and times
    r"|\b\d{1,2}:\d{2}\b"
)
_UNREAD = {"value", "action_id", "block_id", "type", "style", "image_url"}
_NONE_SAID = re.compile(r"\b(?:no|none|nothing|zero)\b|没有|无", re.IGNORECASE)


@dataclass(frozen=True)
class Asked:
    id: str
    lang: str
    surface: str
    question: str
    expect: tuple[int, ...]
    also: tuple[int, ...]
    count: int | None
    note: str


@dataclass(frozen=True)
class Outcome:
    asked: Asked
    reply: str
    named: tuple[int, ...]
    numbers: tuple[int, ...]
    missing: tuple[int, ...]
    extra: tuple[int, ...]
    count_stated: bool | None  # None: not a count question
    seconds: float

    @property
    def passed(self) -> bool:
        return not self.missing and not self.extra and self.count_stated is not False


def load_questions(path: Path = QUESTIONS) -> list[Asked]:
    asked = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        asked.append(
            Asked(
                id=row["id"],
                lang=row["lang"],
                surface=row["surface"],
                question=row["question"],
                expect=tuple(row["expect"]),
                also=tuple(row["also"]),
                count=row["count"],
                note=row["note"],
            )
        )
    return asked


# -- reading a reply ---------------------------------------------------------------------------


def visible_text(node: Any) -> list[str]:
    """Every string a person reads in a message's blocks: text, link targets, labels (a
    button's `value`, ids and types are not read, so they are left out)."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [text for item in node for text in visible_text(item)]
    if isinstance(node, dict):
        return [text for key, value in node.items() if key not in _UNREAD for text in visible_text(value)]
    return []


def message_text(message: dict[str, Any]) -> str:
    """What a person reads: the blocks when there are any (the text is then only the
    notification's fallback), else the text."""
    blocks = visible_text(message.get("blocks") or [])
    return "\n".join(part for part in blocks if part) if blocks else message.get("text") or ""


def named_prs(text: str) -> tuple[int, ...]:
    """The PRs a reply names, by `#N` or by a link to the PR; code spans are literal syntax
    (the help's `/pr owner/repo#123`), not PRs."""
    text = _CODE.sub(" ", text)
    numbers = {int(n) for n in _PR_URL.findall(text)} | {int(n) for n in _PR_HASH.findall(text)}
    return tuple(sorted(numbers))


def stated_numbers(text: str) -> tuple[int, ...]:
    """The numbers a reply states, apart from PR numbers, links, dates and times."""
    plain = _NOISE.sub(" ", _CODE.sub(" ", text))
    return tuple(sorted({int(n.replace(",", "")) for n in _NUMBER.findall(plain)}))


def count_stated(text: str, count: int) -> bool:
    if count in stated_numbers(text):
        return True
    return count == 0 and bool(_NONE_SAID.search(_NOISE.sub(" ", text)))


def score(asked: Asked, reply: str, seconds: float) -> Outcome:
    named = named_prs(reply)
    allowed = set(asked.expect) | set(asked.also)
    return Outcome(
        asked=asked,
        reply=reply,
        named=named,
        numbers=stated_numbers(reply),
        missing=tuple(n for n in asked.expect if n not in named),
        extra=tuple(n for n in named if n not in allowed),
        count_stated=None if asked.count is None else count_stated(reply, asked.count),
        seconds=seconds,
    )


# -- the world ---------------------------------------------------------------------------------


@contextlib.contextmanager
def served(tmp: Path, model: str = "none") -> Iterator[SlackHarness]:
    """The app on loopback over fake Slack and GitHub and a private redis-server, as the
    integration tests serve it. `model` "none": no model configured, every card and answer is
    made by the rules (a fake model is served all the same, only so that the trial can report
    that nothing asked it); else the app asks the scripted model of that name."""
    responder = RESPONDERS[model] if model != "none" else None
    with RedisServer() as redis, FakeGitHub() as github, FakeOpenAI(responder=responder) as fake:
        dataset.populate(github, dataset.load_rows(), repo=REPO)
        with serve_harness(
            github, fake, redis.url, tmp, config_text=CONFIG, now=lambda: NOW, with_model=model != "none"
        ) as harness:
            yield harness


def post_digests(harness: SlackHarness) -> dict[str, str]:
    """The digests of DIGEST_DAYS posted by the channel's own plan, each covering its UTC day;
    returns each day's thread ts."""
    plan = harness.home.directory.plan(DIGEST_CHANNEL)
    if plan is None:
        raise SystemExit(f"{DIGEST_CHANNEL} has no plan: the trial's config was not read")
    threads = {}
    for day in DIGEST_DAYS:
        start = datetime.fromisoformat(day).replace(tzinfo=UTC)
        result = harness.home.digests.run_plan(plan, Window(start, start + timedelta(days=1)), day)
        if result is None or result.thread_ts is None:
            raise SystemExit(f"the digest of {day} was not posted")
        threads[day] = result.thread_ts
    harness.settle()
    return threads


def forget_thread_turns(harness: SlackHarness, thread_ts: str) -> None:
    """Each question asked as the first in the digest's thread: the app remembers a thread's
    earlier turns (store/threads.py, `turns:<channel>:<thread_ts>`), which would make a
    question's reply depend on the questions asked before it."""
    harness.services.kv.delete(f"turns:{DIGEST_CHANNEL}:{thread_ts}")
    if harness.threads.turns(DIGEST_CHANNEL, thread_ts):
        raise SystemExit("the digest thread's turns are no longer kept where this trial forgets them")


def send(harness: SlackHarness, asked: Asked, digest_ts: str) -> str:
    """The question sent on its surface; returns the channel it was asked in."""
    if asked.surface == "mention":
        _, response = harness.mention(DIGEST_CHANNEL, asked.question)
        channel = DIGEST_CHANNEL
    elif asked.surface == "thread":
        forget_thread_turns(harness, digest_ts)
        _, response = harness.thread_reply(DIGEST_CHANNEL, digest_ts, asked.question)
        channel = DIGEST_CHANNEL
    elif asked.surface == "dm":
        ts = harness.slack.add_message(ASKER_DM, asked.question, user=HUMAN)
        response = harness.event(im_message(HUMAN, ASKER_DM, asked.question, ts))
        channel = ASKER_DM
    else:
        raise SystemExit(f"{asked.id}: unknown surface {asked.surface!r}")
    if response.status_code != 200:
        raise SystemExit(f"{asked.id}: the app answered {response.status_code} to the event")
    return channel


def reply_to(harness: SlackHarness, channel: str, seen: set[str], ephemeral_before: int) -> str:
    """What the bot said after the question: its new messages in the channel (posted, updated or
    streamed; in any thread), and what it told the asker alone, once the app has settled."""

    def said() -> list[dict[str, Any]]:
        new = [m for m in harness.slack.all_messages() if m["channel"] == channel and m.get("bot_id")]
        return [m for m in new if m["ts"] not in seen] + harness.slack.ephemeral[ephemeral_before:]

    deadline = time.monotonic() + REPLY_TIMEOUT
    quiet_since: float | None = None
    while time.monotonic() < deadline:
        messages = said()
        if harness.parts.idle() and all(harness.settled(m) for m in messages if "ts" in m):
            if messages:
                break
            quiet_since = quiet_since or time.monotonic()
            if time.monotonic() - quiet_since > SILENCE:
                break
        else:
            quiet_since = None
        time.sleep(0.02)
    return "\n---\n".join(message_text(m) for m in said())


def ask(harness: SlackHarness, asked: Asked, digest_ts: str) -> Outcome:
    seen = {m["ts"] for m in harness.slack.all_messages()}
    ephemeral_before = len(harness.slack.ephemeral)
    started = time.monotonic()
    channel = send(harness, asked, digest_ts)
    reply = reply_to(harness, channel, seen, ephemeral_before)
    return score(asked, reply, time.monotonic() - started)


def run(questions: list[Asked], model: str = "none") -> tuple[list[Outcome], dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp, served(Path(tmp), model) as harness:
        # The asker is a member of the channel and reads days in UTC, as the channel does.
        harness.slack.members[DIGEST_CHANNEL] = [HUMAN]
        harness.slack.zones[HUMAN] = "UTC"
        threads = post_digests(harness)
        outcomes = [ask(harness, asked, threads[THREAD_DAY]) for asked in questions]
        world = {
            "model": model,
            "now": NOW.isoformat().replace("+00:00", "Z"),
            "digests": sorted(threads),
            "model_calls": harness.model.calls,
            "slack_rejections": [str(problem) for problem in harness.slack.rejections],
        }
    return outcomes, world


# -- the report --------------------------------------------------------------------------------


def share(outcomes: list[Outcome]) -> dict[str, Any]:
    passed = sum(1 for outcome in outcomes if outcome.passed)
    total = len(outcomes)
    return {"passed": passed, "total": total, "percent": round(100 * passed / total, 1) if total else 0.0}


def summary(outcomes: list[Outcome]) -> dict[str, Any]:
    return {
        "all": share(outcomes),
        "by_lang": {lang: share([o for o in outcomes if o.asked.lang == lang]) for lang in LANGS},
        "by_surface": {surface: share([o for o in outcomes if o.asked.surface == surface]) for surface in SURFACES},
    }


def as_data(outcomes: list[Outcome], world: dict[str, Any], show: bool) -> dict[str, Any]:
    rows = []
    for outcome in outcomes:
        asked = outcome.asked
        row: dict[str, Any] = {
            "id": asked.id,
            "lang": asked.lang,
            "surface": asked.surface,
            "question": asked.question,
            "expect": list(asked.expect),
            "also": list(asked.also),
            "count": asked.count,
            "got": list(outcome.named),
            "numbers": list(outcome.numbers),
            "missing": list(outcome.missing),
            "extra": list(outcome.extra),
            "count_stated": outcome.count_stated,
            "pass": outcome.passed,
            "seconds": round(outcome.seconds, 2),
        }
        if show:
            row["reply"] = outcome.reply
        rows.append(row)
    return {"world": world, "questions": rows, "score": summary(outcomes)}


def differing(runs: dict[str, tuple[list[Outcome], dict[str, Any]]]) -> list[str]:
    """The questions that pass in some of the runs and fail in others."""
    passed = [[outcome.passed for outcome in outcomes] for outcomes, _ in runs.values()]
    ids = [outcome.asked.id for outcome in next(iter(runs.values()))[0]]
    return [ids[i] for i in range(len(ids)) if len({run[i] for run in passed}) > 1]


def as_json(runs: dict[str, tuple[list[Outcome], dict[str, Any]]], show: bool) -> str:
    """One run: its world, questions and score, as before; several: each under its model's name,
    and the questions whose score differs between them."""
    if len(runs) == 1:
        ((outcomes, world),) = runs.values()
        return json.dumps(as_data(outcomes, world, show), ensure_ascii=False, indent=2)
    data = {
        "models": {model: as_data(outcomes, world, show) for model, (outcomes, world) in runs.items()},
        "differ": differing(runs),
    }
    return json.dumps(data, ensure_ascii=False, indent=2)


def _columns(char: str) -> int:
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1  # CJK takes two in a terminal


def _cell(value: str, width: int) -> str:
    """`value` in exactly `width` terminal columns: padded, or cut with an ellipsis."""
    if sum(_columns(char) for char in value) > width:
        cut, used = "", 0
        for char in value:
            if used + _columns(char) > width - 1:
                break
            cut, used = cut + char, used + _columns(char)
        value = cut + "…"
    return value + " " * (width - sum(_columns(char) for char in value))


def _numbers(values: tuple[int, ...], count: int | None = None) -> str:
    text = " ".join(str(n) for n in values) or "-"
    return text if count is None else f"{text} (count {count})"


def _said(part: dict[str, Any]) -> str:
    return f"{part['passed']} of {part['total']} ({part['percent']}%)"


def _score_lines(outcomes: list[Outcome], world: dict[str, Any], prefix: str = "") -> list[str]:
    scores = summary(outcomes)
    return [
        f"{prefix}score: {_said(scores['all'])}",
        prefix + "by language: " + ", ".join(f"{k} {_said(v)}" for k, v in scores["by_lang"].items() if v["total"]),
        prefix + "by surface: " + ", ".join(f"{k} {_said(v)}" for k, v in scores["by_surface"].items() if v["total"]),
        f"{prefix}world: now {world['now']}, digests {', '.join(world['digests'])} posted; "
        f"model calls {world['model_calls']}; Slack rejections {len(world['slack_rejections'])}",
    ]


def as_table(runs: dict[str, tuple[list[Outcome], dict[str, Any]]], show: bool) -> str:
    """One run: each question's PRs expected and got; several: whether it passes in each."""
    if len(runs) > 1:
        return _modes_table(runs, show)
    ((outcomes, world),) = runs.values()
    head = (
        f"{'id':<4} {'lang':<4} {'surface':<7} {_cell('question', 44)} {_cell('expected', 30)} {_cell('got', 30)} pass"
    )
    lines = [head, "-" * len(head)]
    for outcome in outcomes:
        asked = outcome.asked
        got = _numbers(outcome.named)
        if asked.count is not None:
            got += " (count said)" if outcome.count_stated else " (count not said)"
        lines.append(
            f"{asked.id:<4} {asked.lang:<4} {asked.surface:<7} {_cell(asked.question, 44)} "
            f"{_cell(_numbers(asked.expect, asked.count), 30)} {_cell(got, 30)} {'yes' if outcome.passed else 'no'}"
        )
        if show:
            lines.extend("      | " + line for line in (outcome.reply or "(no reply)").splitlines())
    return "\n".join([*lines, "", *_score_lines(outcomes, world)])


def _modes_table(runs: dict[str, tuple[list[Outcome], dict[str, Any]]], show: bool) -> str:
    models = list(runs)
    head = f"{'id':<4} {'lang':<4} {'surface':<7} {_cell('question', 44)} {_cell('expected', 30)} " + " ".join(
        f"{model:<6}" for model in models
    )
    lines = [head, "-" * len(head)]
    columns = [runs[model][0] for model in models]
    for i, outcome in enumerate(columns[0]):
        asked = outcome.asked
        passes = " ".join(f"{'yes' if column[i].passed else 'no':<6}" for column in columns)
        lines.append(
            f"{asked.id:<4} {asked.lang:<4} {asked.surface:<7} {_cell(asked.question, 44)} "
            f"{_cell(_numbers(asked.expect, asked.count), 30)} {passes}"
        )
        if show:
            for model, column in zip(models, columns, strict=True):
                reply = column[i].reply or "(no reply)"
                lines.extend(f"      {model:>6} | " + line for line in reply.splitlines())
    lines.append("")
    for model in models:
        outcomes, world = runs[model]
        lines.extend(_score_lines(outcomes, world, prefix=f"{model}: "))
    differ = differing(runs)
    lines.append(f"scored differently: {', '.join(differ) if differ else 'none'}")
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--model",
        choices=(*MODELS, "all"),
        default="all",
        help="no model, a scripted model that answers badly, or all three (default: %(default)s)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--only", action="append", default=[], metavar="ID", help="ask only this question (repeatable)")
    parser.add_argument("--show", action="store_true", help="also print each reply's text")
    parser.add_argument("--questions", type=Path, default=QUESTIONS, help="the question set (default: %(default)s)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    questions = load_questions(args.questions)
    if args.only:
        unknown = set(args.only) - {asked.id for asked in questions}
        if unknown:
            raise SystemExit(f"no such question: {', '.join(sorted(unknown))}")
        questions = [asked for asked in questions if asked.id in args.only]
    models = MODELS if args.model == "all" else (args.model,)
    runs = {model: run(questions, model) for model in models}
    print(as_json(runs, args.show) if args.json else as_table(runs, args.show))
    return 0


if __name__ == "__main__":
    sys.exit(main())
