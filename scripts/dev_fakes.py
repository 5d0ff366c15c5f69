"""Serve a fake GitHub (filled from the vLLM data set) and a fake OpenAI on loopback for manual runs.

    .venv/bin/python scripts/dev_fakes.py --date 2026-08-05

prints the `export ...` lines that point prdigest at the fakes, then serves until Ctrl-C or
SIGTERM and prints how many requests each fake got. With --date, GitHub holds only the PRs
merged up to the end of that UTC day: the world as it looked when that day's digest was made.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import signal
import sys
import tempfile
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import FrameType
from typing import Any

from devkit.fakes import dataset
from devkit.fakes.dataset_releases import add_releases
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.slack import FakeSlack

_SKIP_WORDS = ("[ci]", "[doc", "typo")
_READ_WORDS = ("[perf]", "[kernel]", "[feature]", "[model]")
_MINUTES = {"skip": 1, "skim": 3, "read": 8}


# Where the answer prompt's material names what it holds (core/prompting/context.py, core/prompting/conversation.py).
_FILE_HEADER = re.compile(r"^### (\S+) \(", re.MULTILINE)
_DIGEST_LINE = re.compile(r"^\S+/\S+#(\d+) \[\w+\] (.+)$", re.MULTILINE)
# How many files or PRs the fake's answer names: a short answer, as the prompt asks.
_NAMED = 3


def _text(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, list):  # content parts: [{"type": "text", "text": ...}, ...]
        content = "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content)


def title_of(request: dict[str, Any]) -> str:
    """The `Title: ` line of the user messages (the card's data, or a question's material), or ""."""
    for message in request.get("messages", []):
        if message.get("role") != "user":
            continue
        for line in _text(message).splitlines():
            if line.startswith("Title: "):
                return line.removeprefix("Title: ").strip()
    return ""


def schema_of(request: dict[str, Any]) -> dict[str, Any] | None:
    """The JSON schema a request asks the answer to fill (json_schema, or a forced tool), else None."""
    format_ = request.get("response_format") or {}
    if format_.get("type") == "json_schema":
        return dict(format_.get("json_schema", {}).get("schema") or {})
    if format_.get("type") == "json_object":
        return dict(format_.get("schema") or {})
    tools = request.get("tools") or []
    return dict(tools[0].get("function", {}).get("parameters") or {}) if tools else None


def respond(request: dict[str, Any]) -> dict[str, Any] | str:
    """What a chat model answers: JSON that fills the schema a request gives (a card for the card
    writer; for the question reader, a reading that reads nothing more than the rules did), and
    words to a question, which asks for no schema (OpenAI's structured outputs guide: without
    `response_format`, the reply is the model's text)."""
    schema = schema_of(request)
    if schema is None:
        return answer_for(request)
    properties: dict[str, Any] = schema.get("properties") or {}
    if "headline" in properties:
        return card_for(request)
    return {
        name: field.get("default", [] if field.get("type") == "array" else None) for name, field in properties.items()
    }


def answer_for(request: dict[str, Any]) -> str:
    """An answer in words from the material it was given: the PR's files, or the PRs of a digest."""
    material = "\n".join(_text(m) for m in request.get("messages", [])[:-1] if m.get("role") == "user")
    title = title_of(request)
    if title:
        files = ", ".join(f"`{path}`" for path in _FILE_HEADER.findall(material)[:_NAMED])
        changes = f" It changes {files}." if files else ""
        return f"{title}.{changes} (An answer from the dev fake, not a real model.)"
    prs = "; ".join(f"#{number} ({name.strip()})" for number, name in _DIGEST_LINE.findall(material)[:_NAMED])
    if prs:
        return f"The PRs shown include {prs}. (An answer from the dev fake, not a real model.)"
    return "The PR does not say. (An answer from the dev fake, not a real model.)"


def card_for(request: dict[str, Any]) -> dict[str, Any]:
    """A plausible card from the PR title alone: a stand-in for a model, good enough to eyeball."""
    title = title_of(request)
    lowered = title.lower()
    if any(word in lowered for word in _SKIP_WORDS):
        verdict = "skip"
    elif any(word in lowered for word in _READ_WORDS):
        verdict = "read"
    else:
        verdict = "skim"
    return {
        "headline": f"{title or 'This change'}: summarised by the fake model"[:200],
        "verdict": verdict,
        "minutes": _MINUTES[verdict],
        "why": [f"Verdict '{verdict}' picked from title keywords (dev fake, no real model)."],
        "caveats": [],
        "watch": [],
    }


def _day(text: str) -> str:
    try:
        return datetime.strptime(text, "%Y-%m-%d").strftime("%Y-%m-%d")
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a day as YYYY-MM-DD: {text!r}") from None


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", type=Path, default=dataset.DATASET_PATH, help="JSONL rows (default: %(default)s)")
    parser.add_argument("--repo", default="vllm-project/vllm", help="repository the PRs belong to")
    parser.add_argument("--date", type=_day, help="YYYY-MM-DD: serve only PRs merged by the end of this UTC day")
    parser.add_argument(
        "--ends-now",
        action="store_true",
        help="with --date: shift every merge time so that day ends now (for `prdigest digest REPO --since 24h`)",
    )
    parser.add_argument(
        "--anonymous", action="store_true", help="GitHub's limit without a token: 60 requests, and no GITHUB_TOKEN"
    )
    parser.add_argument("--slack", action="store_true", help="also a fake Slack Web API (for --post and serve)")
    parser.add_argument("--slack-pacing", action="store_true", help="fake Slack answers 429 to >1 message/s/channel")
    parser.add_argument("--github-port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--openai-port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--github-latency", type=float, default=0.05, help="seconds per GitHub request")
    parser.add_argument("--model-latency", type=float, default=2.0, help="seconds per model request")
    args = parser.parse_args(argv)
    if args.ends_now and not args.date:
        parser.error("--ends-now moves the day given by --date: add --date YYYY-MM-DD")
    return args


def shifted(rows: list[dict[str, Any]], delta: timedelta) -> list[dict[str, Any]]:
    def move(row: dict[str, Any]) -> dict[str, Any]:
        moment = dataset.parse_time(row["merged_at"]) + delta
        return {**row, "merged_at": moment.strftime("%Y-%m-%dT%H:%M:%SZ")}

    return [move(row) for row in rows]


def banner(rows: list[dict[str, Any]], repo: str, day: str | None, ends_now: bool) -> str:
    """What the fake GitHub serves, counted on the data set's own days (before --ends-now moves them)."""
    days = sorted({row["merged_at"][:10] for row in rows})
    span = f"{days[0]} to {days[-1]}" if days else "no day"
    line = f"# fake GitHub: {len(rows)} merged PRs of {repo} over {len(days)} days ({span})"
    if day:
        line += f", {len(dataset.merged_on(rows, day))} of them merged on {day}"
        if ends_now:
            line += ", moved into the 24 hours that end now"
    return line


def report_slack(slack: FakeSlack) -> None:
    messages = slack.all_messages()
    threads = sum(1 for message in messages if message["thread_ts"])
    print(f"# Slack messages: {len(messages)} ({len(messages) - threads} top-level, {threads} in threads)")
    print(f"# Slack rejections: {len(slack.rejections)}; warnings: {len(slack.warnings)}", flush=True)
    for problem in [*slack.rejections, *slack.warnings][:10]:
        print(f"#   {problem}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        rows = dataset.load_rows(args.dataset)
    except dataset.DatasetMissing as exc:
        print(f"dev_fakes: {exc}", file=sys.stderr)
        return 2
    end = None
    if args.date:
        end = datetime.strptime(args.date, "%Y-%m-%d").replace(tzinfo=UTC) + timedelta(days=1)
        rows = [row for row in rows if dataset.parse_time(row["merged_at"]) < end]
    heading = banner(rows, args.repo, args.date, args.ends_now)
    shift = datetime.now(UTC) - end if end is not None and args.ends_now else timedelta()
    if shift:
        rows = shifted(rows, shift)

    github = FakeGitHub(latency=args.github_latency, port=args.github_port)
    model = FakeOpenAI(latency=args.model_latency, port=args.openai_port, responder=respond)
    dataset.populate(github, rows, repo=args.repo)
    tags = add_releases(github, args.repo, until=end, shift=shift)
    if args.anonymous:
        github.anonymous()  # GitHub's 60 an hour, stated in X-RateLimit-Limit as GitHub states it

    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    slack = FakeSlack()
    slack.enforce_pacing = args.slack_pacing

    with (
        github,
        model,
        contextlib.ExitStack() as stack,
        tempfile.TemporaryDirectory(prefix="prdigest-fakes-") as cache_dir,
    ):
        if args.slack:
            stack.enter_context(slack)
        print(heading)
        print(f"# fake GitHub releases: {', '.join(tags) or 'none'}")
        print(f"export GITHUB_API_URL={github.url}")
        print("unset GITHUB_TOKEN" if args.anonymous else "export GITHUB_TOKEN=test")
        print(f"export OPENAI_BASE_URL={model.url}/v1")
        print("export OPENAI_API_KEY=test")
        # A cache of the trial's own: the fake's PRs carry vLLM's real merge SHAs, so the fake
        # model's cards must not land in the cache a real run reads.
        print(f"export PRDIGEST_CACHE={cache_dir}/cache.sqlite3")
        if args.slack:
            print(f"export SLACK_API_URL={slack.api_url}")
            print(f"export SLACK_BOT_TOKEN={slack.bot_token}")
            print("export SLACK_SIGNING_SECRET=dev-secret")
        print("# serving; Ctrl-C to stop", flush=True)
        while not stop.wait(0.5):  # a timed wait, so the signal handler gets to run promptly
            pass
        counts = github.counts_by_kind()
        print(f"\n# GitHub requests: {github.count()}", ", ".join(f"{k}={v}" for k, v in sorted(counts.items())))
        print(f"# model calls: {model.calls}", flush=True)
        if args.slack:
            report_slack(slack)
    return 0


if __name__ == "__main__":
    sys.exit(main())
