"""The one exception tree. Adapters translate library errors into it; surfaces turn it into words.

Every message here is written for the person who ran the command: what was wrong and what
would work. Library exception text is never echoed (it may hold URLs with tokens).
"""

from __future__ import annotations

import unicodedata
from datetime import datetime

# How much of what someone typed an error message repeats: enough to recognise it, short enough
# for one terminal line and a Slack ack (a pasted diff must not come back as a wall of text).
MAX_QUOTED = 60
ELLIPSIS = "…"
# Control, format and line/paragraph separator characters: each would break a message over
# lines (str.splitlines splits on \x1c-\x1e, \x85, U+2028, U+2029 too) or hide or reorder text
# (zero-width and bidi controls), so they are shown escaped.
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs"})


def one_line(text: str) -> str:
    """`text` on one line: every character that could break or disguise it shown as an escape."""
    return "".join(
        char.encode("unicode_escape").decode("ascii") if unicodedata.category(char) in _HIDDEN else char
        for char in text
    )


def quoted(text: str) -> str:
    """Someone's input inside an error message: in quotes, on one line, cut at MAX_QUOTED characters."""
    shown = text if len(text) <= MAX_QUOTED else text[: MAX_QUOTED - 1] + ELLIPSIS
    return f"'{one_line(shown)}'"


class PrdigestError(Exception):
    """Base of every error prdigest raises on purpose."""


class ConfigError(PrdigestError):
    """A bad config file, environment variable or command-line value."""


class UsageError(PrdigestError):
    """Input a person typed that cannot be understood (a PR reference, a date, a window)."""


class SourceError(PrdigestError):
    """GitHub could not give what was asked."""


class NotFound(SourceError):
    """A repository or pull request that does not exist (or the token cannot see)."""


class RateLimited(SourceError):
    """GitHub's rate limit ran out and the reset is further away than we are willing to wait."""

    def __init__(self, reset_at: datetime | None, authenticated: bool) -> None:
        self.reset_at = reset_at
        self.authenticated = authenticated
        when = reset_at.strftime("%H:%M UTC") if reset_at else "later"
        hint = "" if authenticated else " Set GITHUB_TOKEN to raise the limit from 60 to 5,000 requests an hour."
        super().__init__(f"GitHub's rate limit is used up until {when}.{hint}")


class SummarizerError(PrdigestError):
    """The model could not produce a valid card or answer."""


class StoreError(PrdigestError):
    """Redis could not be reached or answered with an error."""


class PublishError(PrdigestError):
    """Slack refused or could not take a message."""


# The model's failures, as the model adapter (llm/errors.py) names them. Callers that only need
# to know the model gave nothing catch SummarizerError; the kinds say why, for logs and retries.


class ModelTimeout(SummarizerError):
    """The model did not answer within the time it was given."""


class ModelOutOfTime(ModelTimeout):
    """The budget was spent before another request could be made."""


class ModelUnavailable(SummarizerError):
    """The model could not be reached, or said it could not answer now (429, 5xx)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status  # None when no answer came at all


class ModelRejected(SummarizerError):
    """The model endpoint refused the request itself: a bad key, an unknown model, a request it
    cannot serve. `code` and `message` are the server's, kept for code that must recognise a
    refusal (never shown to people: they may quote the request)."""

    def __init__(self, status: int, code: str | None, message: str) -> None:
        super().__init__(f"the model endpoint refused the request ({status})")
        self.status = status
        self.code = code
        self.message = message


class ModelBadOutput(SummarizerError):
    """The model answered, but not with what was asked (invalid JSON, a schema mismatch, nothing)."""


class ModelTruncated(SummarizerError):
    """The model's answer was cut at its length limit before it was complete."""


class ModelFiltered(SummarizerError):
    """The model or its provider declined to answer (a content filter, a refusal)."""
