"""Slack mrkdwn: escaping, links we build, file-diff anchors, clipping, and model answers made safe."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.render.mrkdwn import MAX_ANSWER_CHARS, answer_text, clip, diff_url, escape, link

PR_URL = "https://github.com/vllm-project/vllm/pull/51079"
# A link this module builds: a GitHub URL and a label holding no `|`, `<` or `>`.
OUR_LINK = re.compile(r"<https://github\.com/[^\s<>|]+\|[^<>|]*>")


def anchor(path: str) -> str:
    return f"{PR_URL}/files#diff-{hashlib.sha256(path.encode()).hexdigest()}"


def assert_nothing_unescaped(text: str) -> None:
    rest = OUR_LINK.sub("", text)
    assert "<" not in rest and ">" not in rest, text
    assert not re.search(r"&(?!amp;|lt;|gt;)", rest), text


# -- escape ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "escaped"),
    [
        ("Fix <!channel> bug", "Fix &lt;!channel&gt; bug"),
        ("ping <@U1>", "ping &lt;@U1&gt;"),
        ("a & b", "a &amp; b"),
        ("<https://evil|x>", "&lt;https://evil|x&gt;"),
        ("&lt; stays literal", "&amp;lt; stays literal"),
        ("*bold* _it_ ~s~ `c` 'q' \"d\"", "*bold* _it_ ~s~ `c` 'q' \"d\""),
    ],
)
def test_escape_encodes_only_slacks_three_control_characters_ampersand_first(raw: str, escaped: str) -> None:
    assert escape(raw) == escaped


# -- link and diff_url ----------------------------------------------------------------------------


def test_link_escapes_its_label_and_keeps_the_url() -> None:
    assert link(PR_URL, "#1 <!here> & co") == f"<{PR_URL}|#1 &lt;!here&gt; &amp; co>"


def test_a_pipe_in_a_label_cannot_end_the_url() -> None:
    built = link(PR_URL, "a|b")
    assert built.count("|") == 1
    assert built == f"<{PR_URL}|a¦b>"


def test_characters_that_would_break_a_url_are_percent_encoded() -> None:
    assert link("https://x.test/a b|c>d", "x") == "<https://x.test/a%20b%7Cc%3Ed|x>"


def test_diff_url_is_githubs_files_changed_anchor_for_the_path() -> None:
    assert diff_url(PR_URL, "vllm/x.py") == anchor("vllm/x.py")
    assert diff_url(PR_URL + "/", "vllm/x.py") == anchor("vllm/x.py")


# -- clip -----------------------------------------------------------------------------------------


def test_clip_leaves_short_text_alone() -> None:
    assert clip("short", 10) == "short"


def test_clip_cuts_at_a_word_and_ends_with_an_ellipsis() -> None:
    clipped = clip("alpha beta gamma delta", 15)
    assert clipped == "alpha beta…"
    assert len(clipped) <= 15


def test_clip_prefers_a_line_break() -> None:
    assert clip("first line here\nsecond line that is long", 30) == "first line here…"


def test_clip_never_splits_an_entity_or_a_link() -> None:
    assert clip("x" * 40 + "&amp;&amp;", 45) == "x" * 40 + "…"
    assert clip("x" * 40 + f"<{PR_URL}|#1>", 60) == "x" * 40 + "…"


def test_clip_cuts_text_without_spaces_where_it_must() -> None:
    clipped = clip("这是一段没有空格的中文" * 50, 100)
    assert len(clipped) == 100 and clipped.endswith("…")


# -- answer_text ----------------------------------------------------------------------------------


def test_answer_mentions_and_links_are_escaped() -> None:
    text = answer_text("Hi <!channel> <@U1> <#C1> & see <https://evil|here>", PR_URL, [])
    assert text == "Hi &lt;!channel&gt; &lt;@U1&gt; &lt;#C1&gt; &amp; see &lt;https://evil|here&gt;"


def test_markdown_bold_headings_and_bullets_become_mrkdwn() -> None:
    text = answer_text("## What **changed**\n- one **big** step\n* another", None, [])
    assert text == "*What changed*\n• one *big* step\n• another"


def test_markdown_links_keep_only_their_label() -> None:
    text = answer_text("See [the docs](https://evil.test/x) and ![img](https://evil.test/i.png).", PR_URL, [])
    assert text == "See the docs and img."


def test_changed_files_in_backticks_link_to_their_diff() -> None:
    text = answer_text("The fix is in `vllm/x.py`, not in `vllm/y.py`.", PR_URL, ["vllm/x.py"])
    assert text == f"The fix is in <{anchor('vllm/x.py')}|vllm/x.py>, not in `vllm/y.py`."


def test_a_path_with_control_characters_is_linked_with_an_escaped_label() -> None:
    path = "docs/a&b<c>.md"
    text = answer_text(f"see `{path}`", PR_URL, [path])
    assert text == f"see <{anchor(path)}|docs/a&amp;b&lt;c&gt;.md>"


def test_files_are_not_linked_without_a_pr_or_inside_a_code_fence() -> None:
    assert answer_text("in `vllm/x.py`", None, ["vllm/x.py"]) == "in `vllm/x.py`"
    assert answer_text("```vllm/x.py```", PR_URL, ["vllm/x.py"]) == "```vllm/x.py```"


def test_a_long_answer_is_capped_at_a_word_with_an_ellipsis() -> None:
    text = answer_text("word " * 2000, PR_URL, [])
    assert len(text) <= MAX_ANSWER_CHARS
    assert text.endswith("word…")


def test_capping_never_leaves_half_a_diff_link() -> None:
    text = answer_text("`vllm/x.py` " * 200, PR_URL, ["vllm/x.py"])
    assert len(text) <= MAX_ANSWER_CHARS
    assert_nothing_unescaped(text)


@settings(max_examples=200, deadline=None)
@given(
    answer=st.text(max_size=4000)
    | st.lists(st.sampled_from(["<!channel>", "`a.py`", "&", "[x](y)", " ", "\n"])).map("".join),
    paths=st.lists(st.sampled_from(["a.py", "b|c.py", "<d>.py", "e&f.py"]), max_size=3),
)
def test_any_answer_becomes_bounded_mrkdwn_with_only_our_links(answer: str, paths: list[str]) -> None:
    text = answer_text(answer, PR_URL, paths)
    assert len(text) <= MAX_ANSWER_CHARS
    assert_nothing_unescaped(text)


@pytest.mark.parametrize("unit", ["[a](", "**a", "[", "(", "** "])
def test_markdown_conversion_of_a_long_unclosed_pattern_keeps_the_text(unit: str) -> None:
    # Linear patterns: 40,000 repeats of an opening that never closes (quadratic before).
    text = answer_text(unit * 40_000, None, ())
    assert 0 < len(text) <= MAX_ANSWER_CHARS
    assert text.strip("[]()* a…") == ""


def test_a_heading_with_a_long_run_of_spaces_loses_only_its_closing_marks() -> None:
    assert answer_text("# a" + " " * 1_000 + "b ##", None, ()) == "*a" + " " * 1_000 + "b*"
    assert answer_text("# a" + " " * 40_000 + "b ##", None, ()).startswith("*a")
