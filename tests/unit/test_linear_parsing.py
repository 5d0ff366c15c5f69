"""Parsers of untrusted text on the inputs that made them quadratic, and the linear patterns
against the straightforward ones they replace.

Questions and commands come from anyone in Slack (up to Slack's 40,000 characters), and PR titles,
bodies, patches and the model's output from anyone on GitHub. Python's `re` holds the GIL while it
backtracks, so a parse quadratic in its text froze the whole server. The results are asserted
here; the time is bounded in tests/integration/test_long_messages.py, as Slack bounds it.
"""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.core.checks import cutting, sanitize
from bot.core.checks.claims import count_mentions, extract_claims, figure_mentions
from bot.core.checks.cutting import without_claims
from bot.core.checks.faithfulness import SourceText
from bot.core.checks.templates import without_template
from bot.core.refs import MAX_MESSAGE_CHARS
from bot.core.strings.text import MAX_COMMENT_PASSES, clean_text
from bot.models import PRRef
from bot.questions.which_pr import find_refs, is_why, resolve, strip_mentions, words
from tests.unit.test_sanitize import clean

LIMIT = MAX_MESSAGE_CHARS
BIG = 200_000  # a PR body or patch, or a model's answer, is not capped by Slack

# -- what people type --------------------------------------------------------------------------------


def test_a_message_of_one_letter_repeated_names_no_pr() -> None:
    assert find_refs("x" * LIMIT, "o/r") == []
    assert find_refs("<@UBOT> " + "x" * (LIMIT - 8), "o/r") == []
    assert words("x" * LIMIT) == {"x" * LIMIT}


