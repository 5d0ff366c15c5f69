"""The answerer with a scripted model: what a question sends (material, trimmed history, the
question) and what comes back (stripped, capped, never empty)."""

from __future__ import annotations

import logging

import pytest
from devkit.scripted import ScriptedModel

from bot.core.checks.sanitize import ANSWER_MAX_CHARS
from bot.core.deadline import Budget
from bot.core.pacing import Pacing
from bot.core.prompting.conversation import DIGEST_PATHS_PER_PR, HISTORY_TURN_CHARS, HISTORY_TURNS, digest_text
from bot.core.strings.text import estimate_tokens
from bot.errors import ModelBadOutput, ModelUnavailable
from bot.models import Card, Coverage, DigestItem, Message, Question, Turn
from bot.questions.answerer import CHARS_PER_TOKEN, ModelAnswerer
from tests.unit.builders import make_file, make_listing, make_snapshot

CARD = Card(
    headline="Decode 2.5x faster",
    verdict="read",
    minutes=12,
    why=("`fused_decode()` fuses the kernels",),
    caveats=("No benchmark in the PR",),
    watch=(),
    source="llm",
    coverage=Coverage(files_total=1, files_read=1),
)


def answerer_for(model: ScriptedModel, token_budget: int = 8000) -> ModelAnswerer:
    return ModelAnswerer(
        model, token_budget=token_budget, budget=Budget(60, 1), pacing=Pacing(model.clock, model.clock.sleep)
    )


def item(number: int, title: str = "Faster decode") -> DigestItem:
    return DigestItem(listing=make_listing(number=number, title=title), card=CARD, size=10)


def ask_pr(model: ScriptedModel, history: list[Turn], question: str = "Does it add tests?") -> str:
    snapshot = make_snapshot([make_file("vllm/decode.py", 3, 1)], title="Speed up decode")
    return answerer_for(model).answer_pr(snapshot, CARD, Question(question, tuple(history), "en"))


def test_a_pr_question_sends_the_card_and_the_pr_then_the_question() -> None:
    model = ScriptedModel("  It adds `tests/test_decode.py`.  ")
    answer = ask_pr(model, [])

    assert answer == "It adds `tests/test_decode.py`."
    (call,) = model.calls
    assert call.kind == "complete" and call.seconds_left == 60
    system, material, question = call.messages
    assert system.role == "system" and "You answer questions" in system.content
    assert "Card headline: Decode 2.5x faster" in material.content
    assert "Card point: No benchmark in the PR" in material.content
    assert "Title: Speed up decode" in material.content and "### vllm/decode.py" in material.content
    assert question == Message("user", "Does it add tests?")


def test_only_the_last_turns_are_sent_each_trimmed_and_in_the_model_s_roles() -> None:
    history = [Turn("user" if n % 2 == 0 else "bot", f"turn {n} " + "x" * 2000) for n in range(10)]
    model = ScriptedModel("Yes.")
    ask_pr(model, history, question="q" * 5000)

    turns = model.calls[0].messages[2:-1]
    assert len(turns) == HISTORY_TURNS
    assert [turn.content.split()[1] for turn in turns] == [str(n) for n in range(10 - HISTORY_TURNS, 10)]
    assert [turn.role for turn in turns] == ["user", "assistant"] * (HISTORY_TURNS // 2)
    assert all(len(turn.content) == HISTORY_TURN_CHARS for turn in turns)
    assert model.calls[0].last == "q" * HISTORY_TURN_CHARS


@pytest.mark.parametrize("empty", ["", "   \n "])
def test_an_empty_answer_is_an_error(empty: str) -> None:
    with pytest.raises(ModelBadOutput):
        ask_pr(ScriptedModel(empty), [])


def test_what_is_kept_of_a_runaway_answer_is_bounded() -> None:
    assert len(ask_pr(ScriptedModel("It is faster. " * 10_000), [])) <= ANSWER_MAX_CHARS
    with pytest.raises(ModelBadOutput):  # one endless token, no sentence in it: no answer
        ask_pr(ScriptedModel("y" * 100_000), [])


def test_a_sentence_stating_a_figure_the_pr_does_not_is_withheld_when_shown_whole() -> None:
    # As a streamed answer's sentences are (questions/answerer.py `_streamed`): the terminal, /pr
    # and the eval show the answer whole, and what reaches them is checked the same way.
    answer = ask_pr(ScriptedModel("Decode is 2.5x faster. It cuts latency by 37%. It adds no tests."), [])
    assert answer == "Decode is 2.5x faster. It adds no tests."
    with pytest.raises(ModelBadOutput):  # nothing left once the invented figures are withheld
        ask_pr(ScriptedModel("It cuts latency by 37%."), [])


def test_a_failed_request_is_raised_and_logged_as_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="bot.questions.answerer"), pytest.raises(ModelUnavailable):
        ask_pr(ScriptedModel(ModelUnavailable("down", 503)), [])
    (record,) = caplog.records
    assert "ModelUnavailable" in record.getMessage() and "acme/widgets#101" in record.getMessage()


