"""What an endpoint's error says about the shape of the request: a way of asking for structured
output it does not take, or a prompt longer than the model's context window.

Recognised by the server's own words, which vary by server (quoted here with their source);
any other error stays an ordinary failure (llm/errors.py): a 500 that names no request
parameter is an outage, retried as one.

Mode refusals:
- OpenAI-style 400 naming the parameter (OpenAI's API, LiteLLM and most proxies):
  {"error": {"message": "…response_format…", "type": "invalid_request_error",
  "param": "response_format", "code": null}}
- llama-cpp-python's server types `response_format.type` as Literal["text", "json_object"]
  (llama_cpp/llama_types.py ChatCompletionRequestResponseFormat), and its RouteErrorHandler
  (llama_cpp/server/errors.py) turns FastAPI's validation error into a 500 whose message is
  str(RequestValidationError) (as 0.3.36 answers, with FastAPI 0.165):
  {"error": {"message": "1 validation error:\\n  {'type': 'literal_error', 'loc': ('body',
  'response_format', 'type'), 'msg': \\"Input should be 'text' or 'json_object'\\", 'input':
  'json_schema', 'ctx': {'expected': \\"'text' or 'json_object'\\"}}\\n\\n  File \\"…/llama_cpp/
  server/app.py\\", line 376, in create_chat_completion\\n    POST /v1/chat/completions",
  "type": "internal_server_error", "param": null, "code": null}}
- FastAPI's own 422 (a server without such a handler):
  {"detail": [{"type": "literal_error", "loc": ["body", "response_format", "type"], …}]}

Context windows:
- OpenAI: 400, code context_length_exceeded, "This model's maximum context length is 8192
  tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages."
- llama-cpp-python (server/errors.py, ErrorResponseFormatters.context_length_exceeded) and vLLM:
  400, code context_length_exceeded, "This model's maximum context length is 2048 tokens.
  However, you requested 2300 tokens (2300 in the messages, None in the completion). …"
- llama.cpp's llama-server: 400, type exceed_context_size_error, "request (5000 tokens) exceeds
  the available context size (4096 tokens), try increasing it", with n_prompt_tokens and n_ctx.
"""

from __future__ import annotations

import json
import re

import openai

from bot.core.strings.patterns import lazy
from bot.errors import ContextTooLong, ModeRefused
from bot.models import OutputMode

# What a refusal of a mode answers: 400 and 422 (a request the server will not take), and 500
# from llama-cpp-python, whose validation errors come back as 500 (see above).
REFUSAL_STATUSES = frozenset({400, 422, 500})
# The request fields each mode adds: an error naming one of them refuses the mode.
MODE_FIELDS: dict[OutputMode, tuple[str, ...]] = {
    "json_schema": ("response_format", "json_schema"),
    "tools": ("tools", "tool_choice"),
    "json_object": ("response_format", "json_object"),
    "text": (),
}
CONTEXT_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error"})
_CONTEXT_WORDS = lazy(r"maximum context length|exceeds the available context size", re.IGNORECASE)
_WINDOW = (lazy(r"maximum context length is (\d+)"), lazy(r"available context size \((\d+) tokens\)"))
_PROMPT = (
    lazy(r"\((\d+) in the messages"),
    lazy(r"messages resulted in (\d+) tokens"),
    lazy(r"contains at least (\d+) input tokens"),
    lazy(r"request \((\d+) tokens\)"),
)
# Enough to recognise a refusal by its words; a proxy's HTML error page is not kept whole.
SERVER_MESSAGE_MAX = 1000


def context_error(exc: openai.APIStatusError) -> ContextTooLong | None:
    """Ours when the error says the prompt is longer than the model's window, with its figures."""
    text = _body_text(exc.body)
    error = exc.body if isinstance(exc.body, dict) else {}
    if exc.status_code >= 500 or not (
        exc.code in CONTEXT_CODES or error.get("type") in CONTEXT_CODES or _CONTEXT_WORDS.search(text)
    ):
        return None
    window = _number(error.get("n_ctx")) or _first(_WINDOW, text)
    prompt = _number(error.get("n_prompt_tokens")) or _first(_PROMPT, text)
    return ContextTooLong(exc.status_code, exc.code, server_message(exc), window=window, prompt_tokens=prompt)


def mode_refusal(exc: openai.APIStatusError, mode: OutputMode) -> ModeRefused | None:
    """Ours when the error refuses the request field that `mode` adds; never retried."""
    fields = MODE_FIELDS[mode]
    if exc.status_code not in REFUSAL_STATUSES or context_error(exc) is not None:
        return None
    error = exc.body if isinstance(exc.body, dict) else {}
    text = _body_text(exc.body)
    if error.get("param") in fields or any(re.search(rf"\b{name}\b", text) for name in fields):
        return ModeRefused(mode, exc.status_code, exc.code, server_message(exc))
    return None


def server_message(exc: openai.APIStatusError) -> str:
    """The `message` of the server's error body ({"error": {"message": …}}), or its text when not JSON."""
    body = exc.body  # the SDK has already unwrapped "error"
    message = body.get("message") if isinstance(body, dict) else body
    return message[:SERVER_MESSAGE_MAX] if isinstance(message, str) else ""


def _body_text(body: object) -> str:
    """The error body as text: the SDK has unwrapped {"error": …} already; FastAPI's detail stays."""
    if isinstance(body, str):
        return body
    try:
        return json.dumps(body, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(body)


def _first(patterns: tuple[re.Pattern[str], ...], text: str) -> int | None:
    for pattern in patterns:
        if match := pattern.search(text):
            return int(match.group(1))
    return None


def _number(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
