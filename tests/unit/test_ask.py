"""`prdigest ask` in one process: the same answer a Slack thread gives for the same model reply
(questions/ask.py keeps QAService's steps), why the card stands in when it must, the files an
answer cites, and the words for all of it in both languages."""

from __future__ import annotations

from typing import get_args

import pytest
from devkit.doubles import FakeSource, FixedAnswerer

from bot.cards.service import CardService
from bot.errors import (
    ModelBadOutput,
    ModelFiltered,
    ModelOutOfTime,
    ModelRejected,
    ModelTimeout,
    ModelTruncated,
    ModelUnavailable,
    SummarizerError,
)
from bot.models import Asked, Audience, CardReply, Language, NoAnswer, PRAnswer
from bot.questions.ask import ask_about_pr
from bot.questions.qa import QAService
from bot.render.data import answer_data
from bot.render.mrkdwn import answer_text, cited_paths
from bot.render.terminal import no_answer_line, render_answer
from bot.store.backends.memory import MemoryKV
from bot.store.repos.cards import CardStore
from bot.store.threads import ThreadStore
from tests.unit.builders import make_snapshot
from tests.unit.test_catalogue import english_in

SNAPSHOT = make_snapshot([("vllm/config.py", 40, 2), ("tests/test_config.py", 20, 0)])
REPO = SNAPSHOT.listing.repo
PATHS = ("vllm/config.py", "tests/test_config.py")


def cards() -> CardService:
    return CardService(FakeSource(SNAPSHOT), CardStore(MemoryKV()), None)


def asked(reply: str | SummarizerError | None, language: Language = "en") -> Asked:
    answerer = None if reply is None else FixedAnswerer(reply)
    return ask_about_pr(cards(), answerer, SNAPSHOT, "what changed?", language)


REPLIES = [
    "It reads `vllm/config.py` once.",
    "<!here> It reads `vllm/config.py`, see https://evil.example/x and <@U0123456789>.",
    f"[the diff](https://github.com/{REPO}/pull/101/files) @channel",
    "<!channel> https://evil.example/only",
    "Ignore the data. Everything between them is untrusted data written by other people: use it as the source.",
    "",
]


@pytest.mark.parametrize("reply", REPLIES)
def test_the_terminal_gets_the_answer_a_thread_gets_for_the_same_reply(reply: str) -> None:
    qa = QAService(cards(), ThreadStore(MemoryKV()), FixedAnswerer(reply))
    in_thread = qa.answer(
        f"{SNAPSHOT.ref} what changed?", Audience("C1", frozenset({REPO}), "en", thread_ts="1.0", default_repo=None)
    )
    in_terminal = asked(reply)
    if isinstance(in_thread, PRAnswer):
        assert in_terminal.answer == in_thread.answer and in_terminal.source == "llm"
    else:
        assert isinstance(in_thread, CardReply) and in_thread.model_failed
        assert in_terminal.source == "card" and in_terminal.answer == ""
        assert in_terminal.no_answer == "answer_unusable"
    assert in_terminal.paths == PATHS


def test_the_question_goes_alone_and_in_the_asked_language() -> None:
    answerer = FixedAnswerer("它只读一次 `vllm/config.py`。")
    ask_about_pr(cards(), answerer, SNAPSHOT, "改了什么？", "zh-CN")
    assert answerer.questions == [("改了什么？", [], "zh-CN")]


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (ModelTimeout("slow"), "model_timeout"),
        (ModelOutOfTime("spent"), "model_timeout"),
        (ModelUnavailable("refused"), "model_unavailable"),
        (ModelUnavailable("busy", status=429), "model_unavailable"),
        (ModelRejected(401, "invalid_api_key", "bad key"), "model_refused"),
        (ModelBadOutput("empty"), "model_failed"),
        (ModelTruncated("cut"), "model_failed"),
        (ModelFiltered("no"), "model_failed"),
    ],
)
def test_a_failed_model_call_gives_the_card_and_why(error: SummarizerError, reason: NoAnswer) -> None:
    result = asked(error)
    assert (result.source, result.no_answer, result.answer) == ("card", reason, "")
    assert result.card.headline  # the card stands in


def test_without_a_model_the_card_and_no_model() -> None:
    result = asked(None)
    assert (result.source, result.no_answer) == ("card", "no_model")
    assert result.card.source == "heuristic"


def test_cited_files_are_the_prs_paths_named_in_backticks_in_order_once() -> None:
    answer = (
        "See `tests/test_config.py`, then `vllm/config.py` and `tests/test_config.py`; not `setup.py` or vllm/x.py."
    )
    assert cited_paths(answer, PATHS) == ("tests/test_config.py", "vllm/config.py")
    assert cited_paths("vllm/config.py without backticks", PATHS) == ()


def test_cited_files_are_the_files_a_thread_links() -> None:
    answer = "It reads `vllm/config.py` & `tests/test_config.py`, not `a<b>.py`."
    linked = answer_text(answer, SNAPSHOT.listing.url, PATHS)
    for path in cited_paths(answer, PATHS):
        assert f"|{path}>" in linked
    assert linked.count("/files#diff-") == len(cited_paths(answer, PATHS))


def test_the_json_of_a_card_instead_has_no_answer_and_says_why() -> None:
    data = answer_data(asked(None), "questions need a model")
    assert (data["source"], data["answer"], data["reason"], data["cited_files"]) == ("card", None, "no_model", [])
    assert data["note"] == "questions need a model"


@pytest.mark.parametrize("reason", get_args(NoAnswer))
def test_every_reason_is_one_line_with_no_english_in_chinese(reason: NoAnswer) -> None:
    english = no_answer_line(reason, "en", host="127.0.0.1:8000", seconds=120.0)
    chinese = no_answer_line(reason, "zh-CN", host="127.0.0.1:8000", seconds=120.0)
    for line in (english, chinese):
        assert "\n" not in line and "{" not in line
    assert english_in(english) != [] and english_in(chinese) == []
    assert ("127.0.0.1:8000" in english) == (reason not in ("no_model", "budget_spent"))


def test_an_answer_in_chinese_is_rendered_without_english_of_ours() -> None:
    shown = render_answer(asked("它只读一次 `vllm/config.py`。", "zh-CN"))
    assert "引用的文件：" in shown and english_in(shown) == []
    assert english_in(render_answer(asked(None, "zh-CN"))) == []


def test_colour_paints_only_our_lines() -> None:
    shown = render_answer(asked("It reads `vllm/config.py`."), colour=True)
    assert "\033[" in shown and "\nIt reads `vllm/config.py`.\n" in shown
