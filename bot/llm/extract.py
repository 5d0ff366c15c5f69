"""The JSON object in a model's text answer (pure).

Asked for JSON without a grammar to hold them to it, models wrap it: reasoning models think
aloud first (`<think>…</think>`), chat models fence it in Markdown (```json … ```), some add a
sentence before or after. Small models also break lines inside a string, which JSON forbids
but which reads one way only: such an object is given back with the breaks escaped.
`json_object_text` finds the object such an answer holds; whether it fills the schema is for
pydantic to say (the caller validates), so it never guesses a repair.
"""

from __future__ import annotations

import json
import re

from bot.core.strings.patterns import lazy

# Leading reasoning blocks (DeepSeek-R1, Qwen3 and their kin write <think>; a few <thinking>).
_THINKING = lazy(r"\A\s*<(think|thinking)>.*?</\1>", re.DOTALL | re.IGNORECASE)
# A Markdown code fence, with or without a language after the backticks.
_FENCE = lazy(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)```", re.DOTALL)
# Where an object may start is tried at most this often: a card is short, and prose full of
# braces must not cost quadratic time.
MAX_STARTS = 64

_DECODER = json.JSONDecoder()
# Control characters (a raw newline, a tab) inside strings allowed.
_LENIENT = json.JSONDecoder(strict=False)


def without_thinking(text: str) -> str:
    """`text` without the reasoning blocks it opens with."""
    while match := _THINKING.match(text):
        text = text[match.end() :]
    return text


def json_object_text(text: str) -> str:
    """The outermost JSON object in an answer, as written; the answer stripped when it holds none.

    Reasoning first goes, then a fenced block is preferred to the prose around it (prose may hold
    braces of its own); the first `{` from which a whole object parses is the outermost one.
    """
    text = without_thinking(text).strip()
    fenced = _FENCE.search(text)
    if fenced is not None and "{" in fenced.group(1):
        text = fenced.group(1).strip()
    start = text.find("{")
    for _ in range(MAX_STARTS):
        if start < 0:
            break
        try:
            value, end = _DECODER.raw_decode(text, start)
        except ValueError:
            value, end = None, start
        if isinstance(value, dict):
            return text[start:end]
        try:
            value, end = _LENIENT.raw_decode(text, start)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return json.dumps(value, ensure_ascii=False)
        start = text.find("{", start + 1)
    return text
