"""The card writer's rule with a scripted model: write, check, ask again naming what the PR does
not state, cut what is still unsupported (DESIGN.md §1), all within one time budget."""

from __future__ import annotations

import logging

import pytest
from devkit.scripted import ScriptedModel

from bot.cards.writer import ModelCardWriter
from bot.core.deadline import Budget
from bot.core.pacing import Pacing
from bot.core.prompting.context_window import OUTPUT_RESERVE
from bot.core.prompting.drafts import CardDraft
from bot.core.strings.text import estimate_tokens
from bot.errors import ModelBadOutput, ModelOutOfTime, ModelTimeout, ModelUnavailable, SummarizerError
from bot.models import Message, PRSnapshot
from tests.unit.builders import make_file, make_snapshot

TITLE = "[Perf] Speed up decode by 2.5x"
INVENTED = "16 GiB"
BUDGET_SECONDS = 100.0


def decode_pr() -> PRSnapshot:
    return make_snapshot(
        [make_file("vllm/v1/attention/decode.py", 3, 1), make_file("tests/v1/test_decode.py", 2, 0)],
        title=TITLE,
        body="Fuses the decode kernels into `fused_decode()`.",
    )


def draft(headline: str, why: tuple[str, ...] = (), caveats: tuple[str, ...] = ()) -> CardDraft:
    return CardDraft(headline=headline, verdict="read", minutes=12, why=list(why), caveats=list(caveats), watch=[])


def writer_for(model: ScriptedModel, *, token_budget: int = 8000, retries: int = 2) -> ModelCardWriter:
    return ModelCardWriter(
        model,
        token_budget=token_budget,
        budget=Budget(BUDGET_SECONDS, retries),
        pacing=Pacing(model.clock, model.clock.sleep),
    )


# -- a faithful first answer -----------------------------------------------------------------------


def test_a_faithful_card_is_asked_for_once_and_records_what_was_checked() -> None:
    model = ScriptedModel(draft("Decode 2.5x faster", why=("Touches vllm/v1/attention/decode.py",)))
    card = writer_for(model).card(decode_pr(), "en")

    assert len(model.calls) == 1
    assert card.headline == "Decode 2.5x faster"
    assert card.why == ("Touches vllm/v1/attention/decode.py",)
    assert (card.checked, card.dropped, card.regenerated) == (2, 0, False)
    assert card.source == "llm" and card.language == "en"
    assert (card.coverage.files_total, card.coverage.files_read) == (2, 2)


def test_the_request_is_the_fenced_pr_under_the_card_schema() -> None:
    model = ScriptedModel(draft("Decode 2.5x faster"))
    writer_for(model).card(decode_pr(), "en")

    (call,) = model.calls
    assert call.kind == "parse" and call.schema is CardDraft
    system, user = call.messages
    assert system.role == "system" and "Return JSON with exactly these fields" in system.content
    assert user.role == "user" and f"Title: {TITLE}" in user.content and "<pr_data id=" in user.content
    assert call.seconds_left == BUDGET_SECONDS


def test_a_raw_json_answer_is_a_card_too() -> None:
    model = ScriptedModel(draft("Decode 2.5x faster").model_dump_json())
    assert writer_for(model).card(decode_pr(), "en").headline == "Decode 2.5x faster"


def test_the_writer_names_the_model_and_the_prompt_version_for_the_cache_key() -> None:
    writer = writer_for(ScriptedModel(model="gpt-test"))
    assert writer.model == "gpt-test"
    assert writer.prompt_version.startswith("card-")


# -- an unsupported claim --------------------------------------------------------------------------


def test_the_second_request_names_the_unsupported_figure_and_a_clean_answer_is_used() -> None:
    invented = draft(f"Decode 2.5x faster, saves {INVENTED}")
    model = ScriptedModel(invented, draft("Decode 2.5x faster with fused kernels", why=("`fused_decode()` is new",)))
    card = writer_for(model).card(decode_pr(), "en")

    first, second = model.calls
    # The same conversation, the model's own answer, then the claims it must drop, and only those.
    assert second.messages[:2] == first.messages
    assert second.messages[2] == Message("assistant", invented.model_dump_json())
    assert second.messages[3].role == "user"
    assert f'do not appear in the PR: "{INVENTED}"' in second.last
    assert "2.5x" not in second.last
    assert card.headline == "Decode 2.5x faster with fused kernels"
    assert (card.regenerated, card.dropped, card.checked) == (True, 0, 2)


