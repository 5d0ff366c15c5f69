"""openai's errors, and the pydantic ValidationError its `.parse` raises, as ours (bot/errors.py).

The one place that knows the SDK's exception tree: the rest of the bot sees only SummarizerError
and its kinds. Messages are ours; the server's error code and message are kept as attributes of
ModelRejected (a later check may need to recognise a refusal), never in the text.
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
from bot.llm.retry import RETRY_STATUSES

# Enough to recognise a refusal by its words; a proxy's HTML error page is not kept whole.
SERVER_MESSAGE_MAX = 1000


def model_error(exc: openai.OpenAIError | ValidationError) -> SummarizerError:
    """Our error for one of openai's (or for the answer not matching the schema)."""
    if isinstance(exc, ValidationError | openai.APIResponseValidationError):
        return ModelBadOutput("the model's answer does not match the card's schema")
    if isinstance(exc, openai.LengthFinishReasonError):
        return ModelTruncated("the model's answer reached its length limit")
    if isinstance(exc, openai.ContentFilterFinishReasonError):
        return ModelFiltered("the model's provider filtered the answer")
    if isinstance(exc, openai.APITimeoutError):
        return ModelTimeout("the model did not answer in time")
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        # The statuses worth a retry (llm/retry.py) say "not now"; the others refuse the request.
        if status in RETRY_STATUSES or status >= 500:
            return ModelUnavailable(f"the model endpoint answered {status}", status)
        return ModelRejected(status, exc.code, _server_message(exc))
    if isinstance(exc, openai.APIError):  # connection refused or reset, no route, a broken stream
        return ModelUnavailable("the model endpoint could not be reached")
    return SummarizerError(f"the model call failed ({type(exc).__name__})")


def _server_message(exc: openai.APIStatusError) -> str:
    """The `message` of the server's error body ({"error": {"message": …}}), or its text when not JSON."""
    body = exc.body  # the SDK has already unwrapped "error"
    message = body.get("message") if isinstance(body, dict) else body
    return message[:SERVER_MESSAGE_MAX] if isinstance(message, str) else ""


@contextmanager
def mapped_errors() -> Iterator[None]:
    """`with mapped_errors():` around SDK calls raises ours, each from the SDK's."""
    try:
        yield
    except (openai.OpenAIError, ValidationError) as exc:
        raise model_error(exc) from exc
