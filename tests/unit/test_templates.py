"""Model output without its chat template: the tokens a local server left in, the thinking and the
turns they enclose, and answers with too little left to be one."""

from __future__ import annotations

import pytest

from bot.core.checks.sanitize import ANSWER_MAX_CHARS, sanitize_answer, sanitize_card
from bot.core.checks.templates import without_template
from tests.unit.test_sanitize import REPO_URL, make_card, untitled

# What a Gemma 3 270M server answered, in a digest's thread, to "What does #50911 change?".
GEMMA = (
    "<s>[INST]I'll never want to have a conversation with the person in front of me… "
    "I'm not sure what you mean by that, but I can tell you about the weather."
)
ANSWER = "It fuses the MoE dispatch kernels into one."

# Every family of chat template seen from local servers, wrapped around a real answer.
FAMILIES = {
    "llama2": f"<s>[INST] What does #50911 change? [/INST] {ANSWER} </s>",
    "llama2 system": f"<s>[INST] <<SYS>>\nYou answer questions.\n<</SYS>>\n\nWhat changed? [/INST] {ANSWER}</s>",
    "chatml": f"<|im_start|>assistant\n{ANSWER}<|im_end|>",
    "llama3": f"<|begin_of_text|><|start_header_id|>assistant<|end_header_id|>\n\n{ANSWER}<|eot_id|>",
    "gemma": f"<bos><start_of_turn>model\n{ANSWER}<end_of_turn>\n<eos>",
    "phi3": f"<|assistant|>\n{ANSWER}<|end|>",
    "deepseek": f"<\uff5cbegin\u2581of\u2581sentence\uff5c>{ANSWER}<\uff5cend\u2581of\u2581sentence\uff5c>",
    "think": f"<think>\nThe user asks about #50911. The diff fuses kernels.\n</think>\n\n{ANSWER}",
    "thinking": f"<thinking>Let me look at the diff.</thinking>{ANSWER}",
    "think opened by the template": f"The user asks about #50911, so I read the diff.\n</think>\n\n{ANSWER}",
    "escaped": f"&lt;s&gt;[INST] What changed? [/INST] {ANSWER}&lt;/s&gt;",
}


@pytest.mark.parametrize("family", FAMILIES)
def test_each_template_family_leaves_the_answer_alone(family: str) -> None:
    assert without_template(FAMILIES[family]) == ANSWER
    assert sanitize_answer(FAMILIES[family], REPO_URL) == ANSWER


def test_a_long_answer_is_capped_after_its_template_tokens_are_gone() -> None:
    # The cap falls inside `<end_of_turn>`: cut first, a `<end_of_` would be left behind.
    text = "y " * (ANSWER_MAX_CHARS // 2 - 3) + "<end_of_turn>\n" + "z " * 50
    answer = sanitize_answer(text, REPO_URL)
    assert answer is not None and len(answer) <= ANSWER_MAX_CHARS
    assert "<" not in answer and "end_of" not in answer


def test_the_gemma_answer_is_a_user_turn_the_model_made_up_and_is_not_usable() -> None:
    assert without_template(GEMMA) == ""
    assert sanitize_answer(GEMMA, REPO_URL) is None


@pytest.mark.parametrize(
    "text",
    [
        "<think>The user asks about the PR and I will now think at length without ever finishing",
        "<|im_start|>user\nWhat about #50912?<|im_end|>",
        "<start_of_turn>user\nAnd the tests?",
        "<|start_header_id|>user<|end_header_id|>\n\nmore questions",
        "<|user|>\nthanks",
        "<|im_end|><|im_end|><|im_end|><|im_end|> ok sure fine",  # more than half of it is template
        "<s>Yes.</s>",  # fewer than three words left
        "<eos>",
        "<|im_" * 9 + "<|im_start|>" + "start|>" * 9,  # each removal joins another token: built to do so
    ],
)
def test_an_answer_with_too_little_left_is_not_usable(text: str) -> None:
    assert sanitize_answer(text, REPO_URL) is None


def test_an_end_of_turn_after_the_answer_ends_it() -> None:
    text = f"{ANSWER}<|im_end|>\n<|im_start|>user\nthanks!<|im_end|>\n<|im_start|>assistant\nYou're welcome."
    assert without_template(text) == ANSWER
    assert without_template(f"{ANSWER}</s> and then the model went on by itself") == ANSWER


def test_a_token_between_two_words_leaves_a_space() -> None:
    assert without_template("It fuses<|im_start|>the dispatch kernels.") == "It fuses the dispatch kernels."


def test_tokens_in_code_are_written_about_and_stay() -> None:
    text = "The parser now strips `<think>` blocks and stops at `<|im_end|>`.\n```\n<s>[INST] hi [/INST]\n```"
    assert without_template(text) == text


def test_a_think_tag_named_in_prose_goes_alone() -> None:
    assert (
        without_template("It handles a missing <think> tag in the reasoning parser.")
        == "It handles a missing tag in the reasoning parser."
    )


def test_text_without_tokens_is_untouched() -> None:
    text = "Adds `List<T>` support, [see docs], and <b>bold</b> is not Slack's: a < b > c."
    assert without_template(text) == text


def test_tokens_joined_by_a_removal_go_too() -> None:
    assert without_template(f"<|im_<|im_start|>start|>assistant\n{ANSWER}") == ANSWER


def test_mentions_hidden_by_a_token_are_still_removed() -> None:
    assert sanitize_answer(f"{ANSWER} <<|im_start|>!channel> <<bos>@U123>", REPO_URL) == ANSWER


def test_every_text_field_of_a_model_card_loses_its_template() -> None:
    card = make_card(
        "<start_of_turn>model\nFuses the MoE dispatch kernels<end_of_turn>",
        why=("<|im_start|>assistant\nOne kernel per layer instead of several<|im_end|>",),
        caveats=("<think>hmm</think>No benchmark in the PR",),
        watch=("<s>[INST] what next? [/INST]",),
    )
    clean = sanitize_card(card, REPO_URL, untitled=untitled(card), fallback_headline="Fuse MoE dispatch")
    assert clean.headline == "Fuses the MoE dispatch kernels"
    assert clean.why == ("One kernel per layer instead of several",)
    assert clean.caveats == ("No benchmark in the PR",)
    assert clean.watch == ()
    assert sanitize_card(clean, REPO_URL, untitled=untitled(clean)) == clean


def test_a_model_headline_of_template_only_gives_way_to_the_title() -> None:
    card = make_card("<|im_start|>user\nsummarise this<|im_end|>")
    title = "Support <think> in the parser"
    assert sanitize_card(card, REPO_URL, untitled=untitled(card), fallback_headline=title).headline == (
        "Support <think> in the parser"
    )


def test_a_heuristic_card_keeps_the_titles_tokens() -> None:
    card = make_card("Handle a missing <think> in the DeepSeek-R1 parser", source="heuristic")
    assert sanitize_card(card, REPO_URL, untitled=untitled(card)).headline == (
        "Handle a missing <think> in the DeepSeek-R1 parser"
    )
