"""The eight example PRs, and a question about one, through a real model server.

`make e2e-model` starts llama-cpp-python's server with a small local model and runs this. The
PRs come from shared/data (titles, descriptions, file lists; patches synthesised from the
counts) through the loopback fake GitHub; the model is real. Every card must come from the
model (source llm), sanitised, with unsupported figures cut: a small model writes poor text, so
what is measured is that prdigest gets a valid card out of it every time.
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import openai
from devkit.fakes import dataset
from devkit.fakes.github import FakeGitHub
from devkit.tables import table

from bot.core.checks.sanitize import sanitize_answer
from bot.core.usage import Tally
from bot.errors import SummarizerError
from bot.models import Audience, Card, DigestItem, PRRef, PRSnapshot, Question
from bot.ports import StreamingModel
from bot.questions.ask import ask_about_pr
from bot.settings import load_settings
from bot.wiring.process import Process, build_process
from bot.wiring.timing import Timing

REPO = "vllm-project/vllm"
SEEDS = dataset.DATASET_PATH.with_name("seed-prs.json")
QUESTION = "What does this PR change, and what should a reviewer check?"
# The model's table in the config: its window (the server's --n_ctx), a cap on each answer (a
# small model may otherwise fill the window with one string), sampling fixed so that a run can be
# repeated, and the instructions in the user's turn (the server runs Gemma's chat format, which
# drops system messages). The output mode is left to negotiation unless --mode pins one.
MODEL_TABLE = """\
[models."{model}"]
context_window = {window}
max_output_tokens = 1024
temperature = 0.2
seed = 7
system_role = false
"""


def seed_rows() -> list[dict[str, Any]]:
    """The example PRs as data-set rows, with the seed file's description as their body."""
    seeds = {seed["number"]: seed for seed in json.loads(SEEDS.read_text(encoding="utf-8"))["seeds"] if seed["found"]}
    rows = [row for row in dataset.load_rows() if row["number"] in seeds]
    for row in rows:
        seed = seeds[row["number"]]
        row["body"] = f"{seed['description']}\n\n{seed.get('verified_in_git', '')}".strip()
    return rows


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds a card may wait (default: %(default)s)")
    parser.add_argument("--out", type=Path, help="also write the cards as JSON here")
    parser.add_argument("--context-window", type=int, default=16384, help="the server's --n_ctx (default: %(default)s)")
    parser.add_argument("--mode", choices=("json_schema", "tools", "json_object", "text"), help="pin the output mode")
    parser.add_argument("--only", type=int, help="the first N example PRs only")
    parser.add_argument(
        "--questions", action="store_true", help="also the model's reading of questions and an across-days answer"
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    rows = seed_rows()[: args.only]
    # Why a card fell back, or was asked for again, is what a run is read for.
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s")
    for feature in ("bot.cards", "bot.questions"):
        logging.getLogger(feature).setLevel(logging.INFO)
    results: list[dict[str, Any]] = []
    with FakeGitHub() as github, tempfile.TemporaryDirectory() as scratch:
        dataset.populate(github, rows, REPO)
        config = Path(scratch) / "prdigest.toml"
        table_text = MODEL_TABLE.format(model=args.model, window=args.context_window)
        if args.mode:
            table_text += f'mode = "{args.mode}"\n'
        config.write_text(table_text, encoding="utf-8")
        env = {
            "GITHUB_API_URL": github.url,
            "GITHUB_TOKEN": "e2e",
            "OPENAI_API_KEY": "e2e",
            "OPENAI_BASE_URL": args.base_url,
            "PRDIGEST_MODEL": args.model,
            "PRDIGEST_CONFIG": str(config),
        }
        built = build_process(load_settings(env), Timing(model_timeout=args.timeout), warn=lambda message: None)
        try:
            for row in rows:
                snapshot = built.cards.snapshot_by_ref(PRRef(REPO, row["number"]))
                started = time.monotonic()
                card = built.cards.card(snapshot, "en").card
                seconds = time.monotonic() - started
                results.append({"number": row["number"], "seconds": seconds, "card": card})
                print(f"#{row['number']}: {card.source} in {seconds:.0f} s: {card.headline}", file=sys.stderr)
            # As a Slack thread asks it: the model's own stream, shown sentence by sentence; then
            # stopped. First: a request the client gives up on unstreamed keeps llama.cpp writing
            # to its token cap, and the server does one request at a time.
            first = rows[0]
            first_snapshot = built.cards.snapshot_by_ref(PRRef(REPO, first["number"]))
            first_card = built.cards.card(first_snapshot, "en").card
            streamed = stream_question(built, first_snapshot, first_card)
            stopped = stop_question(built, first_snapshot, first_card, args.base_url, args.model)
            # As `prdigest ask` asks it: the answer sanitised, the card when none is left.
            started = time.monotonic()
            asked = ask_about_pr(built.cards, built.answerer, first_snapshot, QUESTION, "en")
            answer_seconds = time.monotonic() - started
            learned = built.modes.recall()
            questions = question_report(built, results) if args.questions else ""
        finally:
            built.close()
    answered = f"answered ({len(asked.answer)} characters)" if asked.answer else f"no answer: {asked.no_answer}"
    model_cards = print_cards(results, f"question: {answered} in {answer_seconds:.0f} s")
    print(f"output mode: {learned.mode if learned else 'none worked'}")
    print(streamed.report())
    print(stopped)
    print(f"answer: {asked.answer[:400]!r}")
    if questions:
        print(questions)
    if args.out:
        args.out.write_text(
            json.dumps(
                [{"number": r["number"], "seconds": r["seconds"], "card": r["card"].__dict__} for r in results],
                default=str,
                ensure_ascii=False,
                indent=2,
            ),
            encoding="utf-8",
        )
    # An answer with nothing usable left is handled as designed (the card stands in); any other
    # missing answer means the model path failed.
    handled = bool(asked.answer) or asked.no_answer == "answer_unusable"
    return 0 if model_cards == len(results) and handled and streamed.ok else 1


def print_cards(results: list[dict[str, Any]], question: str) -> int:
    """The cards' table and their figures; returns how many came from the model."""
    model_cards = sum(result["card"].source == "llm" for result in results)
    cut = sum(result["card"].dropped for result in results)
    regenerated = sum(result["card"].regenerated for result in results)
    per_card = sorted(result["seconds"] for result in results)
    rows_out = [
        (
            f"#{result['number']}",
            result["card"].source,
            result["card"].verdict,
            f"{result['seconds']:.0f} s",
            str(result["card"].dropped),
            result["card"].headline[:70],
        )
        for result in results
    ]
    print(table(("PR", "source", "verdict", "time", "cut", "headline"), rows_out))
    print(
        f"model cards {model_cards}/{len(results)} · asked again {regenerated} · claims cut {cut} · "
        f"seconds per card: median {per_card[len(per_card) // 2]:.0f}, max {per_card[-1]:.0f} · "
        f"{question}"
    )
    return model_cards


@dataclass
class Recorded:
    """An AnswerSink that keeps each checked sentence with the moment it was shown."""

    started: float
    shown: list[tuple[float, str]] = field(default_factory=list)
    stop_after: int | None = None  # the person presses Stop after this many sentences

    def sentence(self, text: str) -> None:
        self.shown.append((time.monotonic(), text))

    @property
    def stopped(self) -> bool:
        return self.stop_after is not None and len(self.shown) >= self.stop_after


@dataclass
class Streamed:
    seconds: float
    first_piece: float | None  # the model's first words, from the start
    sentences: list[tuple[float, str]]
    answer: str
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and bool(self.sentences)

    def line(self) -> str:
        if self.error:
            return f"streamed question: failed: {self.error}"
        if not self.sentences:
            return f"streamed question: nothing shown in {self.seconds:.0f} s (answer {self.answer[:80]!r})"
        first_shown = self.sentences[0][0]
        piece = f"model's first words at {self.first_piece:.1f} s, " if self.first_piece is not None else ""
        return (
            f"streamed question: {piece}first sentence shown at {first_shown:.1f} s, "
            f"{len(self.sentences)} sentences, done at {self.seconds:.0f} s; "
            f"shown == returned: {self.same}"
        )

    def report(self) -> str:
        """The line, then the first sentences shown and, if it differs, what was returned."""
        lines = [self.line()]
        lines += [f"  shown at {at:.0f} s: {sentence[:160]!r}" for at, sentence in self.sentences[:3]]
        if self.sentences and not self.same:
            lines.append(f"  returned instead (to be sanitized whole): {self.answer[:300]!r}")
        return "\n".join(lines)

    @property
    def same(self) -> bool:
        """What was shown is what the answerer returned (not so after a recital was found)."""
        return "".join(text for _, text in self.sentences) == self.answer


def stream_question(built: Process, snapshot: PRSnapshot, card: Card) -> Streamed:
    """A question answered with a sink, through the model's stream (`stream=True`)."""
    answerer = built.answerer
    assert answerer is not None  # the e2e always configures a model
    model = answerer._model  # wrapped for this call: the e2e times the model's first piece
    assert isinstance(model, StreamingModel)
    first_piece: list[float] = []
    started = time.monotonic()
    original = model.complete_streaming

    def timed(messages: Any, deadline: Any, tally: Any, on_piece: Any) -> str:
        def piece(text: str) -> bool:
            if not first_piece:
                first_piece.append(time.monotonic() - started)
            return bool(on_piece(text))

        return str(original(messages, deadline, tally, piece))

    setattr(model, "complete_streaming", timed)  # noqa: B010 - on this instance, for this call
    sink = Recorded(started)
    try:
        answer = answerer.answer_pr(snapshot, card, Question(QUESTION, (), "en"), Tally(), sink=sink)
    except SummarizerError as exc:
        return Streamed(time.monotonic() - started, None, [], "", f"{type(exc).__name__}: {exc}")
    finally:
        delattr(model, "complete_streaming")  # the class's method again
    sentences = [(at - started, text) for at, text in sink.shown]
    return Streamed(time.monotonic() - started, first_piece[0] if first_piece else None, sentences, answer)


def stop_question(built: Process, snapshot: PRSnapshot, card: Card, base_url: str, model: str) -> str:
    """Stop pressed after the first sentence: the model call must end, and the server be free.

    llama-cpp-python serves one request at a time, so a one-token request sent right after the
    stop waits for whatever the server is still generating: its time says whether the stream was
    really closed.
    """
    assert built.answerer is not None
    started = time.monotonic()
    sink = Recorded(started, stop_after=1)
    try:
        built.answerer.answer_pr(snapshot, card, Question(QUESTION, (), "en"), Tally(), sink=sink)
    except SummarizerError as exc:
        return f"stopped question: failed: {type(exc).__name__}"
    returned = time.monotonic() - started
    if not sink.shown:
        return f"stopped question: nothing was shown before the answer ended ({returned:.0f} s)"
    stopped_at = sink.shown[0][0] - started
    probe_started = time.monotonic()
    client = openai.OpenAI(base_url=base_url, api_key="e2e", max_retries=0)
    try:
        client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "Say OK."}], max_tokens=1, timeout=300
        )
    finally:
        client.close()
    probe = time.monotonic() - probe_started
    return (
        f"stopped question: Stop after the first sentence at {stopped_at:.1f} s; the call returned "
        f"{returned - stopped_at:.2f} s later; a one-token request then took {probe:.1f} s"
    )


