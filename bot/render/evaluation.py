"""`prdigest eval`'s report: the PRs that could not be read, one row per model for cards and for
answers, then what disagreed, as text for a terminal (and docs/benchmarks.md) or as JSON for CI.
Pure.

The table is a developer's measurement, pasted into docs as it is: its column names stay English
in every language, as the benchmark's and `prdigest doctor`'s do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from bot.core.eval_scores import AnswerRun, CardRun, Unread, score_answers, score_cards
from bot.core.usage import Usage
from bot.render.data import card_data

NO_MODEL = "no model"


@dataclass(frozen=True)
class ModelReport:
    name: str | None
    cards: tuple[CardRun, ...]
    answers: tuple[AnswerRun, ...]
    usage: Usage
    cost: float | None  # None: no price in [models."NAME"] (or no tokens spent)
    unread: tuple[Unread, ...] = ()  # labelled PRs that could not be read: no card, no score
    unasked: tuple[Unread, ...] = ()  # questions whose PR could not be read

    @property
    def label(self) -> str:
        return self.name or NO_MODEL


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    cells = [list(headers), *(list(row) for row in rows)]
    widths = [max(len(line[column]) for line in cells) for column in range(len(headers))]
    lines = [" | ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip() for line in cells]
    lines.insert(1, "-+-".join("-" * width for width in widths))
    return "\n".join(lines)


def _share(part: int, whole: int) -> str:
    return f"{part}/{whole}" if whole else "-"


def _cost(report: ModelReport) -> str:
    if report.usage.total == 0:
        return "-"
    return f"${report.cost:.4f}" if report.cost is not None else "no price"


def _failures(count: int, kinds: dict[str, int]) -> str:
    if not count:
        return "0"
    return f"{count} ({', '.join(f'{n} {kind}' for kind, n in sorted(kinds.items()))})"


def card_rows(reports: Sequence[ModelReport]) -> str:
    rows = []
    for report in reports:
        score = score_cards(report.cards)
        coverage = f"{100 * score.files_read // score.files_total}%" if score.files_total else "-"
        rows.append(
            [
                report.label,
                _share(score.exact, score.cards),
                _share(score.within_one, score.cards),
                _share(score.carried, score.figures),
                str(score.invented),
                _share(score.contradicted, score.reasoned),
                str(score.cut),
                coverage,
                f"{report.usage.prompt}/{report.usage.completion}",
                _cost(report),
                f"{score.seconds_median:.2f}/{score.seconds_max:.2f}",
                _failures(score.failures, score.failure_kinds),
                str(len(report.unread)),
            ]
        )
    headers = (
        "model",
        "verdict exact",
        "within one",
        "key figures",
        "invented",
        "reasons vs verdict",
        "cut",
        "coverage",
        "tokens in/out",
        "cost",
        "s/card med/max",
        "failures",
        "unread",
    )
    return table(headers, rows)


def answer_rows(reports: Sequence[ModelReport]) -> str:
    rows = []
    for report in reports:
        score = score_answers(report.answers)
        rows.append(
            [
                report.label,
                _share(score.right, score.questions),
                _share(score.not_stated_right, score.not_stated),
                str(score.ungrounded),
                _share(score.from_model, score.questions),
                f"{score.seconds_median:.2f}/{score.seconds_max:.2f}",
                _failures(score.failures, score.failure_kinds),
                str(len(report.unasked)),
            ]
        )
    headers = (
        "model",
        "answers right",
        "'does not say' right",
        "ungrounded",
        "answered by model",
        "s/answer med/max",
        "failures",
        "unread",
    )
    return table(headers, rows)


def _unread(reports: Sequence[ModelReport]) -> tuple[Unread, ...]:
    """The PRs no row could read: the same for every model, read once before them all."""
    return (*reports[0].unread, *reports[0].unasked) if reports else ()


def render_eval(reports: Sequence[ModelReport]) -> str:
    parts = []
    unread = _unread(reports)
    if unread:
        lines = [f"  {item.where} {item.reason}" for item in unread]
        parts.append(f"not read ({len(unread)}), left out of the scores:\n" + "\n".join(lines))
    if any(report.cards or report.unread for report in reports):
        parts.append(card_rows(reports))
        for report in reports:
            lines = [
                f"  {run.where} {run.ref}: labelled {run.expected}, got {run.card.verdict} · {run.card.headline}"
                for run in report.cards
                if run.card.verdict != run.expected
            ]
            lines += [
                f"  {run.where} {run.ref}: invented {', '.join(run.invented)}" for run in report.cards if run.invented
            ]
            lines += [
                f"  {run.where} {run.ref}: reasons argue against {run.card.verdict} · {' / '.join(run.card.why)}"
                for run in report.cards
                if run.contradicted
            ]
            if lines:
                parts.append(f"{report.label}:\n" + "\n".join(lines))
    if any(report.answers or report.unasked for report in reports):
        parts.append(answer_rows(reports))
        for report in reports:
            lines = [
                f"  {run.where}: missing {', '.join(run.missing)}"
                + (f"; ungrounded {', '.join(run.ungrounded)}" if run.ungrounded else "")
                for run in report.answers
                if not run.right or run.ungrounded
            ]
            if lines:
                parts.append(f"{report.label}, answers:\n" + "\n".join(lines))
    return "\n\n".join(parts) + "\n"


def eval_data(reports: Sequence[ModelReport]) -> dict[str, Any]:
    """Every model's scores and every card and answer, and the PRs that could not be read, for CI
    (`--format json`)."""
    return {
        "unread": [asdict(item) for item in _unread(reports)],
        "models": [
            {
                "model": report.name,
                "cards": _scores(asdict(score_cards(report.cards)), report.unread)
                if report.cards or report.unread
                else None,
                "answers": (
                    _scores(asdict(score_answers(report.answers)), report.unasked)
                    if report.answers or report.unasked
                    else None
                ),
                "tokens": {"in": report.usage.prompt, "out": report.usage.completion},
                "cost": report.cost,
                "items": [
                    {
                        "where": run.where,
                        "ref": run.ref,
                        "expected": run.expected,
                        "figures": list(run.figures),
                        "carried": list(run.carried),
                        "invented": list(run.invented),
                        "contradicted": run.contradicted,
                        "seconds": round(run.seconds, 3),
                        "failed": run.failed,
                        "card": card_data(run.card),
                    }
                    for run in report.cards
                ],
                "questions": [
                    {
                        "where": run.where,
                        "question": run.question,
                        "right": run.right,
                        "missing": list(run.missing),
                        "ungrounded": list(run.ungrounded),
                        "source": run.source,
                        "failed": run.failed,
                        "answer": run.text,
                        "seconds": round(run.seconds, 3),
                    }
                    for run in report.answers
                ],
            }
            for report in reports
        ],
    }


def _scores(scores: dict[str, Any], unread: tuple[Unread, ...]) -> dict[str, Any]:
    return {**scores, "unread": len(unread)}
