"""A fake OpenAI Chat Completions API for the real `openai` client (`chat.completions.parse`).

Named llm.py so that it never shadows the `openai` package. Point the client at it with
`OpenAI(base_url=fake.url + "/v1", api_key="test", max_retries=N, timeout=T)`.

The reply content comes from `responder(request_json)`; faults queued with fail_next /
hang_next / invalid_json_next replace the normal answer, one per request, in FIFO order.
`behaviour` (a name of llm_servers.PROFILES, or a Behaviour) makes it answer as a kind of
server does: which output modes it takes and how it refuses the others, its context window,
how its model wraps the JSON. `max_concurrent` gives it a model server's fixed number of slots.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Literal, Self

from devkit.fakes.llm_servers import (
    PROFILES,
    Behaviour,
    Mode,
    context_error,
    mode_of,
    prompt_tokens,
    refusal_body,
    tool_call_message,
    wrapped,
)
from devkit.fakes.llm_stream import StreamLog, pieces_of, sse_stream
from devkit.fakes.server import LoopbackServer, RecordedRequest, Response

Responder = Callable[[dict[str, Any]], "dict[str, Any] | str"]
Outcome = Literal["answer", "refused", "too long", "fault"]

DEFAULT_CARD: dict[str, Any] = {
    "headline": "Summary of the change",
    "verdict": "skim",
    "minutes": 3,
    "why": [],
    "caveats": [],
    "watch": [],
}
INVALID_JSON = "not json {"
CHAT_PATH = "/v1/chat/completions"

# What the real API answers for common error statuses: (type, code).
_ERRORS = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", "overloaded"),
}


def default_responder(request: dict[str, Any]) -> dict[str, Any]:
    return dict(DEFAULT_CARD)


@dataclass
class _Fault:
    kind: str  # "status" | "hang" | "invalid_json"
    status: int = 0
    seconds: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


class FakeOpenAI(LoopbackServer):
    def __init__(
        self,
        *,
        latency: float = 0.0,
        port: int = 0,
        responder: Responder | None = None,
        behaviour: Behaviour | str = "openai",
        max_concurrent: int | None = None,
    ) -> None:
        super().__init__(latency=latency, port=port)
        self.responder: Responder = responder or default_responder
        # A model server generates for a fixed number of sequences at once (vLLM's max_num_seqs):
        # past it, a chat request waits for a free slot, then takes `latency` in it (a streamed
        # answer holds its slot to its last piece). None: every request generates at once.
        self.max_concurrent = max_concurrent
        self.waited = 0  # chat requests that found every slot taken
        self.peak_generating = 0  # the most chat requests in slots at one time
        self._slots = threading.Condition()
        self._generating = 0
        self.behaviour = PROFILES[behaviour] if isinstance(behaviour, str) else behaviour
        self.model_id = "fake-model"  # what GET /v1/models lists
        self._faults: deque[_Fault] = deque()
        self._faults_lock = threading.Lock()
        # Each chat request's mode and what became of it: "answer", "refused" (its mode), "too long"
        # (its prompt), "fault" (an injected failure).
        self._outcomes: list[tuple[Mode, Outcome]] = []
        # The `usage` of every completion answered, (prompt_tokens, completion_tokens), oldest first.
        self._usage: list[tuple[int, int]] = []
        # Streamed answers (`stream: true`): the pieces to send instead of the responder's text cut
        # into words (a test injects content this way), the pause before each, and every stream's log.
        self.stream_script: list[str] | None = None
        self.chunk_delay = 0.0
        self.streams: list[StreamLog] = []
        # With `hold_after` = n, every stream waits after its first n pieces until `go_on` is set:
        # a test makes answers overlap (a Stop pressed while both stream) without guessing at time.
        self.hold_after: int | None = None
        self.go_on = threading.Event()

    # -- faults ----------------------------------------------------------------------------

    def fail_next(self, status: int, times: int = 1, headers: dict[str, str] | None = None) -> None:
        """Answer the next `times` completions with an error status.

        Note: the openai client ignores `retry-after: 0` (only values > 0 count) and then backs
        off 0.5 s or more; pass `{"retry-after-ms": "1"}` for an immediate retry in tests.
        """
        self._queue(_Fault("status", status=status, headers=dict(headers or {})), times)

    def hang_next(self, seconds: float, times: int = 1) -> None:
        """Sleep `seconds` before answering (stop() cuts it short), to trip client timeouts."""
        self._queue(_Fault("hang", seconds=seconds), times)

    def invalid_json_next(self, times: int = 1) -> None:
        self._queue(_Fault("invalid_json"), times)

    def _queue(self, fault: _Fault, times: int) -> None:
        with self._faults_lock:
            self._faults.extend(fault for _ in range(times))

    def _take_fault(self) -> _Fault | None:
        with self._faults_lock:
            return self._faults.popleft() if self._faults else None

    # -- introspection ---------------------------------------------------------------------

    @property
    def calls(self) -> int:
        """Chat completion requests received, failed ones included."""
        return self.count(lambda r: r.method == "POST" and r.path == CHAT_PATH)

    def chat_requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of all chat completion requests, oldest first."""
        return [r.json() for r in self.requests if r.method == "POST" and r.path == CHAT_PATH]

    def modes(self) -> list[Mode]:
        """The output mode each chat completion request asked in, oldest first."""
        return [mode_of(request) for request in self.chat_requests()]

    def answered_modes(self) -> list[Mode]:
        """The output mode of each chat completion request that got an answer (not an error)."""
        return [mode for mode, outcome in self.outcomes() if outcome == "answer"]

    def outcomes(self) -> list[tuple[Mode, Outcome]]:
        """Each chat completion request's mode and what became of it, oldest first."""
        with self._faults_lock:
            return list(self._outcomes)

    def usage_given(self) -> tuple[int, int]:
        """Prompt and completion tokens of every answer so far, added up (as `usage` reported them)."""
        with self._faults_lock:
            return sum(p for p, _ in self._usage), sum(c for _, c in self._usage)

    def _note(self, request: dict[str, Any], outcome: Outcome) -> None:
        with self._faults_lock:
            self._outcomes.append((mode_of(request), outcome))

    # -- serving ---------------------------------------------------------------------------

    def latency_of(self, request: RecordedRequest) -> float:
        # `latency` stands for generation: a model server lists its models at once; with slots, a
        # chat request spends it in its slot (handle).
        if request.method == "GET" and request.path.endswith("/models"):
            return 0.0
        if self.max_concurrent is not None and request.method == "POST" and request.path == CHAT_PATH:
            return 0.0
        return self.latency

    def handle(self, request: RecordedRequest) -> Response:
        if request.method == "GET" and request.path == "/v1/models":
            model: dict[str, Any] = {
                "id": self.model_id,
                "object": "model",
                "created": 1_700_000_000,
                "owned_by": "fake",
            }
            if self.behaviour.list_window and self.behaviour.context_window:
                model["max_model_len"] = self.behaviour.context_window
            return self._answer({"object": "list", "data": [model]})
        if request.method != "POST" or request.path != CHAT_PATH:
            return self._error(404, f"Unknown request URL: {request.method} {request.path}")
        try:
            body = request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict) or "model" not in body or "messages" not in body:
            return self._error(400, "The request body must be JSON with 'model' and 'messages'.")
        if self.max_concurrent is None:
            return self._chat(body)
        self._take_slot(self.max_concurrent)
        try:
            self.sleep(self.latency)
            response = self._chat(body)
        except BaseException:
            self._give_slot()
            raise
        if response.stream is None:
            self._give_slot()
        else:
            response.stream = self._holding_slot(response.stream)
        return response

    def _take_slot(self, slots: int) -> None:
        with self._slots:
            if self._generating >= slots:
                self.waited += 1
            # Stopping lets everyone through, so that stop() is not held up by a queue.
            while self._generating >= slots and not self._stopping.is_set():
                self._slots.wait(0.05)
            self._generating += 1
            self.peak_generating = max(self.peak_generating, self._generating)

    def _give_slot(self) -> None:
        with self._slots:
            self._generating -= 1
            self._slots.notify()

    def _holding_slot(self, pieces: Iterable[bytes]) -> Iterator[bytes]:
        try:
            yield from pieces
        finally:  # the last piece sent, or the client gone (the server closes the generator)
            self._give_slot()

    def _chat(self, body: dict[str, Any]) -> Response:
        fault = self._take_fault()
        if fault is not None and fault.kind == "status":
            self._note(body, "fault")
            return self._error(fault.status, f"Injected failure {fault.status}", fault.headers)
        if fault is not None and fault.kind == "hang":
            self.sleep(fault.seconds)
        refused = self._refusal(body)
        if refused is not None:
            return refused
        if fault is not None and fault.kind == "invalid_json":
            content = INVALID_JSON
        else:
            reply = self.responder(body)
            content = reply if isinstance(reply, str) else json.dumps(reply)
        self._note(body, "answer")
        if body.get("stream"):
            return self._streamed(body, content)
        if mode_of(body) == "tools":
            message, finish = tool_call_message(body, content, self.behaviour)
            return self._answer(self._completion(body, "", message, finish))
        return self._answer(self._completion(body, wrapped(content, self.behaviour)))

    def _refusal(self, request: dict[str, Any]) -> Response | None:
        """The server's error for a mode it does not take or a prompt longer than its window."""
        behaviour = self.behaviour
        mode = mode_of(request)
        taking = behaviour.taking(mode)
        if taking != "ok":
            self._note(request, "refused")
            status, payload = refusal_body(mode, taking)
            return self._answer(payload, status)
        window, prompt = behaviour.context_window, prompt_tokens(request)
        completion = request.get("max_tokens") or request.get("max_completion_tokens")
        if window is not None and prompt + (completion or 0) > window:
            self._note(request, "too long")
            return self._answer(context_error(window, prompt, completion, behaviour.context_wording), 400)
        return None

    def _completion(
        self, request: dict[str, Any], content: str, message: dict[str, Any] | None = None, finish: str = "stop"
    ) -> dict[str, Any]:
        # Rough token counts (4 characters a token) so usage-based code has numbers to add up.
        prompt_tokens = len(json.dumps(request.get("messages"))) // 4
        completion_tokens = max(1, len(content or json.dumps(message or {})) // 4)
        with self._faults_lock:
            self._usage.append((prompt_tokens, completion_tokens))
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:24]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request["model"],
            "system_fingerprint": "fp_fake",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": finish,
                    "logprobs": None,
                    "message": message or {"role": "assistant", "content": content, "refusal": None},
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    def _streamed(self, request: dict[str, Any], content: str) -> Response:
        texts = list(self.stream_script) if self.stream_script is not None else pieces_of(content)
        log = StreamLog()
        prompt_tokens = len(json.dumps(request.get("messages"))) // 4
        usage = (prompt_tokens, max(1, len("".join(texts)) // 4))
        with self._faults_lock:
            self.streams.append(log)
            if (request.get("stream_options") or {}).get("include_usage"):
                self._usage.append(usage)
        events = sse_stream(
            request, texts, delay=self.chunk_delay, sleep=self.sleep, log=log, usage=usage, hold=self._hold
        )
        return Response(200, {"content-type": "text/event-stream; charset=utf-8"}, stream=events)

    def _hold(self, sent: int) -> None:
        """Before the next piece, with `sent` gone: wait for `go_on` at `hold_after` (or for stop())."""
        if self.hold_after is not None and sent == self.hold_after:
            while not self.go_on.is_set() and not self._stopping.wait(0.01):
                pass

    def _answer(self, payload: dict[str, Any], status: int = 200, headers: dict[str, str] | None = None) -> Response:
        return Response.json(payload, status, {"x-request-id": f"req_{uuid.uuid4().hex}", **(headers or {})})

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
        kind, code = _ERRORS.get(status, ("server_error" if status >= 500 else "invalid_request_error", None))
        return self._answer({"error": {"message": message, "type": kind, "param": None, "code": code}}, status, headers)


class SilentServer:
    """A model endpoint that accepts connections and never answers (nor reads what it is sent).

    Not an HTTP server at all: the kernel completes the handshake, a thread accepts and holds
    each connection, and nothing is ever written back. `connections` counts them, one per attempt.
    """

    def __init__(self) -> None:
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}"
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, name="silent-server", daemon=True)

    @property
    def connections(self) -> int:
        return len(self._held)

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._listener.accept()
            except OSError:  # closed by stop()
                return
            self._held.append(connection)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        # shutdown() wakes the accept() blocked in the thread; close() alone may not on Linux.
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        self._thread.join(timeout=5)
        for connection in self._held:
            connection.close()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()
