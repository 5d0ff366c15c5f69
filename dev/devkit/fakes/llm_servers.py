"""How real OpenAI-compatible servers answer what prdigest asks, for the fake in llm.py.

A Behaviour says which output modes a server takes, how it refuses the others (each refusal's
body copied from the server's source), how large its context window is and how it words the
error for a prompt that does not fit, and how its model wraps the JSON. PROFILES names the
kinds of server the tests run against.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any, Literal

Mode = Literal["json_schema", "tools", "json_object", "text"]
# "ok": taken; "openai-400": refused as OpenAI's API refuses a parameter a model lacks;
# "llama-cpp-500": refused as llama-cpp-python's server refuses response_format json_schema.
Taking = Literal["ok", "openai-400", "llama-cpp-500"]
Wording = Literal["openai", "llama-cpp"]

# llama-cpp-python types response_format as {"type": Literal["text", "json_object"], "schema"?}
# (llama_cpp/llama_types.py, ChatCompletionRequestResponseFormat). FastAPI's validation error for
# "json_schema" is caught by the server's RouteErrorHandler (llama_cpp/server/errors.py), which
# answers 500 {"error": {"message": str(exc), "type": "internal_server_error", "param": None,
# "code": None}}; str() of FastAPI's RequestValidationError (fastapi/exceptions.py,
# ValidationException.__str__) lists the errors as Python reprs, then where the endpoint is.
# As llama-cpp-python 0.3.36 with FastAPI 0.165 answered, byte for byte but for the install path.
_LITERAL_ERROR = {
    "type": "literal_error",
    "loc": ("body", "response_format", "type"),
    "msg": "Input should be 'text' or 'json_object'",
    "input": "json_schema",
    "ctx": {"expected": "'text' or 'json_object'"},
}
LLAMA_CPP_JSON_SCHEMA_500 = {
    "error": {
        "message": (
            f"1 validation error:\n  {_LITERAL_ERROR}\n\n"
            '  File "/usr/local/lib/python3.11/site-packages/llama_cpp/server/app.py", line 376, '
            "in create_chat_completion\n    POST /v1/chat/completions"
        ),
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}


def openai_refusal(mode: Mode) -> dict[str, Any]:
    """OpenAI's 400 for a request parameter the model does not take."""
    if mode == "tools":
        message, param = "'tools' is not supported with this model.", "tools"
    else:
        message, param = (
            f"Invalid parameter: 'response_format' of type '{mode}' is not supported with this model.",
            ("response_format"),
        )
    return {"error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}}


def context_error(window: int, prompt: int, completion: int | None, wording: Wording) -> dict[str, Any]:
    """The 400 for a prompt that does not fit `window`, in OpenAI's or llama-cpp-python's words."""
    if wording == "openai" and completion is None:
        message = (
            f"This model's maximum context length is {window} tokens. However, your messages resulted in "
            f"{prompt} tokens. Please reduce the length of the messages."
        )
    else:  # OpenAI's with a completion cap; llama_cpp/server/errors.py's always (None when uncapped)
        message = (
            f"This model's maximum context length is {window} tokens. However, you requested "
            f"{prompt + (completion or 0)} tokens ({prompt} in the messages, {completion} in the completion). "
            "Please reduce the length of the messages or completion."
        )
    error = {
        "message": message,
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
    return {"error": error}


@dataclass(frozen=True)
class Behaviour:
    """One kind of server. The defaults are OpenAI's API: every mode, a window larger than any card."""

    json_schema: Taking = "ok"
    tools: Taking = "ok"
    json_object: Taking = "ok"
    # llama-cpp-python answers a forced tool call with the legacy function_call beside tool_calls
    # and finish_reason "tool_calls" (llama_chat_format.py, _convert_completion_to_chat_function).
    tool_reply: Wording = "openai"
    context_window: int | None = None  # tokens; a longer prompt is refused
    context_wording: Wording = "openai"
    list_window: bool = False  # GET /v1/models gives max_model_len, as vLLM does
    think: bool = False  # a reasoning model: <think>…</think> before the answer
    fence: bool = False  # the answer in a ```json fence, after a sentence

    def taking(self, mode: Mode) -> Taking:
        return "ok" if mode == "text" else getattr(self, mode)


PROFILES: dict[str, Behaviour] = {
    "openai": Behaviour(),
    # json_schema refused with the 500 above; tools with a named tool_choice and json_object with
    # a schema are both taken (llama_chat_format.py builds a grammar from either schema).
    "llama-cpp": Behaviour(
        json_schema="llama-cpp-500", tool_reply="llama-cpp", context_wording="llama-cpp", context_window=16384
    ),
    # A llama-cpp-python whose chat handler does not do tools: JSON mode is the strongest left.
    "json-object": Behaviour(json_schema="llama-cpp-500", tools="openai-400", context_wording="llama-cpp"),
    # A server that takes plain chat only: neither response_format nor tools.
    "no-response-format": Behaviour(json_schema="openai-400", json_object="openai-400", tools="openai-400"),
    "small-window": Behaviour(context_window=4096),
    "reasoning": Behaviour(think=True),
    "fenced": Behaviour(fence=True),
}

THINKING = (
    "<think>\nThe PR changes a few files. The answer must be one object like {headline, verdict} "
    "with the fields the instructions name.\n</think>\n"
)


def wrapped(content: str, behaviour: Behaviour) -> str:
    """The answer as the server's model writes it around the JSON."""
    if behaviour.fence:
        content = f"Here is the card:\n```json\n{content}\n```\n"
    if behaviour.think:
        content = THINKING + content
    return content


def mode_of(request: dict[str, Any]) -> Mode:
    """How a request asks for structured output (what prdigest's adapter sends for each mode)."""
    kind = (request.get("response_format") or {}).get("type")
    if kind in ("json_schema", "json_object"):
        return "json_schema" if kind == "json_schema" else "json_object"
    return "tools" if request.get("tools") else "text"


def prompt_tokens(request: dict[str, Any]) -> int:
    """About what a tokenizer counts (4 characters a token), so fewer than prdigest's estimate."""
    return sum(len(str(message.get("content") or "")) for message in request.get("messages", [])) // 4


def tool_call_message(request: dict[str, Any], arguments: str, behaviour: Behaviour) -> tuple[dict[str, Any], str]:
    """The assistant message and finish reason of a forced function call."""
    name = request["tool_choice"]["function"]["name"]
    call = {
        "id": f"call_{uuid.uuid4().hex[:12]}",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }
    message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [call]}
    if behaviour.tool_reply == "llama-cpp":
        message["function_call"] = {"name": name, "arguments": arguments}
        return message, "tool_calls"
    return message, "stop"


def refusal_body(mode: Mode, taking: Taking) -> tuple[int, dict[str, Any]]:
    if taking == "llama-cpp-500":
        return 500, json.loads(json.dumps(LLAMA_CPP_JSON_SCHEMA_500))
    return 400, openai_refusal(mode)
