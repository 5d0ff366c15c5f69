"""The example day without a model (scripts/heuristic_trial.py): the heuristic agrees with the digest
readers want. The expected verdicts and figures are read from that digest, not written here, and
the rules know nothing of these eight PRs: this pins how well general rules do on them."""

from __future__ import annotations

import pytest

from bot.core.checks.faithfulness import SourceText, check_card_text
from bot.core.prompting.context import build_context
from bot.models import Language
from scripts import heuristic_trial
from tests.shared_data import shared_rows

# Before the heuristic read descriptions: 2 of 8 verdicts, 1 of 4 key figures (the one in a title).
MIN_VERDICTS_MATCHED = 7
MIN_FIGURES_CARRIED = 4


@pytest.fixture(scope="module")
def trials() -> list[heuristic_trial.Trial]:
    shared_rows()  # skips (or fails on CI) without the shared data
    if not heuristic_trial.EXAMPLE_DIGEST.exists():
        pytest.skip(f"the example digest is not at {heuristic_trial.EXAMPLE_DIGEST}")
    return heuristic_trial.run()


def test_the_example_digest_is_read_as_eight_verdicts_four_with_a_figure(trials: list[heuristic_trial.Trial]) -> None:
    assert len(trials) == 8
    assert sum(1 for trial in trials if trial.expected.figures) == 4


def test_most_verdicts_agree_with_the_example_digest(trials: list[heuristic_trial.Trial]) -> None:
    matched = [trial.number for trial in trials if trial.verdict_matches]
    assert len(matched) >= MIN_VERDICTS_MATCHED, [(t.number, t.expected.verdict, t.card.verdict) for t in trials]


def test_every_headline_carries_the_key_figure_the_description_states(trials: list[heuristic_trial.Trial]) -> None:
    carried = [trial.number for trial in trials if trial.carries_figure]
    assert len(carried) >= MIN_FIGURES_CARRIED, [trial.card.headline for trial in trials]


@pytest.mark.parametrize("language", ["en", "zh-CN"])
def test_the_example_cards_state_only_what_their_prs_state(language: Language) -> None:
    shared_rows()
    for snapshot in heuristic_trial.seed_snapshots():
        card = heuristic_trial.card(snapshot, language)
        source = SourceText.of(build_context(snapshot, 12_000).text, (change.path for change in snapshot.files))
        check = check_card_text(card.headline, (*card.why, *card.caveats, *card.watch), source)
        assert check.unsupported == (), (snapshot.listing.number, check.unsupported)
