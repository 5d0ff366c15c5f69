"""Tokens the model spends, end to end: the fake OpenAI server reports `usage` as real servers do
(OpenAI, vLLM, llama-cpp-python), the real openai client reads it, real Redis keeps the counts."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import FakeOpenAI

from bot.cli.doctor import run_doctor
from bot.core.usage import Usage
from bot.models import Audience, CardReply, DigestOptions, Filters, Note, PRAnswer, Window
from bot.questions.ask import ask_about_pr
from bot.render.slack.blocks import lead_message, strings
from bot.settings import Settings
from bot.spending.budgets import Payer
from bot.store.tokens import TokenStore
from bot.wiring.process import start_worker
from tests.integration.conftest import NOW, REPO, ServicesFactory, day, home_of, settings_for
from tests.integration.slack_harness import DIGEST_CHANNEL, HUMAN, OTHER_CHANNEL, OTHER_REPO, SlackHarness, wait_for

WINDOW = Window(day(0), day(24))
CHANNEL = "C0SPEND001"
MODEL = "gpt-5-mini"  # the config's default model: what the tokens are counted under


def populate(github: FakeGitHub, repo: str = REPO, count: int = 3) -> None:
    for number in range(1, count + 1):
        github.add_pr(
            repo,
            number,
            title=f"Speed up step {number}",
            merged_at=day(number),
            files=[{"path": f"src/step_{number}.py", "additions": 30 * number, "deletions": 4}],
        )


def config(tmp_path: Path, text: str) -> dict[str, str]:
    path = tmp_path / "prdigest.toml"
    path.write_text(text, encoding="utf-8")
    return {"PRDIGEST_CONFIG": str(path)}


def card_answer(request: dict[str, Any]) -> dict[str, Any]:
    return {"headline": "Step runs faster", "verdict": "skim", "minutes": 3, "why": [], "caveats": [], "watch": []}


def given(model: FakeOpenAI) -> Usage:
    prompt, completion = model.usage_given()
    return Usage(prompt, completion)


def test_every_request_a_card_costs_is_counted_for_its_repository_and_the_channel_that_asked(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, make_services: ServicesFactory
) -> None:
    populate(github)
    model.responder = card_answer
    model.invalid_json_next()  # one card is asked twice: both answers were paid for
    built = make_services(settings_for(github, model, redis_url))

    digest = built.digests.build((REPO,), WINDOW, payer=Payer(CHANNEL))
    assert all(item.card.source == "llm" for item in digest.items) and model.calls == 4

    spent = given(model)
    assert spent.prompt > 0 and spent.completion > 0
    tokens = TokenStore(built.kv).day(NOW.date())
    assert tokens.spent == spent.total
    assert tokens.total == {MODEL: spent}
    assert tokens.repos == {REPO.lower(): {MODEL: spent}}
    assert tokens.payers == {CHANNEL: {MODEL: spent}}

    # Another channel's digest of the same PRs reads the cached cards: it spends nothing.
    again = make_services(settings_for(github, model, redis_url)).digests.build(
        (REPO,), WINDOW, payer=Payer("C0OTHER002")
    )
    assert again.shown == 3 and model.calls == 4
    assert "C0OTHER002" not in TokenStore(built.kv).day(NOW.date()).payers


def test_a_card_a_worker_makes_for_a_digest_is_the_digests_channels(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, make_services: ServicesFactory
) -> None:
    populate(github)
    model.responder = card_answer
    # The serving process has no model it could reach: the worker, in another process, makes the cards.
    serving = make_services(
        settings_for(github, None, redis_url, OPENAI_API_KEY="k", OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    )
    working = make_services(settings_for(github, model, redis_url))
    worker = start_worker(working, 2)
    try:
        wait_for(lambda: serving.queue is not None and serving.queue.workers_alive())
        digest = serving.digests.build((REPO,), WINDOW, payer=Payer(CHANNEL))
    finally:
        worker.stop()
    assert all(item.card.source == "llm" for item in digest.items) and model.calls == 3
    assert TokenStore(working.kv).day(NOW.date()).payers == {CHANNEL: {MODEL: given(model)}}


def test_an_answer_is_counted_for_the_channel_it_was_asked_in_and_the_cli(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, make_services: ServicesFactory
) -> None:
    populate(github, count=1)
    model.responder = card_answer
    built = make_services(settings_for(github, model, redis_url))
    built.digests.build((REPO,), WINDOW, payer=Payer(CHANNEL))
    card_spend = given(model)

    model.responder = lambda request: "It makes step 1 faster by caching."
    reply = home_of(built).qa.answer(
        f"what does {REPO}#1 change?",
        Audience(CHANNEL, frozenset({REPO.lower()}), "en", thread_ts="1.0", default_repo=None),
    )
    assert reply.kind == "answer"
    after_answer = given(model)
    assert isinstance(reply, PRAnswer)
    snapshot = built.cards.snapshot_by_ref(reply.about.ref)
    asked = ask_about_pr(built.cards, built.answerer, snapshot, "why?", "en", built.spending)
    assert asked.source == "llm"

    tokens = TokenStore(built.kv).day(NOW.date())
    assert tokens.payers[CHANNEL] == {MODEL: after_answer}  # the card and the answer
    assert tokens.payers["cli"] == {
        MODEL: given(model) + Usage() - after_answer if False else _minus(given(model), after_answer)
    }
    assert tokens.repos[REPO.lower()] == {MODEL: given(model)}
    assert card_spend.total < after_answer.total


def _minus(a: Usage, b: Usage) -> Usage:
    return Usage(a.prompt - b.prompt, a.completion - b.completion)


def budget_settings(github: FakeGitHub, model: FakeOpenAI, redis_url: str, tmp_path: Path) -> Settings:
    # One card at a time, so the cards made before the budget is seen spent are exactly one.
    text = "[defaults]\nconcurrency = 1\ndaily_token_budget = 1\n"
    return settings_for(github, model, redis_url, **config(tmp_path, text))


def test_a_spent_budget_gives_cards_from_metadata_and_the_lead_says_so_until_the_next_utc_day(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, make_services: ServicesFactory, tmp_path: Path
) -> None:
    populate(github)
    model.responder = card_answer
    settings = budget_settings(github, model, redis_url, tmp_path)

    digest = make_services(settings).digests.build((REPO,), WINDOW, payer=Payer(CHANNEL))
    assert model.calls == 1  # the first card spent the budget; the model is asked no more today
    sources = sorted(item.card.source for item in digest.items)
    assert sources == ["heuristic", "heuristic", "llm"]
    assert [item.card.no_model for item in digest.items if item.card.source == "heuristic"] == ["budget", "budget"]
    assert Note("note.budget_spent", {"budget": 1, "count": 2}) in digest.notes
    assert not any(note.kind == "note.model_degraded" for note in digest.notes)
    lead = "\n".join(strings(lead_message(digest).blocks))
    assert "The daily token budget (1) is spent: 2 cards from metadata." in lead

    # Later the same day: the cached metadata cards are served, the model is not asked.
    again = make_services(settings).digests.build((REPO,), WINDOW, payer=Payer(CHANNEL))
    assert model.calls == 1 and sum(item.card.no_model == "budget" for item in again.items) == 2
    # Nor for a question.
    reply = home_of(make_services(settings)).qa.answer(
        f"what does {REPO}#2 change?",
        Audience(CHANNEL, frozenset({REPO.lower()}), "en", thread_ts="2.0", default_repo=None),
    )
    assert isinstance(reply, CardReply) and reply.budget_spent and model.calls == 1

    # The next UTC day the budget is new: the model is asked again (once more, with a budget of 1).
    tomorrow = make_services(settings, now=NOW + timedelta(days=1)).digests.build((REPO,), WINDOW, payer=Payer(CHANNEL))
    assert model.calls == 2
    assert sorted(item.card.source for item in tomorrow.items) == ["heuristic", "llm", "llm"]


def test_skip_model_for_gives_a_bots_bump_a_card_without_a_model_call(
    github: FakeGitHub, model: FakeOpenAI, redis_url: str, make_services: ServicesFactory, tmp_path: Path
) -> None:
    github.add_pr(
        REPO,
        7,
        title="Bump requests from 2.31.0 to 2.32.0",
        author="dependabot[bot]",
        author_type="Bot",
        merged_at=day(2),
        files=[{"path": "requirements/common.txt", "additions": 1, "deletions": 1}],
    )
    populate(github, count=1)
    model.responder = card_answer
    text = '[defaults]\nskip_model_for = ["bot-bumps"]\n'
    digest = make_services(settings_for(github, model, redis_url, **config(tmp_path, text))).digests.build(
        (REPO,), WINDOW
    )
    assert model.calls == 1
    bump = next(item for item in digest.items if item.listing.number == 7)
    assert bump.card.source == "heuristic" and bump.card.no_model == "bot-bumps"
    assert digest.notes == ()  # no failure, and no budget: nothing to say


def test_doctor_shows_tokens_today_and_over_7_days_per_repository_and_channel_with_their_cost(
    github: FakeGitHub,
    model: FakeOpenAI,
    redis_url: str,
    make_services: ServicesFactory,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    populate(github, count=2)
    model.responder = card_answer
    text = f'[models."{MODEL}"]\ninput_per_million = 1.0\noutput_per_million = 2.0\n'
    settings = settings_for(github, model, redis_url, **config(tmp_path, text))
    # The doctor reads today's counters by the real clock.
    make_services(settings, now=datetime.now(UTC)).digests.build((REPO,), WINDOW, payer=Payer(CHANNEL))
    spent = given(model)
    cost = (spent.prompt * 1.0 + spent.completion * 2.0) / 1_000_000
    capsys.readouterr()

    run_doctor(settings)
    lines = [line for line in capsys.readouterr().out.splitlines() if " tokens " in line]
    amount = f"{spent.total:,} (in {spent.prompt:,}, out {spent.completion:,}), ≈ ${cost:.4f}"
    assert f"  ok  tokens  total: today {amount}; 7 days {amount}" in lines
    assert f"  ok  tokens  repository {REPO.lower()}: today {amount}; 7 days {amount}" in lines
    assert f"  ok  tokens  channel {CHANNEL}: today {amount}; 7 days {amount}" in lines
    assert "  ok  tokens  daily budget: none ([defaults] daily_token_budget = 0)" in lines


def test_the_app_home_shows_a_person_the_tokens_of_their_channels_only(harness: SlackHarness) -> None:
    populate(harness.github, REPO, count=2)
    populate(harness.github, OTHER_REPO, count=1)
    harness.model.responder = card_answer
    runs = harness.parts.digests
    runs.run(DIGEST_CHANNEL, "2026-08-05", WINDOW, (REPO,), options=DigestOptions("en", Filters(), "note"))
    mine = given(harness.model)
    runs.run(OTHER_CHANNEL, "2026-08-05", WINDOW, (OTHER_REPO,), options=DigestOptions("en", Filters(), "note"))
    harness.slack.members = {DIGEST_CHANNEL: [HUMAN], OTHER_CHANNEL: ["U0SOMEONE1"]}

    harness.slack.home_views.pop(HUMAN, None)
    harness.event({"type": "app_home_opened", "user": HUMAN, "channel": "D1", "tab": "home"})
    view: dict[str, Any] = wait_for(lambda: harness.slack.home_views.get(HUMAN))
    shown = "\n".join(strings(view["blocks"]))
    assert f"Model tokens spent for this channel: today {mine.total:,} (no price configured)" in shown
    assert f"{REPO}: {mine.total:,} today, {mine.total:,} in 7 days (every channel)" in shown
    whole = json.dumps(view)
    assert OTHER_CHANNEL not in whole and OTHER_REPO not in whole
    assert given(harness.model).total > mine.total  # the other channel did spend, unseen here