def test_a_claim_still_unsupported_is_cut_and_unsupported_points_dropped() -> None:
    stubborn = draft(
        f"Decode 2.5x faster, saves {INVENTED}",
        why=("Cuts 40% of kernel launches", "`fused_decode()` replaces two kernels"),
        caveats=("Only tested on H200", "No benchmark in the PR"),
    )
    model = ScriptedModel(stubborn, stubborn)
    card = writer_for(model).card(decode_pr(), "en")

    assert len(model.calls) == 2
    assert card.headline == "Decode 2.5x faster"  # the PR's own figure stays
    assert card.why == ("`fused_decode()` replaces two kernels",)
    assert card.caveats == ("No benchmark in the PR",)
    assert (card.regenerated, card.dropped, card.checked) == (True, 3, 5)


def test_a_headline_cut_too_short_falls_back_to_the_title() -> None:
    model = ScriptedModel(draft(f"Saves {INVENTED}"), draft(f"Saves {INVENTED}"))
    card = writer_for(model).card(decode_pr(), "en")
    assert card.headline == "[Perf] Speed up decode by 2.5x"  # the heuristic headline of the title, scope tag kept
    assert card.dropped == 1 and card.source == "llm"


@pytest.mark.parametrize("headline", ["1", "- -", "#1 …"])
def test_a_headline_without_a_word_gives_way_to_the_title(headline: str) -> None:
    # What Gemma 3 270M wrote for a vLLM PR: the card stays the model's, the headline says something.
    card = writer_for(ScriptedModel(draft(headline))).card(decode_pr(), "en")
    assert card.headline == "[Perf] Speed up decode by 2.5x" and card.source == "llm"


def test_a_failed_second_request_cuts_the_first_answer() -> None:
    model = ScriptedModel(draft(f"Decode 2.5x faster, saves {INVENTED}"), ModelUnavailable("down", 503))
    card = writer_for(model).card(decode_pr(), "en")
    assert len(model.calls) == 2
    assert card.headline == "Decode 2.5x faster"
    assert (card.regenerated, card.dropped) == (False, 1)


def test_an_unusable_second_answer_cuts_the_first_answer() -> None:
    model = ScriptedModel(draft(f"Decode 2.5x faster, saves {INVENTED}"), draft("   "))
    card = writer_for(model).card(decode_pr(), "en")
    assert card.headline == "Decode 2.5x faster" and not card.regenerated


def test_a_spent_budget_makes_no_second_request() -> None:
    model = ScriptedModel().then(draft(f"Decode 2.5x faster, saves {INVENTED}"), takes=BUDGET_SECONDS * 0.95)
    card = writer_for(model).card(decode_pr(), "en")
    assert len(model.calls) == 1
    assert card.headline == "Decode 2.5x faster" and card.dropped == 1


def test_the_second_request_gets_only_what_is_left_of_the_one_budget() -> None:
    model = ScriptedModel().then(draft(f"Decode 2.5x faster, saves {INVENTED}"), takes=30)
    model.then(draft("Decode 2.5x faster"))
    writer_for(model).card(decode_pr(), "en")
    assert [call.seconds_left for call in model.calls] == [BUDGET_SECONDS, BUDGET_SECONDS - 30]


# -- a failed first request ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "failure",
    [ModelTimeout("slow"), ModelUnavailable("down", 503), ModelOutOfTime("spent"), SummarizerError("other")],
)
def test_a_failed_first_request_is_raised_for_the_caller_to_fall_back(
    failure: SummarizerError, caplog: pytest.LogCaptureFixture
) -> None:
    model = ScriptedModel(failure)
    with caplog.at_level(logging.INFO, logger="bot.cards.writer"), pytest.raises(type(failure)):
        writer_for(model).card(decode_pr(), "en")
    assert len(model.calls) == 1
    # Info, not a warning: the surface says once that cards came from metadata.
    (record,) = caplog.records
    assert record.levelno == logging.INFO and type(failure).__name__ in record.getMessage()


def test_an_answer_that_does_not_fit_the_schema_twice_is_bad_output() -> None:
    model = ScriptedModel('{"headline": "no verdict"}', '{"headline": "still none"}')
    with pytest.raises(ModelBadOutput):
        writer_for(model).card(decode_pr(), "en")
    assert len(model.calls) == 2


def test_an_empty_headline_twice_is_bad_output() -> None:
    with pytest.raises(ModelBadOutput):
        writer_for(ScriptedModel(draft(" \n "), draft(""))).card(decode_pr(), "en")


