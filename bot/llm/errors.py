"""openai's errors, and pydantic's ValidationError for an answer that misses the schema, as ours
(bot/errors.py).

The one place that knows the SDK's exception tree: the rest of the bot sees only SummarizerError
and its kinds. Messages are ours; the server's error code and message are kept as attributes of
ModelRejected, never in the text. A refusal of an output mode or of the prompt's length is told
apart by llm/refusals.py (ModeRefused, ContextTooLong).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import openai
from pydantic import ValidationError

from bot.errors import (
    ModelBadOutput,
    ModelFiltered,
    ModelRejected,
    ModelTimeout,
    ModelTruncated,
    ModelUnavailable,
    SummarizerError,
)
from bot.llm.refusals import SERVER_MESSAGE_MAX, context_error, mode_refusal, server_message
from bot.llm.retry import RETRY_STATUSES
from bot.models import OutputMode

__all__ = ["SERVER_MESSAGE_MAX", "mapped_errors", "model_error"]


def model_error(exc: openai.OpenAIError | ValidationError, mode: OutputMode | None = None) -> SummarizerError:
    """Our error for one of openai's (or for the answer not matching the schema).

    With `mode`, the way structured output was asked for: an error that refuses it is ModeRefused.
    """
    if isinstance(exc, ValidationError | openai.APIResponseValidationError):
        return ModelBadOutput("the model's answer does not match the card's schema")
    if isinstance(exc, openai.LengthFinishReasonError):
        return ModelTruncated("the model's answer reached its length limit")
    if isinstance(exc, openai.ContentFilterFinishReasonError):
        return ModelFiltered("the model's provider filtered the answer")
    if isinstance(exc, openai.APITimeoutError):
        return ModelTimeout("the model did not answer in time")
    if isinstance(exc, openai.APIStatusError):
        known = context_error(exc) or (mode_refusal(exc, mode) if mode is not None else None)
        if known is not None:
            return known
        status = exc.status_code
        # The statuses worth a retry (llm/retry.py) say "not now"; the others refuse the request.
        if status in RETRY_STATUSES or status >= 500:
            return ModelUnavailable(f"the model endpoint answered {status}", status)
        return ModelRejected(status, exc.code, server_message(exc))
    if isinstance(exc, openai.APIError):  # connection refused or reset, no route, a broken stream
        return ModelUnavailable("the model endpoint could not be reached")
    return SummarizerError(f"the model call failed ({type(exc).__name__})")


@contextmanager
def mapped_errors(mode: OutputMode | None = None) -> Iterator[None]:
    """`with mapped_errors():` around SDK calls raises ours, each from the SDK's."""
    try:
        yield
    except (openai.OpenAIError, ValidationError) as exc:
        raise model_error(exc, mode) from exc
