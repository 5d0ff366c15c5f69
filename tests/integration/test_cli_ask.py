"""`prdigest ask OWNER/REPO#N "question"` in-process, against the fakes on loopback: the answer a
Slack thread would give (grounded, sanitised, cited files linked to their diffs), or the card and
one line on stderr saying why there is none."""

from __future__ import annotations

import hashlib
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest
from devkit.fakes.github import FakeGitHub
from devkit.fakes.llm import DEFAULT_CARD, FakeOpenAI
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.cli.main import main
from tests.integration.conftest import REPO, day, told
from tests.unit.test_catalogue import english_in

NUMBER = 101
REF = f"{REPO}#{NUMBER}"
PR_URL = f"https://github.com/{REPO}/pull/{NUMBER}"
WORKFLOW = ".github/workflows/ci.yml"
RUNNER = ".github/actions/runner.sh"
QUESTION = "what changed in the workflow?"
ANSWER = f"It moves the jobs to the `ubuntu-24.04` runner in `{WORKFLOW}` and calls `{RUNNER}` first."
ANSWER_KEYS = {"repo", "number", "url", "title", "question", "language", "source", "answer", "cited_files"}
ANSWER_KEYS |= {"reason", "note", "card"}


def diff_link(path: str) -> str:
    return f"{PR_URL}/files#diff-{hashlib.sha256(path.encode()).hexdigest()}"


def stderr_lines(err: str) -> list[str]:
    return told(err)


