"""slack_sdk's errors as ours: the one place that reads SlackApiError and its kin.

Wrap calls to Slack's Web API in `slack_errors()` and catch `SlackError`, branching on its `code`:
Slack's own error name, or SlackError.TRANSPORT when no answer came. Nothing of the exception's
text is kept: slack_sdk's message repeats the whole response, and a proxy's error page with it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from http.client import HTTPException
from typing import Any

from slack_sdk.errors import SlackApiError, SlackRequestError

from bot.errors import SlackError

# Slack's error names are lower-case words joined by underscores. Anything else in `error` is
# slack_sdk's note about a body that was not JSON (it quotes a proxy's HTML page): not repeated.
_ERROR_NAME = re.compile(r"[a-z0-9_]{1,64}")
# missing_scope's `needed`: scope names such as chat:write or users:read.email, comma-separated.
_SCOPES = re.compile(r"[a-z0-9_:.,]{1,200}")
# Slack's answers that say "not now" rather than "no": asking later can succeed.
TRANSIENT = frozenset({"ratelimited", "internal_error", "fatal_error", "service_unavailable", "request_timeout"})
UNREADABLE = "unreadable_response"
UNKNOWN = "unknown_error"

# What urllib and http.client raise when no answer came (URLError and socket timeouts are
# OSError; RemoteDisconnected, IncompleteRead and InvalidURL are HTTPException), and what
# slack_sdk raises for a request it would not send (a URL that is not http(s)).
TRANSPORT_ERRORS = (OSError, HTTPException, SlackRequestError)


@contextmanager
def slack_errors() -> Iterator[None]:
    """Raise SlackError, from the original, for whatever a WebClient call inside raises."""
    try:
        yield
    except (SlackApiError, *TRANSPORT_ERRORS) as exc:
        raise slack_error(exc) from exc


def slack_error(exc: SlackApiError | OSError | HTTPException | SlackRequestError) -> SlackError:
    if not isinstance(exc, SlackApiError):
        return SlackError(SlackError.TRANSPORT, kind=type(exc).__name__)
    response: Any = exc.response  # a SlackResponse: its JSON body in `data`, and `headers`
    body = getattr(response, "data", response)
    body = body if isinstance(body, Mapping) else {}
    error = body.get("error")
    if error is None:
        code = UNKNOWN
    else:
        code = error if isinstance(error, str) and _ERROR_NAME.fullmatch(error) else UNREADABLE
    needed = body.get("needed")
    headers = getattr(response, "headers", None)
    return SlackError(
        code,
        needed=needed if isinstance(needed, str) and _SCOPES.fullmatch(needed) else None,
        retry_after=_retry_after(headers if isinstance(headers, Mapping) else {}),
    )


def _retry_after(headers: Mapping[str, Any]) -> float | None:
    """Seconds Slack asks us to wait (its 429 answers carry Retry-After), or None."""
    value = headers.get("Retry-After", headers.get("retry-after"))
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return None
    return seconds if 0 <= seconds < float("inf") else None
