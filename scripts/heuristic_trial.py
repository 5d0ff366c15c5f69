"""Trial of the heuristic cards on the example day: do they agree with the digest readers want?

    .venv/bin/python scripts/heuristic_trial.py [--lang zh-CN]

The eight example PRs of 2026-08-04 (shared/data/seed-prs.json) become snapshots: their files
from the data set (patches synthesised from the counts), their body the seed file's short
description. Each gets a card without a model. The expected verdict of each is read from the
example digest (shared/example-digest.zh.txt, one section per PR in the seed file's order):
"值得精读" is read, "快速浏览"/"快速阅读" skim, "无需精读" skip. Its key figures are the figures of
that digest's headline ("1.6us", "7.3 倍"); a card carries one when its headline states the same
number. Prints one row per PR and the two totals.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from devkit import tables
from devkit.fakes import dataset

from bot.cards.heuristic.cards import heuristic_card
from bot.core.checks.claims import extract_claims
from bot.core.prompting.context import unlimited_coverage
from bot.models import Card, FileChange, Language, PRListing, PRSnapshot, Verdict

REPO = "vllm-project/vllm"
SHARED = dataset.DATASET_PATH.parent
SEEDS = SHARED / "seed-prs.json"
EXAMPLE_DIGEST = SHARED.parent / "example-digest.zh.txt"
# How the example digest words each verdict (the digest's own labels, bot/words/zh_cn.py).
VERDICT_WORDS: tuple[tuple[str, Verdict], ...] = (
    ("无需精读", "skip"),
    ("快速浏览", "skim"),
    ("快速阅读", "skim"),
    ("值得精读", "read"),
)


@dataclass(frozen=True)
class Expected:
    headline: str
    verdict: Verdict
    figures: frozenset[str]  # canonical values of the headline's figures ("1.6", "7.3")


@dataclass(frozen=True)
class Trial:
    number: int
    expected: Expected
    card: Card

    @property
    def verdict_matches(self) -> bool:
        return self.card.verdict == self.expected.verdict

    @property
    def carries_figure(self) -> bool:
        return bool(self.expected.figures) and self.expected.figures <= figure_values(self.card.headline)


def figure_values(text: str) -> frozenset[str]:
    """The numbers a text states as figures or ranges ("GLM-5.2" and "Kimi-K3" are names, not figures)."""
    claims = (claim for claim in extract_claims(text) if claim.kind in ("figure", "range"))
    return frozenset(figure.value for claim in claims for figure in claim.figures)


def expected_cards(path: Path = EXAMPLE_DIGEST) -> list[Expected]:
    """The example digest's sections in order: a headline line, then a paragraph that gives the verdict."""
    blocks = [block.strip() for block in path.read_text(encoding="utf-8").split("\n\n") if block.strip()]
    sections = [block for block in blocks if "\n" not in block]  # the repository line, then headline/paragraph
    expected: list[Expected] = []
    for headline, paragraph in zip(sections[1::2], sections[2::2], strict=False):
        verdict = next(verdict for word, verdict in VERDICT_WORDS if word in paragraph)
        expected.append(Expected(headline, verdict, figure_values(headline)))
    return expected


def seed_snapshots() -> list[PRSnapshot]:
    """The example PRs, in the seed file's order, with the seed's description as their body."""
    seeds = [seed for seed in json.loads(SEEDS.read_text(encoding="utf-8"))["seeds"] if seed["found"]]
    rows = {row["number"]: row for row in dataset.load_rows()}
    return [_snapshot(rows[seed["number"]], seed["description"]) for seed in seeds]


def _snapshot(row: dict[str, Any], body: str) -> PRSnapshot:
    files = tuple(
        FileChange(
            entry["path"],
            "modified",
            entry["additions"],
            entry["deletions"],
            None if entry.get("binary") else dataset.synth_patch(entry["path"], entry["additions"], entry["deletions"]),
        )
        for entry in dataset.row_files(row)
    )
    listing = PRListing(
        repo=REPO,
        number=int(row["number"]),
        title=str(row["title"]),
        body=body,
        author=dataset.login_of(str(row["author"])),  # a listing carries the login, as GitHub's does
        url=f"https://github.com/{REPO}/pull/{row['number']}",
        merged_at=datetime.fromisoformat(str(row["merged_at"])),
        merge_sha=str(row["commit"]),
    )
    return PRSnapshot(listing=listing, files=files)


def card(snapshot: PRSnapshot, language: Language) -> Card:
    """The card without a model, as the card service makes it (coverage of every listed file)."""
    return heuristic_card(snapshot, unlimited_coverage(snapshot), language)


def run(language: Language = "en") -> list[Trial]:
    snapshots = seed_snapshots()
    return [
        Trial(snapshot.listing.number, expected, card(snapshot, language))
        for snapshot, expected in zip(snapshots, expected_cards(), strict=True)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lang", choices=("en", "zh-CN"), default="en")
    args = parser.parse_args(argv)
    trials = run(cast(Language, args.lang))
    rows = [
        (
            f"#{trial.number}",
            trial.expected.verdict,
            trial.card.verdict,
            "yes" if trial.verdict_matches else "no",
            ("yes" if trial.carries_figure else "no") if trial.expected.figures else "-",
            trial.card.headline,
        )
        for trial in trials
    ]
    print(tables.table(("PR", "expected", "heuristic", "match", "figure", "headline"), rows))
    with_figures = [trial for trial in trials if trial.expected.figures]
    print(
        f"verdicts as the example digest: {sum(trial.verdict_matches for trial in trials)}/{len(trials)} · "
        f"headlines with the key figure: {sum(trial.carries_figure for trial in with_figures)}/{len(with_figures)}"
    )
    for trial in trials:
        print(f"\n#{trial.number} [{trial.card.verdict}] {trial.card.headline}")
        for point in (*trial.card.why, *trial.card.caveats, *trial.card.watch):
            print(f"  - {point}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
