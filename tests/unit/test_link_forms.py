"""The link forms a hostile answer uses that a browser or Markdown still follows (issue 23, item 3):
each loses its address to a foreign host, in the streamed sentences and the final answer alike,
since both are sanitize_answer's."""

from __future__ import annotations

import pytest

from bot.core.checks.faithfulness import SourceText
from bot.core.checks.sanitize import sanitize_answer
from bot.core.checks.sentence_release import checked_sentence

REPO_URL = "https://github.com/acme/widgets"
PR_URL = f"{REPO_URL}/pull/3"


def answer(text: str) -> str:
    return sanitize_answer(text, REPO_URL) or ""


@pytest.mark.parametrize(
    ("hostile", "kept"),
    [
        # The four of the issue.
        ("[Share in channel](http:evil.example/share) now.", "Share in channel now."),
        ("<http:evil.example/login|github.com/acme/widgets> first.", "github.com/acme/widgets first."),
        ("See [docs][1].\n\n[1]: http:evil.example/ref", "See [docs][1]."),
        ("Read [x](\\\\evil.example/y) now.", "Read x now."),
        # Any scheme as a link's target; the web's and the script schemes in text.
        ("[a](javascript:alert(1)) b", "a b"),
        ("[a](data:text/html,x) b", "a b"),
        ("[a](mailto:a@evil.example) b", "a b"),
        ("[a](foo+bar:x) b", "a b"),
        ("<ftp:evil.example/x|a> b", "a b"),
        ("<a@evil.example> b", "b"),
        ("go to http:evil.example/x now", "go to now"),
        ("go to https:/evil.example/x now", "go to now"),
        ("go to http:\\\\evil.example now", "go to now"),
        ("go to wss:evil.example now", "go to now"),
        # Hosts after slashes or backslashes, in text and as targets.
        ("go to \\\\evil.example/x now", "go to now"),
        ("go to /\\evil.example/x now", "go to now"),
        ("go to \\/evil.example/x now", "go to now"),
        ("[a](/\\evil.example) b", "a b"),
        # Markdown's relative targets resolve against some host: never the PR's.
        ("[a](evil.example/x) b", "a b"),
        ("[a](/acme/widgets/pull/3) b", "a b"),
        # Reference definitions, with or without a title or a destination.
        ('[docs]: evil.example "Docs"\nok', "ok"),
        ("  [1]: <http:evil.example/ref>\nok", "ok"),
        ("[1]:\nok", "ok"),
    ],
)
def test_a_link_to_a_foreign_host_keeps_only_its_words(hostile: str, kept: str) -> None:
    assert answer(hostile) == kept


@pytest.mark.parametrize(
    "text",
    [
        "Note: the kernel is faster.",
        "It sets `dtype:float16` and std::vector in the loop.",
        "handlers[name](event) is called once.",
        "[Note]: the kernel is faster.",
        "It runs at 12:30 UTC.",
        f"See the PR ({PR_URL}).",
    ],
)
def test_prose_and_code_that_only_look_like_links_stay(text: str) -> None:
    assert answer(text) == text


def test_links_into_the_prs_repository_stay_as_the_final_message_shows_them() -> None:
    assert answer(f"[the diff]({PR_URL}/files) and <{PR_URL}|the PR>") == (
        f"the diff ({PR_URL}/files) and the PR ({PR_URL})"
    )


def test_a_streamed_sentence_loses_the_link_as_the_final_answer_does() -> None:
    source = SourceText.of("Share in channel")
    hostile = "[Share in channel](http:evil.example/share)."
    assert checked_sentence(hostile, source, (REPO_URL,)) == answer(hostile) == "Share in channel."
