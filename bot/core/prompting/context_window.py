"""How much of a model's context window a prompt may take (pure).

A prompt and the answer share the window: a server refuses a prompt that leaves no room for
the answer (OpenAI, vLLM, llama-cpp-python answer 400 context_length_exceeded), and Ollama
silently drops the prompt's start. So the prompt's estimated tokens never exceed the window
less the room kept for the answer. When a server still finds a prompt too long (its tokenizer
counts more than core/strings/text.py estimates, its chat template adds tokens), `fitted` sizes the one
retry from the figures the server gave.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.strings.text import estimate_tokens
from bot.models import Message

# A retried prompt aims this far below the limit: tokenizers and chat templates differ, and
# there is only one retry.
FIT_MARGIN = 0.9
# Room kept for the model's answer (cards and answers are short), unless the model's
# max_output_tokens says otherwise.
OUTPUT_RESERVE = 600


def prompt_limit(token_budget: int, window: int | None, room: int) -> int:
    """Estimated tokens a prompt may take: the configured budget, within the window less `room`."""
    return token_budget if window is None else min(token_budget, window - room)


def request_tokens(messages: Sequence[Message], room: int, schema: str = "") -> int:
    """What one request may spend, held against the daily budget before it is sent: the prompt's
    estimate (its messages, and the JSON schema a structured request carries) and `room`, the
    answer's cap (max_output_tokens; OUTPUT_RESERVE where none is set, which then no server holds)."""
    return sum(estimate_tokens(message.content) for message in messages) + estimate_tokens(schema) + room


def fitted(*, sent: int, window: int | None, room: int, counted: int | None) -> int:
    """Estimated tokens for a retry of a prompt of `sent` estimated tokens that did not fit.

    `window` and `counted` (the server's count of the prompt) are the server's figures when its
    message gave them. The target is the window less `room`, converted to our estimate's units
    when the server counts more tokens than we estimated; never more than what was sent, and a
    margin below it. Without a window the prompt only shrinks by the margin: nothing says by how
    much it overflowed.
    """
    limit = sent if window is None else window - room
    if counted is not None and counted > sent:
        limit = limit * sent // counted
    return max(int(min(limit, sent) * FIT_MARGIN), 0)
