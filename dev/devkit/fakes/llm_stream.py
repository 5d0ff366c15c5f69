"""Chat Completions streamed as OpenAI streams them (`stream: true`): server-sent events, one
`chat.completion.chunk` each (`data: {...}\\n\\n`), the content in `choices[0].delta.content`
pieces, a last chunk with `finish_reason`, then, when `stream_options.include_usage` is asked,
a chunk with empty `choices` and the `usage`, and `data: [DONE]\\n\\n`
(https://platform.openai.com/docs/api-reference/chat-streaming).

Owns the wire format and what a stream's reader saw (StreamLog); FakeOpenAI decides what to say.
"""

from __future__ import annotations

import json
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

# How a text is cut into pieces when no script says: a word and the space after it, roughly
# what a model's tokens are.
_PIECE = re.compile(r"\S+\s*|\s+")


def pieces_of(text: str) -> list[str]:
    return _PIECE.findall(text)


@dataclass
class StreamLog:
    """One streamed answer: the pieces written so far, and whether it ran to [DONE] or was cut
    off because the client closed the connection (a cancelled answer)."""

    pieces: list[str] = field(default_factory=list)
    finished: bool = False
    cut: bool = False
    first_piece_at: float | None = None  # time.monotonic() when the first content piece went out
    settled: threading.Event = field(default_factory=threading.Event)  # finished or cut


def sse_stream(
    request: dict[str, Any],
    texts: Sequence[str],
    *,
    delay: float,
    sleep: Callable[[float], None],
    log: StreamLog,
    usage: tuple[int, int],
    hold: Callable[[int], None] = lambda sent: None,
) -> Iterator[bytes]:
    """The event stream for `texts` (one content delta each), `delay` seconds before each and
    `hold(pieces sent so far)` called before each too."""
    ident = f"chatcmpl-{uuid.uuid4().hex[:24]}"
    created = int(time.time())

    def chunk(choices: list[dict[str, Any]], **extra: Any) -> bytes:
        payload = {
            "id": ident,
            "object": "chat.completion.chunk",
            "created": created,
            "model": request["model"],
            "system_fingerprint": "fp_fake",
            "choices": choices,
            **extra,
        }
        return b"data: " + json.dumps(payload).encode() + b"\n\n"

    include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
    try:
        yield chunk([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])
        for sent, text in enumerate(texts):
            sleep(delay)
            hold(sent)
            yield chunk([{"index": 0, "delta": {"content": text}, "finish_reason": None}])
            if log.first_piece_at is None:
                log.first_piece_at = time.monotonic()
            log.pieces.append(text)
        yield chunk([{"index": 0, "delta": {}, "finish_reason": "stop"}])
        if include_usage:
            prompt, completion = usage
            counts = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
            yield chunk([], usage=counts)
        yield b"data: [DONE]\n\n"
        log.finished = True
    finally:
        log.cut = not log.finished
        log.settled.set()