@pytest.mark.parametrize(
    "broken",
    [
        # What Gemma 3 270M sent through llama-cpp-python in tools mode: a string cut at 902 characters.
        '{"headline": "Explicitly manage torch CPU threads", "verdict": "read", "minutes": 5, '
        '"why": ["build-up build-up',
        '{"headline": "no verdict"}',
    ],
)
def test_an_answer_that_is_not_a_card_is_asked_for_once_more(broken: str) -> None:
    model = ScriptedModel(broken, draft("Decode 2.5x faster"))
    card = writer_for(model).card(decode_pr(), "en")
    assert card.source == "llm" and card.headline == "Decode 2.5x faster"
    first, second = (call.messages for call in model.calls)
    # The same conversation, the note at the end of its user turn: roles still alternate.
    assert [m.role for m in second] == [m.role for m in first] == ["system", "user"]
    assert second[1].content.startswith(first[1].content)
    assert "not one complete JSON object" in second[1].content


# -- budgets and languages -------------------------------------------------------------------------


def test_the_prompt_keeps_within_the_token_budget_with_room_for_the_answer() -> None:
    big = make_snapshot([make_file(f"vllm/module_{n}.py", 400, 50) for n in range(40)], title="[Core] Rewrite")
    for token_budget in (2000, 6000, 20000):
        model = ScriptedModel(draft("Rewrites the core"))
        writer_for(model, token_budget=token_budget).card(big, "en")
        (call,) = model.calls
        sent = estimate_tokens("".join(message.content for message in call.messages))
        assert token_budget / 2 < sent <= token_budget - OUTPUT_RESERVE


def test_a_tiny_token_budget_still_sends_the_pr() -> None:
    model = ScriptedModel(draft("Decode 2.5x faster"))
    writer_for(model, token_budget=10).card(decode_pr(), "en")
    assert f"Title: {TITLE}" in model.calls[0].messages[1].content


def test_a_zh_cn_card_is_asked_for_in_chinese_within_the_cjk_headline_limit() -> None:
    model = ScriptedModel(draft("解码速度提升 2.5x，" + "融合内核" * 30))
    card = writer_for(model).card(decode_pr(), "zh-CN")

    system = model.calls[0].messages[0].content
    assert "Simplified Chinese" in system and "at most 60 characters" in system
    assert card.language == "zh-CN"
    assert len(card.headline) <= 60 and card.headline.startswith("解码速度提升 2.5x")


def test_an_english_card_is_asked_for_in_english() -> None:
    model = ScriptedModel(draft("Decode 2.5x faster"))
    writer_for(model).card(decode_pr(), "en")
    system = model.calls[0].messages[0].content
    assert "Write the headline and the points in English" in system and "at most 120 characters" in system


# -- counts ----------------------------------------------------------------------------------------


def test_a_count_the_pr_does_not_state_is_named_in_the_second_request_and_then_cut() -> None:
    """The diff holds 3s (hunk headers, line counts) but never "3 kernel launches"."""
    invented = draft("Fuses the decode kernels, removing 3 kernel launches", why=("Saves 3 kernel launches per step",))
    model = ScriptedModel(invented, invented)
    card = writer_for(model).card(decode_pr(), "en")

    first, second = model.calls
    assert "3" in first.messages[1].content
    assert 'do not appear in the PR: "3 kernel launches"' in second.last
    assert card.headline == "Fuses the decode kernels"
    assert card.why == ()
    assert (card.regenerated, card.dropped) == (True, 2)


def test_a_count_the_pr_states_with_its_noun_is_kept() -> None:
    snapshot = make_snapshot(
        [make_file("vllm/v1/attention/decode.py", 3, 1)], title=TITLE, body="One launch instead of 3 kernel launches."
    )
    model = ScriptedModel(draft("Replaces 3 kernel launches with one"))
    card = writer_for(model).card(snapshot, "en")
    assert len(model.calls) == 1
    assert card.headline == "Replaces 3 kernel launches with one"
    assert (card.checked, card.dropped) == (1, 0)


def test_a_zh_cn_card_may_count_the_pr_s_files_in_its_own_words() -> None:
    # The PR's size line says "2 files"; "2 个文件" states the same fact and is not cut.
    model = ScriptedModel(draft("解码速度提升 2.5x", why=("改动 2 个文件，集中在解码路径",)))
    card = writer_for(model).card(decode_pr(), "zh-CN")
    assert len(model.calls) == 1
    assert card.why == ("改动 2 个文件，集中在解码路径",) and card.dropped == 0
