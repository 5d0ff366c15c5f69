"""The release a question names (pure): one tag ("what's in v0.12.0 about MoE?"), a range of two
("between v0.11.0 and v0.12.0", "v0.11.0...v0.12.0", "从 v0.11.0 到 v0.12.0", "v0.11.0 和 v0.12.0
之间"), or which release holds a PR ("is #50912 in a release?", "#50912 在哪个版本？"), in English and Chinese.

A tag is a version as people type it: with a "v" (v0.12, v0.12.0rc1), three numbers (0.12.0), or
two numbers right after "release"/"version"/"版本". Nothing else: "3.5x", "1.6us", "Python 3.11"
and a PR number are never a release. The expression is blanked out of the question, so its
words are taken for neither days nor a topic.
"""

from __future__ import annotations

import re

from bot.core.strings.patterns import lazy

# "?" in the release slot: the question asks which release holds the PR it names.
WHICH_RELEASE = "?"
MAX_TAG_CHARS = 40

_SUFFIX = r"(?:[-.]?(?:rc|a|b|post|dev)\.?\d{1,4})?"  # v0.12.0rc1, 0.12.0.post1
_VERSION = rf"(?:v\d{{1,4}}(?:\.\d{{1,4}}){{1,3}}{_SUFFIX}|\d{{1,4}}(?:\.\d{{1,4}}){{2,3}}{_SUFFIX})"
_NAMED = r"(?:release|version|版本|tag)\s{0,2}(?P<short>v?\d{1,4}\.\d{1,4})"
_TAG = lazy(rf"(?<![\w.]){_VERSION}(?![\w.])|{_NAMED}(?![\w.])", re.IGNORECASE)
_RANGE = lazy(
    rf"\bbetween\s{{1,3}}(?P<a1>{_VERSION})\s{{1,3}}and\s{{1,3}}(?P<b1>{_VERSION})"
    rf"|\bfrom\s{{1,3}}(?P<a2>{_VERSION})\s{{1,3}}to\s{{1,3}}(?P<b2>{_VERSION})"
    rf"|(?<![\w.])(?P<a3>{_VERSION})\s{{0,2}}(?:\.\.\.?|→|->|–|—)\s{{0,2}}(?P<b3>{_VERSION})(?![\w.])"
    rf"|从\s{{0,2}}(?P<a4>{_VERSION})\s{{0,2}}到\s{{0,2}}(?P<b4>{_VERSION})"
    rf"|(?P<a5>{_VERSION})\s{{0,2}}(?:和|与|跟)\s{{0,2}}(?P<b5>{_VERSION})\s{{0,2}}之间",
    re.IGNORECASE,
)
# "is #N in a release", "which release has #N", "was #N released", "#N 在哪个版本", "#N 发布了吗".
_WHICH = lazy(
    r"\b(?:in|into|made\s{1,3}it\s{1,3}into)\s{1,3}(?:a|any)\s{1,3}release\b"
    r"|\bwhich\s{1,3}(?:release|version|tag)\b"
    r"|\b(?:been\s{1,3}|got\s{1,3}|get\s{1,3}|was\s{1,3}|is\s{1,3})?released(?:\s{1,3}yet)?\b"
    r"|\brelease\s{1,3}(?:has|had|includes|included|contains|shipped)\b"
    r"|哪个版本|哪一个版本|哪个\s?release|发布了吗|发版了吗|发布了没|进了?版本|在版本里",
    re.IGNORECASE,
)
# What frames a release question and is no topic: blanked with the release.
_FRAME = lazy(r"\b(?:in\s{1,3}the\s{1,3}release|the\s{1,3}release|release|version)\b|版本里|版本中|版本", re.I)


def _clean(tag: str) -> str:
    return tag.strip()[:MAX_TAG_CHARS]


def release_said(question: str) -> tuple[str | None, str]:
    """The release `question` names ("v0.12.0", "v0.11.0...v0.12.0", or WHICH_RELEASE), or None,
    and the question with the expression blanked out."""
    found = _RANGE.search(question)
    if found is not None:
        pairs = (found.group(f"a{n}") and (found.group(f"a{n}"), found.group(f"b{n}")) for n in range(1, 6))
        first, last = next(pair for pair in pairs if pair)
        rest = question[: found.start()] + " " + question[found.end() :]
        return f"{_clean(first)}...{_clean(last)}", _FRAME.sub(" ", rest)
    found = _TAG.search(question)
    if found is not None:
        tag = found.group("short") or found.group(0)
        rest = question[: found.start()] + " " + question[found.end() :]
        return _clean(tag), _FRAME.sub(" ", rest)
    found = _WHICH.search(question)
    if found is not None:
        rest = question[: found.start()] + " " + question[found.end() :]
        return WHICH_RELEASE, _FRAME.sub(" ", rest)
    return None, question
