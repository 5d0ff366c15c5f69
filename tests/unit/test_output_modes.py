"""The card writer across endpoints: the output modes tried strongest first, a refusal that is
not a failure, the working mode remembered, and prompts kept within the model's context window."""

from __future__ import annotations

import pytest
from devkit.scripted import ScriptedModel

from bot.cards.writer import ModelCardWriter, ModelFit
from bot.core.deadline import Budget
from bot.core.pacing import Pacing
from bot.core.prompting.context_window import FIT_MARGIN, OUTPUT_RESERVE
from bot.core.prompting.drafts import CardDraft
from bot.core.strings.text import estimate_tokens
from bot.errors import (
    ContextTooLong,
    ModelBadOutput,
    ModelRejected,
    ModelUnavailable,
    ModeRefused,
    SummarizerError,
)
from bot.models import OUTPUT_MODES, OutputMode, PRSnapshot
from bot.store.backends.memory import MemoryKV
from bot.store.modes import MODE_TTL, Learned, ModeMemory, mode_key
from tests.unit.builders import make_file, make_snapshot

URL = "http://llama.local:8080/v1"
BUDGET_SECONDS = 100.0
GOOD = CardDraft(headline="Decode is faster", verdict="skim", minutes=3, why=[], caveats=[], watch=[])


def refused(mode: OutputMode) -> ModeRefused:
    return ModeRefused(mode, 500, None, "1 validation error: … 'loc': ('body', 'response_format', 'type') …")


def small_pr() -> PRSnapshot:
    return make_snapshot([make_file("vllm/decode.py", 3, 1)], title="Speed up decode")


def big_pr() -> PRSnapshot:
    return make_snapshot([make_file(f"vllm/module_{n}.py", 400, 50) for n in range(40)], title="[Core] Rewrite")


class CountingKV(MemoryKV):
    def __init__(self) -> None:
        super().__init__()
        self.writes: list[tuple[str, int | None]] = []

    def set(self, key: str, value: bytes, ttl: int | None) -> None:
        self.writes.append((key, ttl))
        super().set(key, value, ttl)


def writer_for(
    model: ScriptedModel,
    memory: ModeMemory | None = None,
    *,
    mode: OutputMode | None = None,
    context_window: int | None = None,
    max_output_tokens: int | None = None,
    token_budget: int = 12000,
) -> ModelCardWriter:
    return ModelCardWriter(
        model,
        token_budget=token_budget,
        budget=Budget(BUDGET_SECONDS, 2),
        pacing=Pacing(model.clock, model.clock.sleep),
        memory=memory,
        fit=ModelFit(mode, context_window, max_output_tokens),
    )


def sent_tokens(model: ScriptedModel, index: int = -1) -> int:
    return estimate_tokens("".join(message.content for message in model.calls[index].messages))


# -- the order of the modes ------------------------------------------------------------------------


def test_the_first_card_asks_for_the_strictest_mode() -> None:
    model = ScriptedModel(GOOD)
    assert writer_for(model).card(small_pr(), "en").source == "llm"
    assert [call.mode for call in model.calls] == ["json_schema"]


def test_each_refused_mode_gives_way_to_the_next_within_the_one_budget() -> None:
    model = ScriptedModel(refused("json_schema"), refused("tools"), GOOD)
    card = writer_for(model).card(small_pr(), "en")

    assert card.source == "llm" and card.headline == "Decode is faster"
    # Each mode asked once: a refusal is not retried in its mode, nor counted as the card's failure.
    assert [call.mode for call in model.calls] == ["json_schema", "tools", "json_object"]
    assert all(call.seconds_left == BUDGET_SECONDS for call in model.calls)
    assert model.calls[0].messages == model.calls[2].messages  # the same request, another way


