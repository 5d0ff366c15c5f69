"""The labelled files of `prdigest eval` (eval/labels.py) and how cards and answers are
scored against them (core/eval_scores.py): pure, no fakes."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.eval_scores import AnswerRun, carries, says_not_stated, steps_apart
from bot.errors import UsageError
from bot.eval.files import jsonl_lines
from bot.eval.labels import parse_labels, parse_questions
from bot.models import PRRef

EVAL = Path(__file__).resolve().parents[2] / "eval"


def test_the_shipped_sets_parse_and_hold_what_the_issue_asks() -> None:
    seed = parse_labels(jsonl_lines(str(EVAL / "seed.jsonl")), "eval/seed.jsonl")
    vllm = parse_labels(jsonl_lines(str(EVAL / "vllm.jsonl")), "eval/vllm.jsonl")
    questions = parse_questions(jsonl_lines(str(EVAL / "answers.jsonl")), "eval/answers.jsonl")
    assert len(seed) == 8 and len(vllm) >= 40
    assert not {label.ref for label in seed} & {label.ref for label in vllm}
    assert seed[0].ref == PRRef("vllm-project/vllm", 51079) and seed[0].where == "eval/seed.jsonl:1"
    assert len(questions) >= 30
    chinese = [q for q in questions if any("\u4e00" <= char <= "\u9fff" for char in q.question)]
    assert 3 * len(chinese) >= len(questions)
    assert any(q.not_stated for q in questions) and any(q.ref is None for q in questions)


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("[1, 2]", "x.jsonl line 2: not a JSON object"),
        ('{"ref": "a/b#1", "verdict": "skip", "why": "x"}', "x.jsonl line 2: unknown field 'why'"),
        ('{"ref": "a/b#one", "verdict": "skip"}', "x.jsonl line 2: 'a/b#one' is not a PR reference"),
        ('{"ref": "a/b#1", "verdict": "Skip"}', "x.jsonl line 2: verdict 'Skip' is not skip, skim or read"),
        ('{"ref": "a/b#1", "verdict": "skip", "minutes": "5"}', "x.jsonl line 2: field 'minutes' is missing"),
        ('{"ref": "a/b#1", "verdict": "skip", "figures": "1.6us"}', "x.jsonl line 2: field 'figures' is missing"),
        ('{"verdict": "skip"}', "x.jsonl line 2: field 'ref' is missing"),
    ],
)
def test_a_bad_line_names_the_file_and_the_line(line: str, said: str) -> None:
    with pytest.raises(UsageError) as raised:
        parse_labels(['{"ref": "a/b#7", "verdict": "read"}', line, ""], "x.jsonl")
    assert str(raised.value).startswith(said)


def test_blank_lines_are_skipped_but_a_file_without_labels_is_an_error() -> None:
    assert len(parse_labels(["", '{"ref": "a/b#7", "verdict": "read"}', "", ""], "x.jsonl")) == 1
    with pytest.raises(UsageError, match=r"x\.jsonl holds no labelled line"):
        parse_labels(["", "", ""], "x.jsonl")


def test_a_question_needs_what_it_must_say_or_that_the_pr_does_not_say() -> None:
    (asking,) = parse_questions(['{"ref": "a/b", "question": "what merged?", "must_say": ["#7"]}'], "q.jsonl")
    assert asking.ref is None and asking.repo == "a/b"
    for line in (
        '{"ref": "a/b#7", "question": "how fast?"}',
        '{"ref": "a/b#7", "question": "how fast?", "must_say": ["2x"], "not_stated": true}',
    ):
        with pytest.raises(UsageError, match=r"q\.jsonl line 1: field 'must_say'"):
            parse_questions([line], "q.jsonl")


@pytest.mark.parametrize(
    ("text", "item", "expected"),
    [
        ("Shards the shared expert, saving 16.98GiB per GPU", "16.98 GiB", True),
        ("Fuse the partial sum — 1.6 us per layer", "1.6us", True),
        ("[K3 Perf] Combine all-gathers, 1.5~3x kernel level", "1.5~3x", True),
        ("[ROCm] Bump torch 2.12", "rocm", True),
        ("Bump torch 2.12", "ROCm", False),
        ("Saves 16.9 GiB", "16.98 GiB", False),
        ("#50912 and #50510 merged", "#50912", True),
    ],
)
def test_a_key_figure_is_carried_by_value_and_a_word_as_written(text: str, item: str, expected: bool) -> None:
    assert carries(text, item) is expected


def test_verdicts_are_steps_apart_on_skip_skim_read() -> None:
    assert steps_apart("skip", "skip") == 0
    assert steps_apart("skip", "skim") == steps_apart("read", "skim") == 1
    assert steps_apart("skip", "read") == 2


@pytest.mark.parametrize("answer", ["The PR does not say.", "PR 中没有说明。", "It doesn't say how much faster."])
def test_an_answer_that_says_the_pr_is_silent_is_right_for_a_not_stated_question(answer: str) -> None:
    assert says_not_stated(answer)
    run = AnswerRun("q:1", "how fast?", (), True, answer, "llm", (), 0.1)
    assert run.right and run.missing == ()


def test_an_answer_missing_a_figure_says_which() -> None:
    run = AnswerRun("q:1", "how much?", ("16.98 GiB", "#50912"), False, "#50912 saves memory", "llm", (), 0.1)
    assert run.missing == ("16.98 GiB",) and not run.right
