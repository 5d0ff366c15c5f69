"""ModeMemory: what a model endpoint was found to take, remembered for a day.

- mode:{endpoint}:{model}  1 day: the output mode that last gave a card (models.OutputMode),
  and the model's context window when the endpoint told it. {endpoint} is the first 16 hex
  digits of the SHA-256 of the base URL: a URL may carry a user name and password, a key must not.

A cache: it stays open without Redis (a miss, and the next card probes the modes from the
strongest again, which costs one quick refusal per weaker step). Written only when something
was learned, so the day runs from the discovery: after it the stronger modes are probed again,
and a server upgraded meanwhile (llama-cpp-python learning json_schema) is used as such.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from pydantic import TypeAdapter, ValidationError

from bot.models import OutputMode
from bot.store.codec import deferred
from bot.store.kv import DAY, KV

MODE_TTL = DAY
ENDPOINT_DIGITS = 16


@dataclass(frozen=True)
class Learned:
    """The mode that worked, and the context window in tokens (None: not known)."""

    mode: OutputMode
    window: int | None = None


_LEARNED: TypeAdapter[Learned] = deferred(Learned)


def mode_key(base_url: str, model: str) -> str:
    endpoint = hashlib.sha256(base_url.encode()).hexdigest()[:ENDPOINT_DIGITS]
    return f"mode:{endpoint}:{model}"


class ModeMemory:
    """The memory of one endpoint and model (the wiring binds them)."""

    def __init__(self, kv: KV, base_url: str, model: str) -> None:
        self._kv = kv
        self._key = mode_key(base_url, model)

    def recall(self) -> Learned | None:
        raw = self._kv.get(self._key)
        if raw is None:
            return None
        try:
            return _LEARNED.validate_json(raw)
        except ValidationError:
            return None  # written by another version: probe again

    def remember(self, learned: Learned) -> None:
        self._kv.set(self._key, _LEARNED.dump_json(learned), MODE_TTL)