def test_the_text_mode_answer_is_read_from_what_surrounds_it() -> None:
    replies = [refused(mode) for mode in OUTPUT_MODES[:-1]]
    wrapped = f"<think>The card {{...}}</think>\nHere it is:\n```json\n{GOOD.model_dump_json()}\n```"
    model = ScriptedModel(*replies, wrapped)
    card = writer_for(model).card(small_pr(), "en")
    assert card.headline == "Decode is faster" and model.calls[-1].mode == "text"


def test_an_endpoint_that_refuses_every_mode_fails_the_card() -> None:
    model = ScriptedModel(*(refused(mode) for mode in OUTPUT_MODES))
    with pytest.raises(ModeRefused):
        writer_for(model).card(small_pr(), "en")
    assert [call.mode for call in model.calls] == list(OUTPUT_MODES)


@pytest.mark.parametrize(
    "failure",
    [
        ModelUnavailable("the model endpoint answered 500", 500),  # an outage, not a refusal
        ModelBadOutput("invalid JSON"),  # the model's answer, not the endpoint's ability
        ModelRejected(400, "invalid_api_key", "Incorrect API key provided"),
    ],
)
def test_other_failures_are_the_card_s_and_no_weaker_mode_is_tried(failure: SummarizerError) -> None:
    # A bad answer is asked for once more (told so), in the same mode.
    model = ScriptedModel(failure, failure)
    with pytest.raises(type(failure)):
        writer_for(model).card(small_pr(), "en")
    asked = ["json_schema", "json_schema"] if isinstance(failure, ModelBadOutput) else ["json_schema"]
    assert [call.mode for call in model.calls] == asked


def test_a_pinned_mode_is_the_only_one_asked() -> None:
    model = ScriptedModel(GOOD)
    memory = ModeMemory(MemoryKV(), URL, model.model)
    memory.remember(Learned("text"))
    writer_for(model, memory, mode="json_object").card(small_pr(), "en")
    assert [call.mode for call in model.calls] == ["json_object"]

    refusing = ScriptedModel(refused("tools"))
    with pytest.raises(ModeRefused):
        writer_for(refusing, mode="tools").card(small_pr(), "en")
    assert len(refusing.calls) == 1


def test_the_second_request_for_unsupported_claims_keeps_the_mode_that_worked() -> None:
    invented = CardDraft(headline="Decode saves 16 GiB", verdict="read", minutes=9, why=[], caveats=[], watch=[])
    model = ScriptedModel(refused("json_schema"), invented, GOOD)
    card = writer_for(model).card(small_pr(), "en")
    assert card.regenerated
    assert [call.mode for call in model.calls] == ["json_schema", "tools", "tools"]


# -- what is remembered ----------------------------------------------------------------------------


def test_the_working_mode_is_remembered_for_a_day_and_the_next_card_starts_there() -> None:
    kv = CountingKV()
    model = ScriptedModel(refused("json_schema"), refused("tools"), GOOD, GOOD)
    writer = writer_for(model, ModeMemory(kv, URL, model.model))
    writer.card(small_pr(), "en")
    writer.card(small_pr(), "en")

    assert [call.mode for call in model.calls] == ["json_schema", "tools", "json_object", "json_object"]
    # Written once, when learned: the day runs from the discovery, then the stronger modes are probed.
    assert kv.writes == [(mode_key(URL, model.model), MODE_TTL)]
    assert ModeMemory(kv, URL, model.model).recall() == Learned("json_object")


def test_a_remembered_mode_that_is_refused_now_gives_way_and_the_news_is_written() -> None:
    kv = MemoryKV()
    memory = ModeMemory(kv, URL, "scripted-model")
    memory.remember(Learned("tools"))
    model = ScriptedModel(refused("tools"), GOOD)
    writer_for(model, memory).card(small_pr(), "en")
    assert [call.mode for call in model.calls] == ["tools", "json_object"]
    assert memory.recall() == Learned("json_object")