def test_runs_that_look_like_a_repository_without_a_number_name_no_pr() -> None:
    assert find_refs("a/" * (LIMIT // 2), None) == []
    assert find_refs("a/b#" * (LIMIT // 4), None) == []
    assert find_refs("https://" + "a" * LIMIT, None) == []
    assert find_refs("a-b.c_d" * (LIMIT // 7) + "/x#7", None) == [PRRef("a-b.c_d" * (LIMIT // 7) + "/x", 7)]


def test_thousands_of_references_are_each_found_once_in_order() -> None:
    numbers = range(1, 7001)
    text = " ".join(f"#{number}" for number in numbers) + " #1 O/R#2"
    assert find_refs(text, "o/r") == [PRRef("o/r", number) for number in numbers]


def test_why_repeated_is_a_why_question_only_with_what_it_asks_about() -> None:
    assert not is_why("why " * (LIMIT // 4))
    assert is_why("why " * (LIMIT // 4 - 2) + "here")
    assert not is_why("为什么" * (LIMIT // 3))
    assert is_why("为什么" * (LIMIT // 3 - 2) + "没有")
    assert not is_why("why is #1\nhere")  # the reason is on the same line as the "why"
    assert resolve("why " * (LIMIT // 4), (), [], {}, None).kind == "digest"


def test_unclosed_mentions_stay_text_and_closed_ones_go() -> None:
    assert strip_mentions("<@U|" * (LIMIT // 4)) == "<@U|" * (LIMIT // 4)
    assert strip_mentions("<@U1|a" * 5000 + ">") == "<@U1|a" * 4999
    assert strip_mentions("<@UBOT> <@U2|bob> what changed in #5?") == "what changed in #5?"


# -- what the model and GitHub write ---------------------------------------------------------------


def test_a_long_run_of_letters_digits_or_signs_is_kept_as_it_is() -> None:
    for text in ("x" * BIG, "1a" * (BIG // 2), "a.b-" * (BIG // 4), "0x" * (BIG // 2), "a1.1" * (BIG // 4)):
        assert clean(text) == text


def test_nested_mentions_go_whole_however_deep() -> None:
    assert clean("<!" * (BIG // 4) + ">" * (BIG // 4)) == ""
    assert clean("<!here " * (BIG // 7)) == ("!here " * (BIG // 7)).strip()  # never closed: each `<` goes
    assert clean("keep " + "<<!here>!channel>" * 1000 + " this") == "keep this"


def test_spaces_around_removed_text_are_tidied_in_one_pass() -> None:
    assert clean("a <!here>" + " " * BIG + ", b") == "a, b"
    assert clean("see <!here>" + " " * BIG + ".") == "see."


def test_a_scheme_glued_to_digits_is_still_a_url() -> None:
    assert clean("1+https://evil.test/x ok") == "1+ ok"
    assert clean("12https://github.com/vllm-project/vllm/pull/1") == "12https://github.com/vllm-project/vllm/pull/1"
    assert clean("x" * BIG + "://evil.test") == ""  # a (strange) scheme of any length


def test_comments_nested_deeper_than_a_few_passes_hide_everything_after_them() -> None:
    onion = "<!" * 5000 + "-- -->" + "-- -->" * 5000 + "shown?"
    assert clean_text(onion) == "<!" * (5000 - MAX_COMMENT_PASSES - 1)
    assert clean_text("<!<!-- x -->-- hidden -->shown") == "shown"


def test_claims_of_a_huge_patch_are_read_in_order() -> None:
    patch = "+x = 1.5x\n" * 20_000
    assert [claim.key for claim in extract_claims(patch)] == ["1.5x"] * 20_000
    assert len(list(figure_mentions("1,000," * (BIG // 6)))) >= 1
    assert [claim.text for claim in extract_claims("a/" * (BIG // 2) + " x")] == ["a/" * (BIG // 2)]
    source = SourceText.of("a/b/" * (BIG // 4) + " 16.98 GiB")
    assert ("16.98", "gib") in source.written


def test_counts_of_a_huge_text_are_read_in_order() -> None:
    text = "3 kernel launches " * (BIG // 18)
    assert {claim.key for claim in extract_claims(text)} == {"3 launch"}
    assert ("3", "launch") in count_mentions("launches: 3 " + " " * BIG + "\n" + "1,111" * (BIG // 5) + "-1")
    assert [claim.kind for claim in extract_claims("第" + " " * BIG + "3 步")] == []


def test_a_models_template_of_any_size_is_removed_in_one_scan() -> None:
    assert without_template("<think>" * (BIG // 7)) == ""
    assert without_template("<think>" + "a " * BIG + "</think>It adds a cache.") == "It adds a cache."
    assert without_template("<think>a</think>" * (BIG // 16) + "It adds a cache.") == ""  # mostly template
    assert without_template("It adds a cache." + "<|im_end|>" * (BIG // 10)) == "It adds a cache."
    assert without_template("`<s>` " * (BIG // 6)) == "`<s>` " * (BIG // 6)
    assert without_template("<|" * (BIG // 2)) == "<|" * (BIG // 2)


def test_a_headline_cut_keeps_its_words_however_it_is_spaced() -> None:
    (claim,) = extract_claims("1.9x")
    assert without_claims("Decode" + " " * BIG + "is 1.9x faster", [claim]) == "Decode is faster"
    assert without_claims("Decode is faster " + "on " * (BIG // 3) + "1.9x", [claim]) == "Decode is faster"
    assert without_claims("Decode is 1.9x faster" + " -" * (BIG // 2), [claim]) == "Decode is faster"


# -- the linear patterns say what the straightforward ones said ------------------------------------

# What the patterns replaced: right, and quadratic (or worse) in their text.
OLD_REF = re.compile(
    r"https?://[^/\s<>|]+/(?P<url_repo>[\w.-]+/[\w.-]+)/pull/(?P<url_n>\d+)"
    r"|(?P<repo>[\w.-]+/[\w.-]+)#(?P<n>\d+)"
    r"|(?<![\w/#])#(?P<short>\d+)\b",
    re.ASCII,
)
OLD_WHY = re.compile(
    r"\bwhy\b.*\b(here|there|included|in (the|this|today'?s) digest|shown|listed|left out|missing|excluded|not in)\b"
    r"|\bwhy (this|that) pr\b|为什么.*(在这里|出现|没有|不在|被排除|列出)",
    re.IGNORECASE,
)
OLD_URL_START = (
    r"(?:[a-z][a-z0-9+.\-]*://|\b(?:data|javascript|vbscript|mailto|file|blob):(?=\S)|www\.(?=\w)"
    # SANITIZE_RULES 2: two or more slashes or backslashes, however mixed, open a host as `//` does.
    r"|(?<![\w/:\\])[/\\]{2,}(?=[\w-]+\.\w))"
)
OLD_BARE_URL = re.compile(OLD_URL_START + r"[^\s<>|\"'`()\[\]{}]*", re.IGNORECASE)
OLD_TOKEN = re.compile(r"<[!@#][^<>\n]*>")
OLD_CLAUSE_BREAK = re.compile(r"(\s*[,;]\s+|\s*[，；、]\s*|\s+[—–-]\s+|\s*:\s+)")
OLD_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)

QUESTION_BITS = [
    "a", "b", "/", "#", "1", "12", ".", "-", "_", "x/y#3", "http://", "https://h/", "o/r/pull/4", "/pull/", " ",
    "\n", "why", "Why ", " here", " there", " in the digest", "not in", "为什么", "没有", " this pr", "é", "<", "|",
]  # fmt: skip
SANITIZE_BITS = [
    "a", "1", "+", ".", "-", "h", "http", "://", "//", "/", "\\", "x.y", "www.", "data:", "<", "<!", "<@", "<#",
    ">", "!", "@", "|", " ", "\t", ",", "\n", "é", "K", "ſ", "(", ")",
]  # fmt: skip
CUT_BITS = [" ", "  ", "\t", ",", ";", ":", "，", "、", "—", "-", "a", "b"]
COMMENT_BITS = ["<", "!", "-", ">", "<!--", "-->", "<!", "--", "x", " ", "\n"]


def texts(bits: list[str], size: int = 30) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(bits), max_size=size).map("".join)


def old_find_refs(text: str, default_repo: str | None) -> list[PRRef]:
    found: list[PRRef] = []
    for match in OLD_REF.finditer(text):
        repo = match.group("url_repo") or match.group("repo") or default_repo
        digits = match.group("url_n") or match.group("n") or match.group("short")
        if repo is not None and 0 < int(digits) <= 10**9 and PRRef(repo, int(digits)) not in found:
            found.append(PRRef(repo, int(digits)))
    return found


@settings(max_examples=500, deadline=None)
@given(text=texts(QUESTION_BITS))
def test_references_and_why_questions_are_read_as_before(text: str) -> None:
    assert find_refs(text, "o/r") == old_find_refs(text, "o/r")
    assert is_why(text) == bool(OLD_WHY.search(text))


@settings(max_examples=500, deadline=None)
@given(text=texts(SANITIZE_BITS))
@example(text="////x.y")  # found by Hypothesis: more than two slashes open a host too (rules 2)
@example(text="a\\//x.y")
def test_urls_and_slack_tokens_are_found_as_before(text: str) -> None:
    new = [(match.start() + len(match["lead"] or ""), match.end()) for match in sanitize._BARE_URL.finditer(text)]
    assert new == [match.span() for match in OLD_BARE_URL.finditer(text)]
    unnested = text
    while (once := OLD_TOKEN.sub("", unnested)) != unnested:
        unnested = once
    assert sanitize._without_slack_tokens(text) == unnested


@settings(max_examples=300, deadline=None)
@given(text=texts(CUT_BITS))
def test_clause_breaks_are_found_as_before(text: str) -> None:
    assert cutting._CLAUSE_BREAK.split(text) == OLD_CLAUSE_BREAK.split(text)


@settings(max_examples=300, deadline=None)
@given(text=texts(COMMENT_BITS, size=20))
def test_comments_are_removed_as_before_when_nested_a_few_deep(text: str) -> None:
    removed = text
    while "<!--" in removed:
        removed = OLD_COMMENT.sub("", removed)
    assert clean_text(text) == removed
