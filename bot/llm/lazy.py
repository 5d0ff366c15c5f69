"""The model client, connected at its first request.

Importing the SDK and making its client take about half a second; a digest whose cards are all
cached never asks the model, so it never pays for them. This is the one place that laziness
lives: the wiring builds a ModelOnFirstUse like any other part, and the SDK is imported here,
when the first request (or `warm()`) needs it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.core.deadline import Deadline
from bot.core.usage import Tally
from bot.errors import ModelUnavailable
from bot.models import Message, OutputMode
from bot.ports import Parsed, Schema

if TYPE_CHECKING:
    from bot.llm.openai_model import OpenAIModel


@dataclass(frozen=True)
class Endpoint:
    """Where the model is and how it is asked: what `connect` needs to make the client."""

    api_key: str
    base_url: str | None
    model: str
    timeout: float
    max_output_tokens: int | None = None
    temperature: float | None = None
    seed: int | None = None
    system_role: bool = True


def connect(endpoint: Endpoint) -> OpenAIModel:
    """The SDK's client for `endpoint` (imports the SDK: call it at the first request)."""
    from bot.llm.connections import Connections
    from bot.llm.openai_model import OpenAIModel, Sampling, build_openai, limit_field

    url = endpoint.base_url
    sampling = Sampling(
        endpoint.max_output_tokens, limit_field(url), endpoint.temperature, endpoint.seed, endpoint.system_role
    )
    connections = Connections()
    client = build_openai(endpoint.api_key, url, timeout=endpoint.timeout, connections=connections)
    return OpenAIModel(client, endpoint.model, sampling, connections)


class ModelOnFirstUse:
    """A ModelClient that makes the SDK's client at its first request.

    Long-running processes call `warm()` before they serve instead: the import holds the
    interpreter lock for most of half a second, and paid on the first question it stalled every
    acknowledgement beside it.
    """

    def __init__(self, model: str, connect: Callable[[], OpenAIModel]) -> None:
        self.model = model
        self._connect = connect
        self._lock = threading.Lock()
        self._client: OpenAIModel | None = None
        self._cancelled = False
        self._closed = False

    @classmethod
    def of(cls, endpoint: Endpoint) -> ModelOnFirstUse:
        return cls(endpoint.model, lambda: connect(endpoint))

    def _connected(self) -> OpenAIModel:
        with self._lock:
            if self._closed:
                # The process is closing its clients: a card still being written under it gets
                # its fallback, and no new client (with sockets nobody would close) is made.
                raise ModelUnavailable("the model client is closed")
            if self._client is None:
                self._client = self._connect()
                if self._cancelled:  # cancelled while connecting: cancel() did not see this client
                    self._client.cancel()
            return self._client

    def warm(self) -> None:
        """Import the SDK and make the client now (no request is sent)."""
        self._connected()

    def parse(
        self,
        messages: Sequence[Message],
        schema: type[Schema],
        deadline: Deadline,
        mode: OutputMode = "json_schema",
        tally: Tally | None = None,
    ) -> Parsed[Schema]:
        return self._connected().parse(messages, schema, deadline, mode, tally)

    def complete(self, messages: Sequence[Message], deadline: Deadline, tally: Tally | None = None) -> str:
        return self._connected().complete(messages, deadline, tally)

    def complete_streaming(
        self, messages: Sequence[Message], deadline: Deadline, tally: Tally | None, on_piece: Callable[[str], bool]
    ) -> str:
        return self._connected().complete_streaming(messages, deadline, tally, on_piece)

    def context_window(self, deadline: Deadline) -> int | None:
        return self._connected().context_window(deadline)

    def ping(self) -> None:
        self._connected().ping()

    def cancel(self) -> None:
        """Cut the requests in flight and refuse new ones (OpenAIModel.cancel). Without the lock:
        the connect it guards takes half a second, and a stop must not wait for it."""
        self._cancelled = True
        client = self._client
        if client is not None:
            client.cancel()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._client is not None:
                self._client.close()
                self._client = None