def test_memory_is_per_endpoint_and_model_and_the_key_hides_the_url() -> None:
    kv = MemoryKV()
    ModeMemory(kv, "http://robot:hunter2@llama.local/v1", "gemma").remember(Learned("tools", 4096))
    assert ModeMemory(kv, "http://robot:hunter2@llama.local/v1", "gemma").recall() == Learned("tools", 4096)
    assert ModeMemory(kv, "http://other.local/v1", "gemma").recall() is None
    assert ModeMemory(kv, "http://robot:hunter2@llama.local/v1", "qwen").recall() is None
    key = mode_key("http://robot:hunter2@llama.local/v1", "gemma")
    assert "hunter2" not in key and "llama.local" not in key and key.endswith(":gemma")


def test_a_value_written_by_another_version_is_a_miss() -> None:
    kv = MemoryKV()
    kv.set(mode_key(URL, "m"), b'{"mode": "yaml"}', MODE_TTL)
    assert ModeMemory(kv, URL, "m").recall() is None


# -- context windows -------------------------------------------------------------------------------


def test_a_configured_window_bounds_the_prompt_with_room_for_the_answer() -> None:
    model = ScriptedModel(GOOD)
    writer_for(model, context_window=4096, max_output_tokens=1000).card(big_pr(), "en")
    assert 4096 - 1000 - 200 < sent_tokens(model) <= 4096 - 1000
    assert model.window_asked == 0  # configured: the endpoint is not asked


def test_without_a_window_the_prompt_keeps_to_the_token_budget() -> None:
    model = ScriptedModel(GOOD)
    writer_for(model, token_budget=8000).card(big_pr(), "en")
    assert sent_tokens(model) <= 8000 - OUTPUT_RESERVE


def test_a_window_from_the_endpoint_s_model_list_is_read_once_and_remembered() -> None:
    model = ScriptedModel(GOOD, GOOD, window=3000)
    memory = ModeMemory(MemoryKV(), URL, model.model)
    writer = writer_for(model, memory)
    writer.card(big_pr(), "en")
    writer.card(big_pr(), "en")
    assert model.window_asked == 1
    assert sent_tokens(model, 0) <= 3000 - OUTPUT_RESERVE and sent_tokens(model, 1) <= 3000 - OUTPUT_RESERVE
    assert memory.recall() == Learned("json_schema", 3000)


def test_a_prompt_too_long_for_the_window_is_cut_to_fit_and_sent_once_more() -> None:
    too_long = ContextTooLong(400, "context_length_exceeded", "…", window=4096, prompt_tokens=8000)
    model = ScriptedModel(too_long, GOOD)
    memory = ModeMemory(MemoryKV(), URL, model.model)
    card = writer_for(model, memory).card(big_pr(), "en")

    first, second = model.calls
    assert first.mode == second.mode == "json_schema"
    assert sent_tokens(model, 1) <= int((4096 - OUTPUT_RESERVE) * FIT_MARGIN)
    # Coverage is what the model was sent the second time: fewer files read, the rest named.
    assert card.source == "llm" and card.coverage.files_read < card.coverage.files_total
    assert memory.recall() == Learned("json_schema", 4096)


def test_a_prompt_too_long_twice_fails_the_card() -> None:
    too_long = ContextTooLong(400, "context_length_exceeded", "…", window=4096, prompt_tokens=8000)
    model = ScriptedModel(too_long, too_long)
    with pytest.raises(ContextTooLong):
        writer_for(model).card(big_pr(), "en")
    assert len(model.calls) == 2


def test_a_too_long_error_during_negotiation_keeps_the_mode_it_reached() -> None:
    too_long = ContextTooLong(400, "context_length_exceeded", "…", window=None, prompt_tokens=None)
    model = ScriptedModel(refused("json_schema"), too_long, GOOD)
    writer_for(model).card(big_pr(), "en")
    assert [call.mode for call in model.calls] == ["json_schema", "tools", "tools"]
    assert sent_tokens(model, 2) < sent_tokens(model, 1)
