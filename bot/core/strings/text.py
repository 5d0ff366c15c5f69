"""What the model may see of untrusted text, and how many tokens it costs.

Owns token estimation and the cleaning of text that comes from a PR (titles, bodies, paths,
patches). Pure: no I/O, no vendor tokenizer. It must not lay out, rank or cut a context: that
is core/prompting/context.py's job.
"""

from __future__ import annotations

import re

from bot.core.strings.patterns import lazy

# Code and English run ~3.5-4.5 chars per BPE token, so 3 over-estimates diffs by 25-40%: the
# safe side of a budget (tiktoken is not an option: it downloads its tables at first use).
CHARS_PER_TOKEN = 3
# Han, kana, Hangul, CJK punctuation and full-width forms: about one token each, which chars/3
# would under-estimate threefold.
_CJK = lazy(
    r"[\u1100-\u11ff\u2e80-\u9fff\ua960-\ua97f\uac00-\ud7ff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
    r"\U00020000-\U0003ffff]"
)
# C0/C1 controls except \t and \n, zero-width characters and bidi controls: invisible to a
# reviewer, so they can only hide or reorder text meant for the model (Trojan Source). Also the
# other characters that render as nothing: soft hyphen, combining grapheme joiner, Hangul and
# Mongolian fillers, invisible math operators, interlinear annotation marks, and the Unicode
# "tag" block, which spells ASCII invisibly ("ASCII smuggling" of instructions to a model).
_INVISIBLE = lazy(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    r"\u202a-\u202e\u2060-\u2064\u2066-\u206f\u3164\ufeff\uffa0\ufff9-\ufffb\U000e0000-\U000e007f]"
)
# PR templates hide instructions in HTML comments; an unterminated one runs to the end.
_HTML_COMMENT = lazy(r"<!--.*?(?:-->|\Z)", re.DOTALL)
MAX_COMMENT_PASSES = 8
# Real paths stay under 200 characters; Git accepts up to PATH_MAX (4096).
MAX_PATH_CHARS = 300


def estimate_tokens(text: str) -> int:
    """Upper estimate of the tokens in `text`: chars/3, and one per CJK character."""
    return tokens_for_counts(*char_counts(text))


def count_cjk(text: str) -> int:
    """CJK characters in `text` (each about one token)."""
    return 0 if text.isascii() else len(_CJK.findall(text))


def char_counts(text: str) -> tuple[int, int]:
    """(other characters, CJK characters) of `text`: what a running token estimate adds up."""
    cjk = count_cjk(text)
    return len(text) - cjk, cjk


def tokens_for_counts(plain: int, cjk: int) -> int:
    """The estimate of `estimate_tokens` from counts that `char_counts` gave."""
    return -(-plain // CHARS_PER_TOKEN) + cjk


def clean_text(text: str) -> str:
    """What the model may see of untrusted text: no HTML comments, controls or invisible characters."""
    text = _INVISIBLE.sub("", text.replace("\r\n", "\n"))
    # Removing one comment can join the halves of another ("<!<!-- -->-- x -->"): repeat, a few
    # times only, since each pass reads the whole text. Past that the nesting is hostile by
    # construction: from the first comment left to the end everything goes, as an unterminated
    # comment does. Of what more passes would remove, only the `<!` halves before it stay.
    for _ in range(MAX_COMMENT_PASSES):
        if "<!--" not in text:
            return text
        text = _HTML_COMMENT.sub("", text)
    return text.partition("<!--")[0]


def clean_line(text: str, max_chars: int = MAX_PATH_CHARS) -> str:
    """Untrusted text that must stay on one line (a path, a title): a newline could forge a section."""
    line = " ".join(clean_text(text).split())
    return line if len(line) <= max_chars else line[: max_chars - 1] + "…"