# Questions the rules read nothing of: what the model's reading (questions/model_reading.py) makes
# of them, checked as the app checks it.
READ_QUESTIONS = (
    "kimi k3 stuff from tues??",
    "what has nick been up to lately",
    "anything worth reading carefully about the fused moe kernels",
    "how many prs landed on 2026-08-04",
    "what merged in acme/secret last week?",
)
ACROSS_QUESTION = "which of these PRs should I read first, and why?"


def question_report(built: Process, results: list[dict[str, Any]]) -> str:
    """The model's reading of READ_QUESTIONS, and an answer across days written from the example
    PRs' cards (as a question across days is answered when a model is configured)."""
    audience = Audience("C0E2E0001", frozenset({REPO.lower()}), "en", default_repo=REPO)
    today = date(2026, 8, 5)
    lines = ["questions the rules cannot read, as the model read them (checked):"]
    assert built.reader is not None and built.answerer is not None  # a model is configured
    for question in READ_QUESTIONS:
        started = time.monotonic()
        reading = built.reader.read(question, audience, today)
        seconds = time.monotonic() - started
        if reading is None:
            lines.append(f"  {question!r}: no reading ({seconds:.0f} s)")
            continue
        span = f"{reading.span.kind} {reading.span.start}" if reading.span else reading.problem
        lines.append(
            f"  {question!r} ({seconds:.0f} s): days {span}, repo {reading.repo}, topic {reading.topic}, "
            f"person {reading.author}, verdict {reading.verdict}, wants {reading.intent}"
        )
    items = []
    for result in results:
        snapshot = built.cards.snapshot_by_ref(PRRef(REPO, result["number"]))
        paths = tuple(change.path for change in snapshot.files[:12])
        items.append(DigestItem(snapshot.listing, result["card"], snapshot.additions + snapshot.deletions, paths))
    started = time.monotonic()
    try:
        written = built.answerer.answer_digest(
            tuple(items),
            {str(item.listing.ref): item.paths for item in items},
            Question(ACROSS_QUESTION, (), "en"),
        )
    except SummarizerError as exc:
        return "\n".join([*lines, f"across-days answer: the model gave none ({type(exc).__name__})"])
    answer = sanitize_answer(written, f"https://github.com/{REPO}") or ""
    cited = sorted(
        {number for number in re.findall(r"#(\d+)", answer) if int(number) in {r["number"] for r in results}}
    )
    seconds = time.monotonic() - started
    named = ", ".join("#" + number for number in cited) or "no PR"
    lines.append(f"across-days answer in {seconds:.0f} s, citing {named}: {answer[:300]!r}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
