"""What a description's sentences do: explain a failure, state a decision, name code, fix an issue.

Owns the word lists that recognise them, in English and Chinese. Pure. Every pattern runs over
whole descriptions, so each stays linear in its text.
"""

from __future__ import annotations

import re

from bot.core.heuristic.description import Description, word_count
from bot.core.strings.patterns import lazy
from bot.core.strings.text import count_cjk

# A failure, and words that give its cause or what avoids it: "hangs because…", "to avoid OOM".
_FAILURE = lazy(
    r"\b(?:crash\w*|oom|out[- ]of[- ]memory|hangs?|hanging|hung|deadlock\w*|races?|racy|race condition|leak\w*|"
    r"regress\w*|segfault\w*|nan|incorrect\w*|wrong|corrupt\w*|times? out|timed out|timeouts?|flaky|flakiness|"
    r"fail\w*|errors?|bugs?|broken|breaks?|stuck|stall\w*|mismatch\w*)\b|崩溃|死锁|泄漏|回归|错误|卡死|失败",
    re.IGNORECASE,
)
_CAUSAL = lazy(
    r"\b(?:because|due to|caused by|causes?|causing|root cause|stems? from|triggered by|led to|leads? to|"
    r"results? in|resulting in|so that|to avoid|to prevent|which means|turned out|the culprit)\b|因为|由于|导致|原因",
    re.IGNORECASE,
)
# A choice between ways of doing it, said as one.
_DECISION = lazy(
    r"\b(?:instead of|rather than|we chose|chose to|opted|trade-?offs?|alternatives?|we decided|decided to|"
    r"in favou?r of|at the cost of)\b|而不是|取舍|权衡",
    re.IGNORECASE,
)
# Code named in prose: `spans`, snake_case, calls(), dotted.names and path/to/file.py. Capitalised
# words are not enough: product names (DeepSeek, FlashInfer, GitHub) are written that way too.
_CODE = lazy(r"`[^`\n]+`|\b[A-Za-z]\w*_\w+\b|\b\w+\(\)|\b[a-z_]\w+\.[a-z_]\w+\b|\b[\w-]+/[\w./-]+\.\w+\b")
# "Fixes #12", "closes https://…/issues/12", "fixing the regression reported in #12": within a
# sentence (a dot inside a URL does not end it).
_FIXES = lazy(
    r"\b(?:fix(?:es|ed|ing)?|close[sd]?|closing|resolve[sd]?|resolving)\b(?:[^.\n]|\.(?=\S)){0,80}?(?:#(?P<n>\d+)|/issues/(?P<u>\d+))",
    re.IGNORECASE,
)
_PLAIN_WORD = lazy(r"(?<![\w/-])[A-Za-z]{2,}(?![\w/-])")
# A sentence shorter than this is a label or a fragment ("Fixes #12.", "LGTM"), not an explanation.
MIN_SENTENCE_WORDS = 6
# Prose has words: a command line ("pytest tests/x.py -k abort") has few that are not paths or flags.
MIN_PLAIN_WORDS = 4
MIN_CJK_CHARS = 10


def quotable(sentence: str) -> bool:
    """A sentence a card may quote as it is: prose of some length, no link, not a lead-in to a list."""
    prose = len(_PLAIN_WORD.findall(sentence)) >= MIN_PLAIN_WORDS or count_cjk(sentence) >= MIN_CJK_CHARS
    long_enough = word_count(sentence) >= MIN_SENTENCE_WORDS
    return prose and long_enough and "://" not in sentence and not sentence.rstrip().endswith((":", "："))


def explains_failure(sentence: str) -> bool:
    return bool(_FAILURE.search(sentence) and _CAUSAL.search(sentence))


def states_decision(sentence: str) -> bool:
    return bool(_DECISION.search(sentence))


def names_code(sentence: str) -> bool:
    return bool(_CODE.search(sentence))


def fixed_issues(description: Description) -> list[str]:
    """The issues the description says it fixes or closes, as "#N", in order."""
    text = "\n".join(paragraph for section in description.sections for paragraph in section.paragraphs)
    found = (f"#{match['n'] or match['u']}" for match in _FIXES.finditer(text))
    return list(dict.fromkeys(found))
