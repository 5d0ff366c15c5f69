"""The question set (tests/questions/asked.jsonl: 83 questions as people ask them in a busy
repository's channel, in English and Chinese, with the PRs a careful reader expects), asked
through the real app after two posted digests, with the rules alone (no model), then with two
scripted models that answer badly (devkit/fakes/bad_models.py): every question scores the same."""

from __future__ import annotations

from scripts import question_trial
from tests.shared_data import shared_rows

# How many of the 83 get the PRs a reader expects in every mode, as measured (docs/benchmarks.md,
# issue 34: 92%): a change that answers fewer fails here. Raise it when more pass.
FLOOR = 76


def test_the_question_set_is_answered_as_a_reader_expects_whatever_the_model_writes() -> None:
    # Fluent prose citing no PR; prose citing PRs it was not shown and figures none of them has.
    # Either stands above the list the rules found, checked: the PRs named are the rules'.
    shared_rows()  # the trial loads the shared data set: skipped without it (failed on CI)
    questions = question_trial.load_questions()
    runs = {model: question_trial.run(questions, model) for model in question_trial.MODELS}
    for model, (outcomes, world) in runs.items():
        assert world["slack_rejections"] == [], model
        assert (world["model_calls"] > 0) == (model != "none"), model
        failed = [outcome.asked.id for outcome in outcomes if not outcome.passed]
        assert len(outcomes) - len(failed) >= FLOOR, (model, failed)
    assert question_trial.differing(runs) == []
