"""markdown_text: sanitized text as Markdown that shows the same words and makes no link, by the
fake Slack's count of the forms Slack could link (devkit/fakes/markdown_links.py)."""

from __future__ import annotations

import pytest
from devkit.fakes.markdown_links import links_in_markdown, shown_text
from hypothesis import given
from hypothesis import strategies as st

from bot.render.markdown import markdown_text

# Text made of the characters links are made of, so that most draws hold some would-be link.
link_text = st.text(alphabet="ab.:/\\@<>[]()`&|!# w\n", max_size=60)


@pytest.mark.parametrize(
    "text",
    [
        "Share in channel (github.com/acme/widgets).",
        "It changes `vllm/moe/dispatch.py` and www.example.org, e.g. v0.6.2.",
        "Mail a@example.org or see https://github.com/acme/widgets/pull/3.",
        "[docs][1] and [a](b) and ![i](c) and <http://x> and <x|y> and &lt;",
        "[1]: /ref",
        "\\\\[a](b): the model's own backslash before a link",
    ],
)
def test_what_would_be_a_link_is_escaped_and_reads_the_same(text: str) -> None:
    assert links_in_markdown(text)  # each is a link as written
    assert links_in_markdown(markdown_text(text)) == []
    assert shown_text(markdown_text(text)) == text


def test_plain_prose_is_sent_as_written() -> None:
    text = "It fuses the MoE kernels. Decode is 12% faster: **read** it.\n- one\n1. two"
    assert markdown_text(text) == text


@given(text=link_text | st.text(max_size=60))
def test_no_text_makes_a_link_once_escaped(text: str) -> None:
    assert links_in_markdown(markdown_text(text)) == []
    assert shown_text(markdown_text(text)) == text


@given(pieces=st.lists(link_text, max_size=5))
def test_pieces_escaped_apart_make_no_link_together(pieces: list[str]) -> None:
    sent = "".join(markdown_text(piece) for piece in pieces)
    assert links_in_markdown(sent) == []
    assert shown_text(sent) == "".join(pieces)
