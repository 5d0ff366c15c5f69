"""Chat-template tokens and reasoning in model output: what a local model's server left in (pure).

A server that applies the wrong chat template, or none, passes the model's special tokens on as
text (`<s>[INST]…`, `<|im_end|>`, `<start_of_turn>model`) and a reasoning model's thinking with
them (`<think>…</think>`). Owns which tokens those are, what text they enclose that is not the
answer, and when what is left is too little to be one. Must not judge mentions or links
(sanitize.py does, after this). Linear in the text: one scan over the tokens per pass.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from bot.core.strings.patterns import lazy

# A token as a server leaves it, or HTML-escaped by one that meant to show it.
_LT, _GT = r"(?:<|&lt;)", r"(?:>|&gt;)"
_BAR = "[|\uff5c]"  # DeepSeek writes its tokens with full-width bars: <｜end▁of▁sentence｜>
_ROLES = "user|system|assistant|model|tool|developer|ipython"
# The role after an opener belongs to the token: "<|im_start|>assistant\n" goes whole.
_ROLE = rf"(?:[ \t]*(?P<{{name}}>{_ROLES})(?![A-Za-z0-9_])[ \t]*\n?)?"
_TOKEN = lazy(
    "|".join(
        (
            rf"(?P<think_open>{_LT}think(?:ing)?{_GT})",
            rf"(?P<think_close>{_LT}/think(?:ing)?{_GT})",
            rf"{_LT}{_BAR}im_start{_BAR}{_GT}{_ROLE.format(name='chatml_role')}",
            rf"{_LT}start_of_turn{_GT}{_ROLE.format(name='gemma_role')}",
            rf"{_LT}{_BAR}start_header_id{_BAR}{_GT}[ \t]*(?P<llama_role>[A-Za-z_]{{1,20}})?[ \t]*"
            rf"{_LT}{_BAR}end_header_id{_BAR}{_GT}\n*",
            r"(?P<inst>\[INST\])",
            r"(?P<inst_close>\[/INST\])",
            rf"(?P<sys>{_LT}{_LT}SYS{_GT}{_GT})",
            rf"(?P<sys_close>{_LT}{_LT}/SYS{_GT}{_GT})",
            rf"(?P<end>{_LT}(?:/s|eos|end_of_turn){_GT})",
            rf"{_LT}(?:s|bos|pad|unk){_GT}",
            # Any other special token of the `<|name|>` form: <|eot_id|>, <|endoftext|>, <|user|>.
            rf"{_LT}{_BAR}(?P<special>[A-Za-z0-9_\u2581.-]{{1,40}}){_BAR}{_GT}",
        )
    ),
    re.IGNORECASE,
)
# `<|name|>` tokens that end the model's turn, and those that open someone else's (Phi-3, DeepSeek).
_END_NAMES = frozenset({"im_end", "eot_id", "eom_id", "end", "endoftext", "end_of_text", "end\u2581of\u2581sentence"})
_OTHERS = frozenset({"user", "system", "tool", "developer", "ipython"})

# A token written in code is written about ("strips `<think>` blocks"): inline code and fences keep theirs.
_CODE = lazy(r"```.*?(?:```|\Z)|`[^`\n]+`", re.DOTALL)

# Removing a token can join the halves of another (`<|im_<|im_start|>start|>`): passes repeat until
# nothing changes. Text still changing after this many is built to do it, and none of it is kept.
MAX_PASSES = 8
# What must be left of an answer that lost template tokens to count as one: this many words (a
# Chinese character counts as one), and no fewer words than tokens were removed: an answer more
# than half of which was template is the model babbling, whatever words are left.
MIN_WORDS = 3
_WORD = lazy(r"[A-Za-z0-9_]+|[\u3400-\u4dbf\u4e00-\u9fff]")

_Kind = Literal[
    "think_open", "think_close", "inst", "inst_close", "sys", "sys_close", "other_turn", "own_turn", "end", "plain"
]


@dataclass(frozen=True)
class _Token:
    start: int
    end: int
    kind: _Kind


def _kind(match: re.Match[str]) -> _Kind:
    if match["think_open"]:
        return "think_open"
    if match["think_close"]:
        return "think_close"
    for kind in ("inst", "inst_close", "sys", "sys_close"):
        if match[kind]:
            return kind
    role = (match["chatml_role"] or match["gemma_role"] or match["llama_role"] or match["special"] or "").lower()
    if role in _OTHERS:
        return "other_turn"
    if role in ("assistant", "model"):
        return "own_turn"
    if match["end"] or role in _END_NAMES:
        return "end"
    return "plain"


def _tokens(text: str) -> Iterator[_Token]:
    """The template tokens of `text` outside code, in order."""
    code = [(match.start(), match.end()) for match in _CODE.finditer(text)] if "`" in text else []
    spans = iter(code)
    span = next(spans, None)
    for match in _TOKEN.finditer(text):
        while span is not None and span[1] <= match.start():
            span = next(spans, None)
        if span is not None and span[0] < match.end():
            continue
        yield _Token(match.start(), match.end(), _kind(match))


@dataclass
class _Scan:
    """One pass over a text: the model's own words kept piece by piece, and the tokens removed."""

    text: str
    pieces: list[str] = field(default_factory=list)
    tokens: int = 0
    said_something: bool = False  # words kept so far: an end-of-turn token now ends the answer

    def keep(self, start: int, end: int) -> None:
        piece = self.text[start:end]
        before = self.pieces[-1][-1:] if self.pieces else ""
        if before.isalnum() and piece[:1].isalnum():
            piece = " " + piece  # "word<|im_end|>word" must not become one word
        elif before in (" ", "\t") and piece[:1] in (" ", "\t"):
            piece = piece.lstrip(" \t")  # "a <think> tag": one space, not two
        if piece:
            self.pieces.append(piece)
        self.said_something = self.said_something or any(char.isalnum() for char in piece)

    def forget(self) -> None:
        self.pieces.clear()
        self.said_something = False

    def result(self) -> tuple[str, int]:
        return "".join(self.pieces), self.tokens