@pytest.fixture
def env(github: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> FakeGitHub:
    monkeypatch.setenv("GITHUB_API_URL", github.url)
    github.add_pr(
        REPO,
        NUMBER,
        title="[CI] Bump the runner image",
        merged_at=day(1),
        files=[
            {"path": WORKFLOW, "additions": 12, "deletions": 4},
            {"path": RUNNER, "additions": 30, "deletions": 0, "status": "added"},
        ],
    )
    return github


def answering(answer: str) -> Any:
    """A responder: a card for the card's request (it asks for a schema), `answer` for the question."""

    def respond(request: dict[str, Any]) -> dict[str, Any] | str:
        return dict(DEFAULT_CARD) if "response_format" in request else answer

    return respond


@pytest.fixture
def with_model(env: FakeGitHub, model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> FakeOpenAI:
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{model.url}/v1")
    model.responder = answering(ANSWER)
    return model


@pytest.fixture
def model_down(env: FakeGitHub, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A model endpoint on a port bound but not listening (every connection refused): its host."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        host = f"127.0.0.1:{closed.getsockname()[1]}"
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://{host}/v1")
        yield host


def test_the_answer_and_its_cited_files_with_links_to_their_diffs(
    with_model: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", REF, QUESTION]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [
        f"{REF} · [CI] Bump the runner image",
        PR_URL,
        "",
        ANSWER,
        "",
        "Files cited:",
        f"  - {WORKFLOW}  {diff_link(WORKFLOW)}",
        f"  - {RUNNER}  {diff_link(RUNNER)}",
    ]
    assert stderr_lines(err) == []
    # Grounded as in a thread: the question last, after the PR's material and its card.
    question = with_model.chat_requests()[-1]
    assert question["messages"][-1] == {"role": "user", "content": QUESTION}
    assert WORKFLOW in question["messages"][1]["content"]
    assert "The PR does not say." in question["messages"][0]["content"]


def test_the_answer_as_json(with_model: FakeOpenAI, capsys: pytest.CaptureFixture[str]) -> None:
    # A PR URL works as the reference; the question may come as several words.
    assert main(["ask", PR_URL, "what", "changed", "in", "the", "workflow?", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data.keys() >= ANSWER_KEYS
    assert (data["repo"], data["number"], data["url"]) == (REPO, NUMBER, PR_URL)
    assert (data["question"], data["language"], data["source"]) == (QUESTION, "en", "llm")
    assert data["answer"] == ANSWER
    assert data["cited_files"] == [
        {"path": WORKFLOW, "url": diff_link(WORKFLOW)},
        {"path": RUNNER, "url": diff_link(RUNNER)},
    ]
    assert data["reason"] is None and data["note"] is None
    assert data["card"]["source"] == "llm"


def test_a_path_not_in_the_pr_is_not_cited(with_model: FakeOpenAI, capsys: pytest.CaptureFixture[str]) -> None:
    with_model.responder = answering("The PR does not say. It touches neither `vllm/config.py` nor `setup.py`.")
    assert main(["ask", REF, "does it change the config?", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"] == "llm" and data["cited_files"] == []


def test_mentions_and_outside_links_in_an_answer_are_removed(
    with_model: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    with_model.responder = answering(
        f"<!here> It pins the runner in `{WORKFLOW}`, @channel. Details: https://evil.example/steal "
        f"and [the diff]({PR_URL}/files). <@U0123456789> approved."
    )
    assert main(["ask", REF, QUESTION, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    answer = data["answer"]
    assert f"It pins the runner in `{WORKFLOW}`" in answer
    for hostile in ("<!here>", "@channel", "evil.example", "<@U0123456789>"):
        assert hostile not in answer
    assert PR_URL in answer  # a link into the PR's own repository stays
    assert data["cited_files"] == [{"path": WORKFLOW, "url": diff_link(WORKFLOW)}]


def test_an_answer_with_nothing_left_once_sanitised_gives_the_card(
    with_model: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    with_model.responder = answering("<!channel> https://evil.example/x")
    assert main(["ask", REF, QUESTION, "--format", "json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert (data["source"], data["answer"], data["reason"]) == ("card", None, "answer_unusable")
    host = with_model.url.removeprefix("http://")
    note = (
        f"the model at {host} gave no answer (nothing of it was left without mentions, outside links, "
        "chat-template tokens and our own instructions): here is the card instead"
    )
    assert data["note"] == note
    assert stderr_lines(err) == [f"prdigest: {note}"]


CARD_JSON = json.dumps(DEFAULT_CARD)


@pytest.mark.parametrize(
    "answer",
    [
        CARD_JSON,  # what the README's fake model answered every question with
        f"```json\n{CARD_JSON}\n```",
        '{"answer": "It moves the jobs to a new runner."}',
        "Card headline: Summary of the change\nCard verdict: skim",  # the card it was shown, recited
    ],
)
def test_an_answer_that_is_json_or_a_card_gives_the_card_and_says_so(
    with_model: FakeOpenAI, capsys: pytest.CaptureFixture[str], answer: str
) -> None:
    with_model.responder = answering(answer)
    assert main(["ask", REF, QUESTION]) == 0
    out, err = capsys.readouterr()
    assert '"headline"' not in out and "Card verdict" not in out
    assert out.startswith("Skim (~3 min)  Summary of the change")
    host = with_model.url.removeprefix("http://")
    assert stderr_lines(err) == [
        f"prdigest: the model at {host} gave no answer (it wrote JSON or a card's fields, not an answer in words): "
        "here is the card instead"
    ]


def test_an_answer_that_quotes_json_after_its_words_is_an_answer(
    with_model: FakeOpenAI, capsys: pytest.CaptureFixture[str]
) -> None:
    answer = f'It pins the runner in `{WORKFLOW}`.\n```json\n{{"runs-on": "ubuntu-24.04"}}\n```'
    with_model.responder = answering(answer)
    assert main(["ask", REF, QUESTION, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["source"] == "llm" and data["answer"] == answer


def test_an_empty_answer_gives_the_card_and_says_so(with_model: FakeOpenAI, capsys: pytest.CaptureFixture[str]) -> None:
    with_model.responder = answering("")
    assert main(["ask", REF, QUESTION, "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert (json.loads(out)["source"], json.loads(out)["reason"]) == ("card", "model_failed")
    assert "its reply was empty" in stderr_lines(err)[0]


def test_without_a_model_the_card_and_one_line_saying_questions_need_one(
    env: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", REF, QUESTION]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("Skip") or out.startswith("Skim") or out.startswith("Read")
    assert f"{REF} · {PR_URL}" in out and "summary from metadata, no model" in out
    assert stderr_lines(err) == [
        "prdigest: questions need a model (set OPENAI_API_KEY): here is the card instead",
    ]


def test_without_a_model_the_json_says_card_and_why(env: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", REF, QUESTION, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data.keys() >= ANSWER_KEYS
    assert (data["source"], data["answer"], data["reason"]) == ("card", None, "no_model")
    assert data["note"] == "questions need a model (set OPENAI_API_KEY): here is the card instead"
    assert data["cited_files"] == [] and data["card"]["source"] == "heuristic"


def test_with_the_model_down_the_card_and_the_reason(model_down: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", REF, QUESTION]) == 0
    out, err = capsys.readouterr()
    assert f"{REF} · {PR_URL}" in out  # the card
    assert stderr_lines(err) == [
        f"prdigest: the model at {model_down} gave no answer (it cannot be reached or is busy): "
        "here is the card instead"
    ]


def test_with_the_model_down_the_json_says_why(model_down: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", REF, QUESTION, "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["source"], data["reason"]) == ("card", "model_unavailable")
    assert model_down in data["note"]


def test_a_model_slower_than_model_timeout_gives_the_card_and_says_so(
    with_model: FakeOpenAI, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with open("prdigest.toml", "w", encoding="utf-8") as handle:
        handle.write("[defaults]\nmodel_timeout = 1\n")
    monkeypatch.setenv("PRDIGEST_CONFIG", "prdigest.toml")

    def slow_answer(request: dict[str, Any]) -> dict[str, Any] | str:
        if "response_format" in request:
            return dict(DEFAULT_CARD)
        with_model.sleep(10)  # the fake's stop() cuts it short
        return ANSWER

    with_model.responder = slow_answer
    assert main(["ask", REF, QUESTION, "--format", "json"]) == 0
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert (data["source"], data["reason"]) == ("card", "model_timeout")
    assert "(it took longer than 1 s)" in data["note"]
    assert len(stderr_lines(err)) == 1


def test_in_chinese_no_english_sentence_of_ours(with_model: FakeOpenAI, capsys: pytest.CaptureFixture[str]) -> None:
    with_model.responder = answering(f"它把 CI 换到新的 runner，见 `{WORKFLOW}`。")
    assert main(["ask", REF, "工作流改了什么？", "--lang", "zh-CN"]) == 0
    out, err = capsys.readouterr()
    assert "引用的文件：" in out and diff_link(WORKFLOW) in out
    assert english_in(out) == [] and stderr_lines(err) == []
    # The model is asked to answer in Chinese, and "the PR does not say" in Chinese.
    assert "PR 中没有说明。" in with_model.chat_requests()[-1]["messages"][0]["content"]


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_in_chinese_without_a_model_no_english_sentence_of_ours(
    env: FakeGitHub, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    assert main(["ask", REF, "工作流改了什么？", "--lang", "zh-CN", "--format", fmt]) == 0
    out, err = capsys.readouterr()
    (line,) = stderr_lines(err)
    assert "回答问题需要模型" in line and english_in(line) == []
    shown = json.loads(out)["note"] if fmt == "json" else out
    assert english_in(shown) == []


def test_in_chinese_with_the_model_down_no_english_sentence_of_ours(
    model_down: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", REF, "工作流改了什么？", "--lang", "zh-CN"]) == 0
    out, err = capsys.readouterr()
    (line,) = stderr_lines(err)
    assert "无法连接或正忙" in line
    assert english_in(line) == [] and english_in(out) == []


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["ask", "vllm#1", QUESTION], "prdigest: 'vllm#1' is not a pull request reference"),
        (["ask", f"{REPO}#999", QUESTION], f"prdigest: {REPO}#999: not found on GitHub"),
        (["ask", REF, ""], "prdigest: the question is empty"),
        (["ask", REF, "  ", "\t"], "prdigest: the question is empty"),
    ],
)
def test_a_mistake_is_one_line_and_exit_1(
    env: FakeGitHub, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(argv) == 1
    out, err = capsys.readouterr()
    (line,) = stderr_lines(err)
    assert line.startswith(message) and not out
    assert "Traceback" not in err


def test_an_empty_question_is_refused_before_github_is_asked(
    env: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", REF, " "]) == 1
    assert env.requests == []


def test_an_empty_question_is_told_in_chinese(env: FakeGitHub, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ask", REF, "", "--lang", "zh-CN"]) == 1
    (line,) = stderr_lines(capsys.readouterr().err)
    assert line.startswith("prdigest: 问题为空") and english_in(line) == []


def test_no_question_at_all_is_an_argument_mistake(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["ask", REF])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "QUESTION" in err


def test_help_lists_ask_and_ask_has_its_own(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in ("digest", "card", "ask", "serve", "doctor"):
        assert command in out
    with pytest.raises(SystemExit) as exit_info:
        main(["ask", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: prdigest ask") and "OWNER/REPO#N" in out and "--lang" in out


# What people type after `prdigest ask`: anything, pasted or not.
TYPED = st.text() | st.lists(
    st.sampled_from([REPO, REF, "#", "101", "-", "--", "-h", "\n", "\u2028", "中文", "🚀", "<!channel>", " "])
    | st.text(max_size=5),
    max_size=6,
).map("".join)
ARGV = st.one_of(
    st.builds(lambda text: ["ask", text, QUESTION], TYPED),
    st.builds(lambda text: ["ask", REF, text], TYPED),
    st.builds(lambda text: ["ask", REF, QUESTION, "--lang", text], TYPED),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(argv=ARGV)
@example(argv=["ask", REF, "\n"])
@example(argv=["ask", "a/b#" + "1" * 5000, QUESTION])
@example(argv=["ask", REF, "-x\ny"])
def test_whatever_is_typed_the_answer_is_the_card_or_one_line(
    env: FakeGitHub, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    capsys.readouterr()
    try:
        code: int | str | None = main(argv)
    except SystemExit as exit_info:  # argparse: --help (0) or a usage mistake (2)
        code = exit_info.code
    out, err = capsys.readouterr()
    lines = stderr_lines(err)
    assert "Traceback" not in err
    assert len(lines) <= 1 and all(line.startswith("prdigest: ") for line in lines), (argv, err)
    if code == 0:
        # No model here: the card, and the line saying questions need one (none for --help).
        assert out, argv
    else:
        assert code in (1, 2) and lines, (argv, code, err)
