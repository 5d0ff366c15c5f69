"""Trial of output-mode negotiation: one day of the vLLM data set against each kind of server.

    .venv/bin/python -m scripts.mode_trial --date 2026-08-04

Serves a fake GitHub (the day's PRs) and, per profile of devkit/fakes/llm_servers.py, a fake
OpenAI-compatible server that answers as that kind of server does (which output modes it takes,
how it refuses the others, its context window, how its model wraps JSON). Runs the digest
exactly as the CLI does and prints one row per profile: model cards out of all, the modes cards
were written in, the refusals and context-window errors met on the way, and requests per card.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from devkit import tables
from devkit.fakes import dataset
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.llm_servers import PROFILES

from bot.models import Window
from bot.settings import load_settings
from bot.wiring.process import build_process
from bot.wiring.timing import Timing

REPO = "vllm-project/vllm"


@dataclass(frozen=True)
class Outcome:
    profile: str
    model_cards: int
    total: int
    written_in: Counter[str]  # mode → cards answered in it
    asked: int  # chat requests, refusals included
    refused: int  # requests refused for their mode
    too_long: int  # requests refused for their length


def run(profile: str, rows: list[dict[str, object]], day: datetime) -> Outcome:
    with FakeGitHub() as github, FakeOpenAI(behaviour=profile) as model:
        dataset.populate(github, rows, REPO)
        env = {
            "GITHUB_API_URL": github.url,
            "GITHUB_TOKEN": "trial",
            "OPENAI_API_KEY": "trial",
            "OPENAI_BASE_URL": f"{model.url}/v1",
        }
        built = build_process(load_settings(env), Timing(model_timeout=30), warn=lambda message: None)
        try:
            digest = built.digests.build((REPO,), Window(day, day + timedelta(days=1)))
        finally:
            built.close()
        outcomes = Counter(outcome for _, outcome in model.outcomes())
        answered = model.answered_modes()
    cards = [item.card for item in digest.items]
    return Outcome(
        profile=profile,
        model_cards=sum(card.source == "llm" for card in cards),
        total=len(cards),
        written_in=Counter(answered),
        asked=outcomes.total(),
        refused=outcomes["refused"],
        too_long=outcomes["too long"],
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--date", default="2026-08-04", help="a UTC day of the data set (default: %(default)s)")
    args = parser.parse_args(argv)
    day = datetime.fromisoformat(args.date).replace(tzinfo=UTC)
    rows = dataset.merged_on(dataset.load_rows(), args.date)
    outcomes = [run(profile, rows, day) for profile in PROFILES]
    print(
        tables.table(
            ("server", "model cards / total", "answered in", "mode refusals", "too long", "requests per card"),
            [
                (
                    outcome.profile,
                    f"{outcome.model_cards} / {outcome.total}",
                    ", ".join(f"{mode} {count}" for mode, count in outcome.written_in.most_common()),
                    str(outcome.refused),
                    str(outcome.too_long),
                    f"{outcome.asked / max(outcome.total, 1):.2f}",
                )
                for outcome in outcomes
            ],
        )
    )
    return 0 if all(outcome.model_cards == outcome.total for outcome in outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