def _strip_once(text: str) -> tuple[str, int]:
    """`text` without its template tokens and what they enclose that is not the answer, and how
    many tokens were removed (0: none found).

    - `<think>…</think>` (or `<thinking>`) goes whole. An opener with no closer after it takes the
      rest of the text when nothing was said before it; else it goes alone (it was named, not used).
    - A closer with no opener ends thinking the template opened in the prompt (DeepSeek-R1, Qwen3
      put `<think>` there): what came before it goes.
    - A turn the model wrote for someone else goes, up to its closer, an end of turn or its own
      turn's opener: `[INST]…[/INST]` (a `<<SYS>>` block inside it included), `<<SYS>>…<</SYS>>`,
      `<|im_start|>user…<|im_end|>`, `<start_of_turn>user…`, a Llama 3 `user` header, `<|user|>`.
    - Once something was said, an end-of-turn token (`</s>`, `<eos>`, `<|im_end|>`, `<|eot_id|>`,
      `<end_of_turn>`, `<|endoftext|>`, `<|end|>`) ends the answer: the server missed its stop and
      the rest is the model going on by itself.
    - Every other token goes alone: `<s>`, `<bos>`, `<|im_start|>assistant`, `<start_of_turn>model`.
    """
    tokens = list(_tokens(text))
    last_close = max((token.start for token in tokens if token.kind == "think_close"), default=-1)
    scan = _Scan(text)
    state: Literal["answer", "thinking", "other_turn"] = "answer"
    closer: _Kind = "end"  # what ends the other turn, besides an end of turn and the model's own
    position = 0
    for token in tokens:
        if state == "answer":
            scan.keep(position, token.start)
        position = token.end
        scan.tokens += 1
        if state == "thinking":
            if token.kind == "think_close":
                state = "answer"
        elif state == "other_turn":
            if token.kind in (closer, "own_turn", "end"):
                state = "answer"
        elif token.kind == "think_open" and token.start < last_close:
            state = "thinking"
        elif token.kind in ("inst", "sys", "other_turn"):
            state = "other_turn"
            closer = "inst_close" if token.kind == "inst" else "sys_close" if token.kind == "sys" else "end"
        elif token.kind == "think_close":
            scan.forget()
        elif (token.kind == "think_open" and not scan.said_something) or (token.kind == "end" and scan.said_something):
            return scan.result()
    if state == "answer":
        scan.keep(position, len(text))
    return scan.result()


def without_template(text: str) -> str:
    """The model's answer in `text` without chat-template tokens, thinking, or turns it wrote for
    others. "" when that leaves too little to be an answer: fewer than MIN_WORDS words, or fewer
    words than tokens. Text without any token is returned as it is."""
    current, tokens = text, 0
    for _ in range(MAX_PASSES):
        stripped, found = _strip_once(current)
        if not found:
            break
        current, tokens = stripped, tokens + found
    else:
        return ""
    if not tokens:
        return text
    kept = current.strip()
    words = len(_WORD.findall(kept))
    return kept if words >= MIN_WORDS and words >= tokens else ""
