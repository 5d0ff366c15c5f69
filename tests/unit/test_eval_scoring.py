"""How `prdigest eval` counts a card's verdict against its label (core/eval_scores.py score_cards):
exact at zero steps on skip < skim < read, within one at zero or one step, neither at two. The
eval's own floor (tests/integration/test_eval_cli.py) catches a drop; these catch inflation."""

from __future__ import annotations

import itertools

import pytest

from bot.core.eval_scores import CardRun, CardScore, score_cards
from bot.models import Card, Coverage, Verdict

VERDICTS: tuple[Verdict, ...] = ("skip", "skim", "read")
# Each pair of verdicts by how far apart they are on skip < skim < read.
PAIRS_BY_STEPS: dict[int, list[tuple[Verdict, Verdict]]] = {
    steps: [
        (given, expected)
        for given, expected in itertools.product(VERDICTS, repeat=2)
        if abs(VERDICTS.index(given) - VERDICTS.index(expected)) == steps
    ]
    for steps in (0, 1, 2)
}


def run(given: Verdict, expected: Verdict) -> CardRun:
    card = Card("Reworks the widget cache", given, 5, (), (), (), "llm", Coverage(1, 1))
    # A model's card: its reasons are its own prose, never read as contradicting its verdict.
    return CardRun("eval/x.jsonl:1", "acme/widgets#7", expected, (), card, 0.5, None, (), False)


def agreement(score: CardScore) -> tuple[int, int, int]:
    return score.cards, score.exact, score.within_one


def test_the_pairs_cover_every_distance_on_the_scale() -> None:
    assert {steps: len(pairs) for steps, pairs in PAIRS_BY_STEPS.items()} == {0: 3, 1: 4, 2: 2}


@pytest.mark.parametrize(("given", "expected"), PAIRS_BY_STEPS[0])
def test_the_labelled_verdict_is_exact_and_within_one(given: Verdict, expected: Verdict) -> None:
    assert agreement(score_cards([run(given, expected)])) == (1, 1, 1)


@pytest.mark.parametrize(("given", "expected"), PAIRS_BY_STEPS[1])
def test_a_neighbouring_verdict_is_within_one_but_not_exact(given: Verdict, expected: Verdict) -> None:
    assert agreement(score_cards([run(given, expected)])) == (1, 0, 1)


@pytest.mark.parametrize(("given", "expected"), PAIRS_BY_STEPS[2])
def test_a_skip_for_a_read_is_neither_exact_nor_within_one(given: Verdict, expected: Verdict) -> None:
    assert agreement(score_cards([run(given, expected)])) == (1, 0, 0)


def test_a_set_counts_each_card_once_by_its_own_distance() -> None:
    runs = [run(given, expected) for pairs in PAIRS_BY_STEPS.values() for given, expected in pairs]
    # 3 at zero steps, 4 at one, 2 at two: exact counts the 3, within one the 3 and the 4.
    assert agreement(score_cards(runs)) == (9, 3, 7)
    assert agreement(score_cards([])) == (0, 0, 0)
