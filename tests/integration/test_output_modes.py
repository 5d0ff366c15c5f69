"""Cards from servers that differ in how they take structured output: the real openai client
against the fake OpenAI on loopback, answering as each kind of server does (llm_servers.PROFILES).

Every card of a day is the model's whatever the server; the mode that worked is remembered, so
the next card starts there; a refusal is not retried; an outage is still an outage; a prompt too
long for the window is cut and sent once more.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
import redis
from devkit.fakes import dataset
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI
from devkit.fakes.llm_servers import PROFILES, prompt_tokens

from bot.cli import doctor
from bot.models import Card, PRRef, Window
from bot.store.backends.redis_store import PREFIX
from bot.store.modes import MODE_TTL, mode_key
from bot.wiring.process import Process
from tests.integration.conftest import REPO, ServicesFactory, day, settings_for
from tests.shared_data import shared_rows

DAY = "2026-08-04"
WINDOW = Window(datetime(2026, 8, 4, tzinfo=UTC), datetime(2026, 8, 5, tzinfo=UTC))
# Where each profile's cards end up (the strongest mode it takes).
LANDS_ON = {
    "openai": "json_schema",
    "llama-cpp": "tools",
    "json-object": "json_object",
    "no-response-format": "text",
    "small-window": "json_schema",
    "reasoning": "json_schema",
    "fenced": "json_schema",
}


@pytest.fixture(scope="module")
def day_rows() -> list[dict[str, object]]:
    return dataset.merged_on(shared_rows(), DAY)  # skips visibly (fails on CI) without the shared data


def a_day(github: FakeGitHub, rows: list[dict[str, object]]) -> None:
    dataset.populate(github, rows, REPO)


def cards_of_the_day(services: Process) -> list[Card]:
    return [item.card for item in services.digests.build((REPO,), WINDOW).items]


def small_pr(github: FakeGitHub, number: int) -> None:
    path = f"vllm/core/module_{number}.py"
    github.add_pr(
        REPO, number, title=f"Fix module {number}", files=[{"path": path, "additions": 9}], merged_at=day(number)
    )


def one_card(services: Process, number: int) -> Card:
    snapshot = services.cards.snapshot_by_ref(PRRef(REPO, number))
    return services.cards.card(snapshot, "en").card


@pytest.mark.slow
@pytest.mark.parametrize("profile", sorted(LANDS_ON))
def test_every_card_of_a_day_is_the_model_s_whatever_the_server(
    profile: str, day_rows: list[dict[str, object]], make_services: ServicesFactory
) -> None:
    with FakeGitHub() as github, FakeOpenAI(behaviour=profile) as model:
        a_day(github, day_rows)
        services = make_services(settings_for(github, model))
        cards = cards_of_the_day(services)
        services.close()

    assert len(cards) == len(day_rows) == 40
    assert Counter(card.source for card in cards) == {"llm": 40}
    # Every card was written in the mode the profile lands on; stronger ones were only refused.
    assert set(model.answered_modes()) == {LANDS_ON[profile]}


def test_the_second_card_starts_at_the_mode_that_worked(
    github: FakeGitHub, make_services: ServicesFactory, redis_url: str
) -> None:
    small_pr(github, 1)
    small_pr(github, 2)
    with FakeOpenAI(behaviour="json-object") as model:
        services = make_services(settings_for(github, model, redis_url))
        assert one_card(services, 1).source == "llm"
        first = model.modes()
        assert one_card(services, 2).source == "llm"
        second = model.modes()[len(first) :]
        services.close()
        key = PREFIX + mode_key(f"{model.url}/v1", "gpt-5-mini")

    # Each refusal asked once (llama-cpp-python's 500 is not retried), then the card.
    assert first == ["json_schema", "tools", "json_object"]
    assert second == ["json_object"]
    client = redis.Redis.from_url(redis_url)
    assert client.get(key) == b'{"mode":"json_object","window":null}'
    assert MODE_TTL - 60 < client.ttl(key) <= MODE_TTL
    client.close()


def test_after_a_day_the_stronger_modes_are_probed_again(
    github: FakeGitHub, make_services: ServicesFactory, redis_url: str
) -> None:
    small_pr(github, 1)
    with FakeOpenAI(behaviour="llama-cpp") as model:
        services = make_services(settings_for(github, model, redis_url))
        assert one_card(services, 1).source == "llm"
        # The key's day is over (expired), and the server was upgraded meanwhile.
        client = redis.Redis.from_url(redis_url)
        client.delete(PREFIX + mode_key(f"{model.url}/v1", "gpt-5-mini"))
        client.close()
        model.behaviour = PROFILES["openai"]
        small_pr(github, 2)
        assert one_card(services, 2).source == "llm"
        services.close()
    assert model.modes() == ["json_schema", "tools", "json_schema"]


def test_an_outage_without_a_refusal_is_still_an_outage(github: FakeGitHub, make_services: ServicesFactory) -> None:
    small_pr(github, 1)
    with FakeOpenAI(behaviour="llama-cpp") as model:
        model.fail_next(500, times=2, headers={"retry-after-ms": "1"})
        services = make_services(settings_for(github, model))
        card = one_card(services, 1)
        services.close()
    # Retried once as a 5xx (model_retries=1), never taken for a refusal: no weaker mode was tried.
    assert card.source == "heuristic"
    assert model.modes() == ["json_schema", "json_schema"]


def test_a_prompt_too_long_is_cut_to_the_window_and_sent_once_more(
    github: FakeGitHub, make_services: ServicesFactory
) -> None:
    files = [{"path": f"vllm/model_executor/layer_{n}.py", "additions": 300, "deletions": 40} for n in range(30)]
    github.add_pr(REPO, 1, title="[Core] Rewrite the layers", files=files, merged_at=day(1))
    github.add_pr(REPO, 2, title="[Core] Rewrite the kernels", files=files, merged_at=day(2))
    window = PROFILES["small-window"].context_window
    assert window is not None
    with FakeOpenAI(behaviour="small-window") as model:
        services = make_services(settings_for(github, model))
        card = one_card(services, 1)
        requests = model.chat_requests()
        second = one_card(services, 2)
        services.close()

    too_long, fitted = requests
    assert prompt_tokens(too_long) > window >= prompt_tokens(fitted)
    assert model.modes()[:2] == ["json_schema", "json_schema"]
    assert card.source == "llm" and card.coverage.files_read < card.coverage.files_total
    # The window is remembered with the mode: the next card fits at once.
    assert second.source == "llm" and len(model.chat_requests()) == 3
    assert prompt_tokens(model.chat_requests()[2]) <= window


def test_a_window_the_model_list_gives_is_used_before_any_card(
    github: FakeGitHub, make_services: ServicesFactory
) -> None:
    files = [{"path": f"vllm/model_executor/layer_{n}.py", "additions": 300, "deletions": 40} for n in range(30)]
    github.add_pr(REPO, 1, title="[Core] Rewrite the layers", files=files, merged_at=day(1))
    with FakeOpenAI(behaviour=replace(PROFILES["small-window"], list_window=True)) as model:
        model.model_id = "gpt-5-mini"  # the model the settings name, as the list must say
        services = make_services(settings_for(github, model))
        assert one_card(services, 1).source == "llm"
        services.close()
    assert len(model.chat_requests()) == 1  # vLLM's max_model_len said it: no refusal first


def test_reasoning_and_fences_around_plain_text_answers(github: FakeGitHub, make_services: ServicesFactory) -> None:
    small_pr(github, 1)
    text_only = replace(PROFILES["no-response-format"], think=True, fence=True)
    with FakeOpenAI(behaviour=text_only) as model:
        services = make_services(settings_for(github, model))
        card = one_card(services, 1)
        services.close()
    assert card.source == "llm" and card.headline == "Summary of the change"
    assert model.modes() == ["json_schema", "tools", "json_object", "text"]


def test_a_pinned_mode_and_sampling_from_the_config(
    github: FakeGitHub, make_services: ServicesFactory, tmp_path: Path
) -> None:
    config = tmp_path / "models.toml"
    config.write_text(
        '[models."gpt-5-mini"]\nmode = "json_object"\ncontext_window = 16384\nmax_output_tokens = 900\n'
        "temperature = 0.0\nseed = 7\n",
        encoding="utf-8",
    )
    small_pr(github, 1)
    with FakeOpenAI(behaviour="llama-cpp") as model:
        services = make_services(settings_for(github, model, PRDIGEST_CONFIG=str(config)))
        assert one_card(services, 1).source == "llm"
        services.close()
    (request,) = model.chat_requests()
    assert request["response_format"]["type"] == "json_object" and "schema" in request["response_format"]
    assert (request["max_tokens"], request["temperature"], request["seed"]) == (900, 0.0, 7)
    assert not [r for r in model.requests if r.path == "/v1/models"]  # the window is configured


@pytest.mark.parametrize(
    ("profile", "said"),
    [
        ("openai", "output mode json_schema"),
        ("llama-cpp", "output mode tools (json_schema refused)"),
        ("no-response-format", "output mode text (json_schema, tools, json_object refused)"),
    ],
)
def test_doctor_names_the_mode_that_works(github: FakeGitHub, profile: str, said: str) -> None:
    with FakeOpenAI(behaviour=profile) as model:
        status, name, detail = doctor._model(settings_for(github, model))
    assert (status, name) == ("ok", "model") and detail.endswith(said)
    assert "\n" not in detail


def test_doctor_reports_the_remembered_mode_without_asking(
    github: FakeGitHub, make_services: ServicesFactory, redis_url: str
) -> None:
    small_pr(github, 1)
    with FakeOpenAI(behaviour="llama-cpp") as model:
        settings = settings_for(github, model, redis_url)
        services = make_services(settings)
        one_card(services, 1)
        services.close()
        asked = len(model.chat_requests())
        _, _, detail = doctor._model(settings)
        assert len(model.chat_requests()) == asked
    assert detail.endswith("output mode tools (remembered)")


def test_with_redis_away_cards_still_come_and_each_probes_again(
    github: FakeGitHub, make_services: ServicesFactory
) -> None:
    small_pr(github, 1)
    small_pr(github, 2)
    with FakeOpenAI(behaviour="llama-cpp") as model:
        services = make_services(settings_for(github, model, "redis://127.0.0.1:1/0"))
        assert [one_card(services, n).source for n in (1, 2)] == ["llm", "llm"]
        services.close()
    assert model.modes() == ["json_schema", "tools", "json_schema", "tools"]
