"""Trial of the faithfulness check: one day of the vLLM data set through the digest, with a model that invents.

    .venv/bin/python scripts/faithfulness_trial.py --date 2026-08-04

Serves a fake GitHub (the day's PRs; their bodies are empty, so the titles hold the figures) and a
fake OpenAI on loopback, and runs the digest exactly as the CLI does. The fake model writes each
headline from the PR's title, keeping the title's own figures, and adds ONE invented figure
("saving 3.7 GiB", "1.9x faster") that is in neither the title nor the diff; one point names a
real file. Two models are tried: one that repeats its invention when told (stubborn) and one that
drops it (compliant). A third row has the stubborn model invent a small count instead ("removing
3 kernel launches"): its number is in every diff, its noun next to it in none. Prints one row per
model: cards, invented figures that reached the output (the target is 0), true claims wrongly
dropped, model calls, and how many headlines were served exactly as a careful editor would have
cut them ("Fix X, saving 3.7 GiB" → "Fix X").
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from devkit import tables
from devkit.fakes import dataset
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.core.checks.claims import extract_claims
from bot.core.heuristic.headlines import headline as title_headline
from bot.core.prompting.drafts import clip
from bot.core.prompting.prompts import HEADLINE_MAX
from bot.models import Digest, Window
from bot.settings import load_settings
from bot.wiring.process import build_process
from bot.wiring.timing import Timing

REPO = "vllm-project/vllm"
# Where a model puts a figure it made up: (figure, headline, the headline once the figure is cut).
INVENTIONS = (
    ("{a}.{b} GiB", "{base}, saving {figure}", "{base}"),
    ("{a}.{b}x", "{base}, {figure} faster", "{base}"),
    ("{a}.{b} ms", "{base} ({figure} less per step)", "{base}"),
    ("{a}{b}%", "{base} with {figure} lower latency", "{base} with lower latency"),
)
# Small counts with a noun (two to nine: the numbers any diff holds somewhere).
COUNT_INVENTIONS = (
    ("{a} kernel launches", "{base}, removing {figure}", "{base}"),
    ("{a} fewer warps", "{base}, {figure} per block", "{base}, fewer warps per block"),
)
_FILE_HEADER = re.compile(r"^### (\S+) \(", re.MULTILINE)
_TITLE = re.compile(r"^Title: (.*)$", re.MULTILINE)
_NUMBER = re.compile(r"^PR: #(\d+)$", re.MULTILINE)


@dataclass
class _Plan:
    """What the fake model wrote for one PR, to be compared with what the digest served."""

    invented: str  # the figure
    ideal: str  # the headline with the figure cut as a careful editor would
    true_keys: set[str] = field(default_factory=set)


class InventingModel:
    """A fake model's answers: the title's headline plus one invented figure; `stubborn` keeps it when told."""

    def __init__(self, stubborn: bool, inventions: tuple[tuple[str, str, str], ...] = INVENTIONS) -> None:
        self.stubborn = stubborn
        self.inventions = inventions
        # A count of one is no invention worth catching ("1 kernel launch" reads as "a launch").
        self.lowest = 1 if inventions is INVENTIONS else 2
        self.plans: dict[int, _Plan] = {}
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        data = request["messages"][1]["content"]
        number = int(_match(_NUMBER, data))
        figure, template, ideal_template = self._invention(number, data)
        written = template.format(base="", figure=figure)
        title = _match(_TITLE, data)
        base = clip(title_headline(title) or title, HEADLINE_MAX["en"] - len(written))
        ideal = ideal_template.format(base=base)
        told = len(request["messages"]) > 2
        headline = template.format(base=base, figure=figure) if self.stubborn or not told else ideal
        paths = _FILE_HEADER.findall(data)
        why = [f"Most of the work is in {paths[0]}"] if paths else []
        with self._lock:
            plan = self.plans.setdefault(number, _Plan(figure, ideal))
            plan.true_keys |= _keys(base, *why)
        return {"headline": headline, "verdict": "skim", "minutes": 3, "why": why, "caveats": [], "watch": []}

    def _invention(self, number: int, data: str) -> tuple[str, str, str]:
        rng = random.Random(number)
        while True:
            figure, template, ideal = rng.choice(self.inventions)
            figure = figure.format(a=rng.randint(self.lowest, 9), b=rng.randint(1, 9))
            if not _keys(figure) & _keys(data) and figure not in data:  # invented: the PR never says it
                return figure, template, ideal


def _match(pattern: re.Pattern[str], text: str) -> str:
    found = pattern.search(text)
    return found.group(1) if found else ""


def _keys(*texts: str) -> set[str]:
    return {claim.key for text in texts for claim in extract_claims(text)}


@dataclass(frozen=True)
class Row:
    model: str
    cards: int
    invented_reached: int
    true_claims: int
    true_dropped: int
    model_calls: int
    regenerated: int
    ideal_cuts: int
    checked: int
    dropped: int


def run(day: str, stubborn: bool, *, counts: bool = False) -> Row:
    rows = dataset.merged_on(dataset.load_rows(), day)
    model = InventingModel(stubborn, COUNT_INVENTIONS if counts else INVENTIONS)
    with FakeGitHub() as github, FakeOpenAI(responder=model) as fake_model:
        dataset.populate(github, rows, REPO)
        env = {"GITHUB_API_URL": github.url, "GITHUB_TOKEN": "trial", "OPENAI_API_KEY": "trial"}
        env["OPENAI_BASE_URL"] = f"{fake_model.url}/v1"
        start = datetime.fromisoformat(day).replace(tzinfo=UTC)
        services = build_process(
            load_settings(env), Timing(now=lambda: start + timedelta(2)), warn=lambda message: None
        )
        try:
            digest = services.digests.build((REPO,), Window(start, start + timedelta(1)))
        finally:
            services.close()
        name = ("stubborn" if stubborn else "compliant") + (", counts" if counts else "")
        return _score(name, digest, model, fake_model.calls)


def _score(name: str, digest: Digest, model: InventingModel, calls: int) -> Row:
    reached = true_claims = true_dropped = 0
    for item in digest.items:
        card = item.card
        served = _keys(card.headline, *card.why, *card.caveats, *card.watch)
        plan = model.plans[item.listing.number]
        # By its text too: a count the check does not read as a claim has no key.
        reached += bool(_keys(plan.invented) & served) or plan.invented in " ".join((card.headline, *card.why))
        true_claims += len(plan.true_keys)
        true_dropped += len(plan.true_keys - served)
    cards = [item.card for item in digest.items]
    return Row(
        model=name,
        cards=len(cards),
        invented_reached=reached,
        true_claims=true_claims,
        true_dropped=true_dropped,
        model_calls=calls,
        regenerated=sum(card.regenerated for card in cards),
        ideal_cuts=sum(item.card.headline == model.plans[item.listing.number].ideal for item in digest.items),
        checked=sum(card.checked for card in cards),
        dropped=sum(card.dropped for card in cards),
    )


def table(rows: list[Row]) -> str:
    header = (
        "model",
        "cards",
        "invented in output",
        "true claims",
        "true dropped",
        "model calls",
        "regenerated",
        "headline = ideal cut",
        "checked",
        "dropped",
    )
    return tables.table(header, [[str(value) for value in vars(row).values()] for row in rows])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--date", default="2026-08-04", help="UTC day of the data set to digest (YYYY-MM-DD)")
    args = parser.parse_args(argv)
    print(f"{REPO} · {args.date}: one invented figure per card")
    print(table([run(args.date, stubborn=True), run(args.date, stubborn=False), run(args.date, True, counts=True)]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
