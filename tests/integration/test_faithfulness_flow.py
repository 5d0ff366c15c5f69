"""The faithfulness check end to end: fake GitHub and fake model on loopback, the real openai client.

A card whose figures the PR does not state is asked for once more, then cut (DESIGN.md §1).
"""

from __future__ import annotations

import gc
import json
import warnings
from typing import Any

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.cli.main import main
from bot.models import Card, Window
from tests.integration.conftest import REPO, ServicesFactory, day, settings_for

WINDOW = Window(day(0), day(24))
TITLE = "[Perf] Speed up decode by 2.5x"
INVENTED = "16 GiB"


def add_decode_pr(github: FakeGitHub, number: int = 1) -> None:
    github.add_pr(
        REPO,
        number,
        title=TITLE,
        body="Fuses the decode kernels into `fused_decode()`.",
        merged_at=day(number),
        files=[
            {"path": "vllm/v1/attention/decode.py", "additions": 120, "deletions": 8},
            {"path": "tests/v1/test_decode.py", "additions": 30, "deletions": 0},
        ],
    )


def answer(headline: str, why: list[str] | None = None, caveats: list[str] | None = None) -> dict[str, Any]:
    return {
        "headline": headline,
        "verdict": "read",
        "minutes": 12,
        "why": why or [],
        "caveats": caveats or [],
        "watch": [],
    }


def is_follow_up(request: dict[str, Any]) -> bool:
    return len(request["messages"]) > 2


def one_card(make_services: ServicesFactory, github: FakeGitHub, model: FakeOpenAI) -> Card:
    services = make_services(settings_for(github, model))
    try:
        (item,) = services.digests.build((REPO,), WINDOW).items
    finally:
        # Close the model client's pooled connection now, not at the fixture's teardown: a socket
        # collected in a later test is reported as an unraisable warning there.
        assert services.model is not None
        services.model.close()
    return item.card


def test_a_model_that_complies_when_told_gives_a_clean_regenerated_card(
    github: FakeGitHub, model: FakeOpenAI, make_services: ServicesFactory
) -> None:
    add_decode_pr(github)

    def respond(request: dict[str, Any]) -> dict[str, Any]:
        if is_follow_up(request):
            return answer("Decode 2.5x faster with fused kernels", why=["`fused_decode()` fuses the kernels"])
        return answer(f"Decode 2.5x faster, saves {INVENTED}", why=["`fused_decode()` fuses the kernels"])

    model.responder = respond
    card = one_card(make_services, github, model)

    assert model.calls == 2
    assert card.headline == "Decode 2.5x faster with fused kernels"
    assert (card.regenerated, card.dropped) == (True, 0)
    assert card.checked == 2  # "2.5x" and fused_decode
    first, second = model.chat_requests()
    # The follow-up is the same conversation, the model's own answer, and the claims named.
    assert second["messages"][:2] == first["messages"]
    assert second["messages"][2]["role"] == "assistant"
    assert json.loads(second["messages"][2]["content"])["headline"] == f"Decode 2.5x faster, saves {INVENTED}"
    follow_up = second["messages"][3]
    assert follow_up["role"] == "user"
    assert f'do not appear in the PR: "{INVENTED}"' in follow_up["content"]
    assert "2.5x" not in follow_up["content"]


def test_a_model_that_keeps_inventing_loses_the_figure_and_the_points(
    github: FakeGitHub, model: FakeOpenAI, make_services: ServicesFactory
) -> None:
    add_decode_pr(github)
    model.responder = lambda request: answer(
        f"Decode 2.5x faster, saves {INVENTED}",
        why=["Cuts 40% of kernel launches", "`fused_decode()` replaces two kernels"],
        caveats=["Only tested on H200", "No benchmark in the PR"],
    )
    card = one_card(make_services, github, model)

    assert model.calls == 2
    assert card.headline == "Decode 2.5x faster"  # the PR's own figure stays
    assert card.why == ("`fused_decode()` replaces two kernels",)
    assert card.caveats == ("No benchmark in the PR",)
    assert (card.regenerated, card.dropped, card.checked) == (True, 3, 5)


def test_a_headline_left_too_short_falls_back_to_the_title(
    github: FakeGitHub, model: FakeOpenAI, make_services: ServicesFactory
) -> None:
    add_decode_pr(github)
    model.responder = lambda request: answer("Saves 16 GiB")
    card = one_card(make_services, github, model)
    assert card.headline == "[Perf] Speed up decode by 2.5x"  # the heuristic headline of the title, scope tag kept
    assert card.dropped == 1 and card.source == "llm"


def test_a_failed_follow_up_cuts_the_first_answer(
    github: FakeGitHub, model: FakeOpenAI, make_services: ServicesFactory
) -> None:
    add_decode_pr(github)

    def respond(request: dict[str, Any]) -> dict[str, Any] | str:
        if is_follow_up(request):
            return "not json {"  # the SDK cannot parse it, and does not retry a 200
        return answer(f"Decode 2.5x faster, saves {INVENTED}")

    model.responder = respond
    card = one_card(make_services, github, model)
    assert model.calls == 2
    assert card.source == "llm" and card.headline == "Decode 2.5x faster"
    assert (card.regenerated, card.dropped) == (False, 1)


def test_a_faithful_card_is_checked_once_and_asked_for_once(
    github: FakeGitHub, model: FakeOpenAI, make_services: ServicesFactory
) -> None:
    add_decode_pr(github)
    model.responder = lambda request: answer("Decode 2.5x faster", why=["Touches vllm/v1/attention/decode.py"])
    card = one_card(make_services, github, model)
    assert model.calls == 1
    assert (card.checked, card.dropped, card.regenerated) == (2, 0, False)


def test_card_json_shows_the_faithfulness_of_the_card(
    github: FakeGitHub, model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    add_decode_pr(github, number=7)
    model.responder = lambda request: answer(f"Decode 2.5x faster, saves {INVENTED}")
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{model.url}/v1")
    assert main(["card", f"{REPO}#7", "--format", "json"]) == 0
    # main() ends without collecting the model client's pooled connection: collect it here, or
    # its socket is reported in whichever test runs later.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()
    card = json.loads(capsys.readouterr().out)["card"]
    assert card["headline"] == "Decode 2.5x faster"
    assert card["faithfulness"] == {"checked": 2, "dropped": 1, "regenerated": True}
    assert {"headline", "verdict", "minutes", "why", "caveats", "watch", "source", "coverage"} <= card.keys()