def test_a_digest_question_sends_each_pr_with_its_first_files() -> None:
    paths = {"acme/widgets#1": tuple(f"src/file_{n}.py" for n in range(20))}
    model = ScriptedModel("PR #1.")
    answer = answerer_for(model).answer_digest((item(1), item(2)), paths, Question("Which PR is biggest?", (), "en"))

    assert answer == "PR #1."
    material = model.calls[0].messages[1].content
    assert "acme/widgets#1 [read] Faster decode" in material and "headline: Decode 2.5x faster" in material
    assert f"src/file_{DIGEST_PATHS_PER_PR - 1}.py" in material
    assert f"src/file_{DIGEST_PATHS_PER_PR}.py" not in material
    assert "acme/widgets#2 [read]" in material and "files: (files not read)" in material


def test_a_digest_too_long_for_the_budget_is_cut_to_it() -> None:
    items = tuple(item(n, title=f"Change number {n} " + "word " * 30) for n in range(1, 400))
    model = ScriptedModel("Many.")
    answerer = answerer_for(model, token_budget=4000)
    answerer.answer_digest(items, {}, Question("What changed?", (), "en"))

    whole = digest_text(items, {})
    limit = answerer.data_budget("en") * CHARS_PER_TOKEN
    assert len(whole) > limit
    assert whole[:limit] in model.calls[0].messages[1].content
    assert whole[: limit + 1] not in model.calls[0].messages[1].content


def test_the_pr_context_leaves_room_for_the_card_and_the_conversation() -> None:
    snapshot = make_snapshot([make_file(f"vllm/module_{n}.py", 400, 50) for n in range(40)])
    model = ScriptedModel("Yes.")
    answerer_for(model, token_budget=6000).answer_pr(snapshot, CARD, Question("Tests?", (), "en"))
    system, material, _ = model.calls[0].messages
    assert estimate_tokens(system.content + material.content) <= 6000 - 2500  # CONVERSATION_RESERVE


def test_a_zh_cn_question_is_answered_in_chinese() -> None:
    model = ScriptedModel("PR 中没有说明。")
    snapshot = make_snapshot([make_file("vllm/decode.py", 3, 1)])
    answerer_for(model).answer_pr(snapshot, CARD, Question("有测试吗？", (), "zh-CN"))
    assert "Simplified Chinese" in model.calls[0].messages[0].content


def test_a_digest_answer_keeps_no_sentence_citing_a_pr_it_was_not_shown() -> None:
    model = ScriptedModel(
        "Read #1 first. It follows acme/widgets#912345 and https://github.com/acme/widgets/pull/7. "
        "See PR 3 too. #2 is routine."
    )
    answer = answerer_for(model).answer_digest((item(1), item(2)), {}, Question("What should I read?", (), "en"))
    assert answer == "Read #1 first. #2 is routine."


def test_a_pr_answer_may_cite_the_pr_and_what_its_text_names_and_nothing_else() -> None:
    snapshot = make_snapshot([make_file("vllm/decode.py", 3, 1)], title="Speed up decode", body="Reverts #4321.")
    model = ScriptedModel("It is #101. It undoes #4321. It builds on #912345. Is #77 related? No.")
    answer = answerer_for(model).answer_pr(snapshot, CARD, Question("Is #77 related?", (), "en"))
    assert answer == "It is #101. It undoes #4321. Is #77 related? No."
