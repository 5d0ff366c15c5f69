"""`prdigest eval [FILE…] [--answers FILE] [--model NAME…]`: card (and answer) quality on labelled
PRs, one row per model, no model (the heuristic) first.

The files are read (bot/eval_files.py) and checked (services/eval_labels.py) before anything else:
a path that is not a regular file, or a bad line, is one error naming the file (and the line),
and nothing is fetched or cached. Then the PRs are read once, and each model makes their cards
as a digest would (services/evaluation.py). A PR GitHub does not give (not found, a refusal other
than the token's, an error status) is reported with why, counted, and left out of the scores; the
run goes on. An invented figure that reached a card makes the exit non-zero, after the report.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from http import HTTPStatus

from bot.core.eval_scores import AnswerRun, CardRun, Unread, score_cards
from bot.core.usage import Price, cost
from bot.errors import (
    RateLimited,
    SourceError,
    SourceNotAPI,
    SourceRefused,
    SourceUnreachable,
    ToldError,
    UsageError,
    one_line,
)
from bot.eval import (
    Across,
    Asking,
    EvalModel,
    Labelled,
    answer_runs,
    card_runs,
    jsonl_lines,
    parse_labels,
    parse_questions,
)
from bot.models import AcrossMatches, Audience, Language, PRRef, PRSnapshot
from bot.questions import AcrossDays, Known
from bot.render.evaluation import ModelReport, eval_data, render_eval
from bot.settings import Settings
from bot.spending import CLI
from bot.wiring.evaluation import named_model, no_model
from bot.wiring.process import Process, build_process

MAX_CONCURRENCY = 64


def read_inputs(args: argparse.Namespace) -> tuple[list[Labelled], list[Asking]]:
    """Every labelled PR and question of the files named, or the first bad line's error."""
    if not args.files and not args.answers:
        raise UsageError("error.eval_nothing")
    labels = [label for path in args.files for label in parse_labels(jsonl_lines(path), one_line(path))]
    questions = parse_questions(jsonl_lines(args.answers), one_line(args.answers)) if args.answers else []
    return labels, questions


def _across(built: Process) -> Across:
    zone = built.settings.defaults.timezone

    def answer(repo: str, question: str, language: Language) -> str | None:
        across = AcrossDays(
            built.cards,
            now=built.timing.now,
            zone_of=lambda _: zone,
            known=Known(lambda: (repo,), people=built.authors.named),
            web_base=built.web_base,
        )
        audience = Audience(CLI, frozenset({repo.lower()}), language)
        asked = across.read(question, audience)
        if asked is None:
            return None
        reply = across.answer(asked, replace(audience, default_repo=repo))
        if not isinstance(reply, AcrossMatches):
            return None
        return "\n".join(f"#{item.listing.number} {item.listing.title}" for item in reply.items)

    return answer


def _snapshots(
    built: Process, refs: list[PRRef], concurrency: int
) -> tuple[dict[PRRef, PRSnapshot], dict[PRRef, SourceError]]:
    """Each PR read once: the snapshots, and the PRs GitHub would not give with its error."""
    unique = list(dict.fromkeys(refs))

    def read(ref: PRRef) -> PRSnapshot | SourceError:
        try:
            return built.cards.snapshot_by_ref(ref)
        except SourceError as error:
            if _about_every_pr(error):
                raise
            return error

    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="eval-fetch") as pool:
        read_all = dict(zip(unique, pool.map(read, unique), strict=True))
    snapshots = {ref: got for ref, got in read_all.items() if not isinstance(got, SourceError)}
    return snapshots, {ref: got for ref, got in read_all.items() if isinstance(got, SourceError)}


def _about_every_pr(error: SourceError) -> bool:
    """A refused token (401) would refuse every PR alike: the run stops on it, as on a spent rate
    limit or an unreachable GitHub, which are not one PR's either. A PR GitHub does not find, or
    answers with an error of its own (a 500 past every retry), is that PR's alone."""
    if isinstance(error, RateLimited | SourceUnreachable | SourceNotAPI):
        return True
    return isinstance(error, SourceRefused) and error.status == HTTPStatus.UNAUTHORIZED


def run_eval(args: argparse.Namespace, settings: Settings) -> int:
    """The report on stdout; 1 when an invented figure reached a card. Every input is checked
    before the process is built, so a bad line leaves no trace in the store."""
    labels, questions = read_inputs(args)
    concurrency = settings.defaults.concurrency if args.concurrency is None else args.concurrency
    if not 1 <= concurrency <= MAX_CONCURRENCY:
        raise UsageError("error.eval_concurrency", value=concurrency)
    names = list(dict.fromkeys(args.model or []))
    if names and not settings.openai_api_key:
        raise UsageError("error.eval_no_key")
    built = build_process(settings)
    try:
        _evaluate(args, built, labels, questions, names, concurrency)
    finally:
        built.close()
    return 0


def _evaluate(
    args: argparse.Namespace,
    built: Process,
    labels: list[Labelled],
    questions: list[Asking],
    names: list[str],
    concurrency: int,
) -> None:
    language = built.settings.defaults.language
    refs = [label.ref for label in labels] + [q.ref for q in questions if q.ref]
    snapshots, errors = _snapshots(built, refs, concurrency)
    unread = tuple(Unread(x.where, str(x.ref), errors[x.ref].in_language(language)) for x in labels if x.ref in errors)
    unasked = tuple(
        Unread(x.where, str(x.ref), errors[x.ref].in_language(language)) for x in questions if x.ref in errors
    )
    labels = [label for label in labels if label.ref in snapshots]
    questions = [question for question in questions if question.ref is None or question.ref in snapshots]
    prices = {name: price for name, options in built.settings.config.models.items() if (price := options.price)}
    models: list[tuple[EvalModel, Callable[[], None] | None]] = [(no_model(built), None)]
    models += [named_model(built, name) for name in names]
    across = _across(built)
    reports = []
    try:
        for model, _ in models:
            cards = card_runs(model, labels, snapshots, language, concurrency)
            answers = answer_runs(model, questions, snapshots, across, concurrency)
            reports.append(replace(_report(model, cards, answers, prices), unread=unread, unasked=unasked))
    finally:
        for _, close in models:
            if close is not None:
                close()
    if args.format == "json":
        print(json.dumps(eval_data(reports), ensure_ascii=False, indent=2))
    else:
        sys.stdout.write(render_eval(reports))
    invented = sum(score_cards(report.cards).invented for report in reports)
    if invented:
        raise ToldError("error.eval_invented", count=invented)


def _report(model: EvalModel, cards: list[CardRun], answers: list[AnswerRun], prices: dict[str, Price]) -> ModelReport:
    by_model = model.tally.by_model()
    return ModelReport(model.name, tuple(cards), tuple(answers), model.tally.total, cost(by_model, prices))
