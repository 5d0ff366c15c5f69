"""The models `prdigest eval` compares, built from a process's parts: no model (the heuristic, on
the process's own card store), and each named model at the configured endpoint with its own
[models."NAME"] table, card writer and answerer, as build_process makes the configured one."""

from __future__ import annotations

from collections.abc import Callable

from bot.cards.service import CardService, CardTiming, ModelUse, lease_for
from bot.cards.writer import ModelCardWriter, ModelFit
from bot.core.config import ModelConfig
from bot.core.deadline import DEFAULT_RETRIES, Budget
from bot.eval.runs import CountedModel, EvalModel
from bot.llm.lazy import Endpoint, ModelOnFirstUse
from bot.questions.answerer import ModelAnswerer
from bot.settings import DEFAULT_OPENAI_URL
from bot.store.modes import ModeMemory
from bot.wiring.process import Process


def no_model(process: Process) -> EvalModel:
    use = ModelUse(None, process.settings.defaults.skip_model_for)
    return EvalModel(
        None, CardService(process.source, process.store, None, timing=CardTiming(process.timing.pacing), use=use)
    )


def named_model(process: Process, name: str) -> tuple[EvalModel, Callable[[], None]]:
    """The model `name` at the configured endpoint, and what closes its client. The caller has
    checked that an API key is set."""
    settings = process.settings
    assert settings.openai_api_key is not None
    options = settings.config.models.get(name, ModelConfig())
    timeout = process.model_timeout
    inner = ModelOnFirstUse.of(
        Endpoint(
            settings.openai_api_key,
            settings.openai_base_url,
            name,
            timeout,
            options.max_output_tokens,
            options.temperature,
            options.seed,
            options.system_role,
        )
    )
    model = CountedModel(inner)
    timing = process.timing
    budget = Budget(timeout, DEFAULT_RETRIES if timing.model_retries is None else timing.model_retries)
    memory = ModeMemory(process.kv, settings.openai_base_url or DEFAULT_OPENAI_URL, name)
    fit = ModelFit(options.mode, options.context_window, options.max_output_tokens)
    tokens = settings.defaults.token_budget
    writer = ModelCardWriter(model, token_budget=tokens, budget=budget, pacing=timing.pacing, memory=memory, fit=fit)
    answerer = ModelAnswerer(model, token_budget=tokens, budget=budget, pacing=timing.pacing, memory=memory, fit=fit)
    cards = CardService(
        process.source,
        process.store,
        writer,
        timing=CardTiming(timing.pacing, lease_seconds=lease_for(timeout)),
        use=ModelUse(None, settings.defaults.skip_model_for),
    )
    return EvalModel(name, cards, answerer, model.tally, model.last_failure), inner.close
