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


# -- Vendor failures, with what callers branch on kept as values (mapped in one helper per vendor:
# sources/github_errors.py, slack/errors.py, store/redis_store.py).


class SourceUnreachable(SourceError):
    """No HTTP answer from GitHub: connection, TLS or timeout. `kind` names the failure (ConnectTimeout)."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


class SourceRefused(SourceError):
    """GitHub answered with an HTTP error other than not-found or a spent rate limit (401, 403, 5xx…)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class SlackError(PublishError):
    """A Slack Web API call that failed.

    `code` is Slack's error name (not_in_channel, channel_not_found, ratelimited, invalid_auth,
    missing_scope…), or TRANSPORT when no answer came; then `kind` names the failure (URLError).
    """

    TRANSPORT = "transport"

    def __init__(
        self, code: str, *, kind: str | None = None, needed: str | None = None, retry_after: float | None = None
    ) -> None:
        self.code = code
        self.kind = kind
        self.needed = needed  # missing_scope: the scope the call needs
        self.retry_after = retry_after  # ratelimited: seconds, from Slack's Retry-After
        if code == self.TRANSPORT:
            message = f"Slack could not be reached ({kind})"
        else:
            message = f"Slack answered {code}" + (f" (it needs the {needed} scope)" if needed else "")
        super().__init__(message)
