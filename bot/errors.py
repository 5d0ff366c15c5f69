"""The one exception tree. Adapters translate library errors into it; surfaces turn it into words.

An error a person meets carries a note (a sentence of bot/words and its values), written for
them: what was wrong and what would work, in the language of the surface that shows it.
Library exception text is never echoed (it may hold URLs with tokens).
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from urllib.parse import urlsplit

from bot.models import Language, Note, OutputMode
from bot.words import said

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
    """Base of every error prdigest raises on purpose.

    `note` is what a person is told: a sentence of bot/words by key, with its values, worded by
    each surface in its own language (`in_language`). An error without one carries an English
    message of its own (ConfigError, SummarizerError).
    """

    note: Note | None = None

    def in_language(self, language: Language) -> str:
        return said(language, self.note) if self.note is not None else str(self)


class ToldError(PrdigestError):
    """An error a person meets: raised with its sentence's key and values. str() is the sentence
    in English, for logs and for whoever matches on it; values that repeat someone's input arrive
    `quoted`."""

    def __init__(self, kind: str, /, **values: str | int | Note | tuple[Note, ...]) -> None:
        self.note = Note(kind, values)
        super().__init__(said("en", self.note))


class ConfigError(PrdigestError):
    """A bad config file, environment variable or command-line value.

    Stays English: it is written for the operator who edits config/prdigest.toml or the
    environment, whose keys, like the logs and `prdigest doctor`, are English.
    """


class UsageError(ToldError):
    """Input a person typed that cannot be understood (a PR reference, a date, a window)."""


class SourceError(ToldError):
    """GitHub could not give what was asked."""


class NotFound(SourceError):
    """A repository or pull request that does not exist (or the token cannot see)."""


class RateLimited(SourceError):
    """GitHub's rate limit ran out and the reset is further away than we are willing to wait."""

    def __init__(self, reset_at: datetime | None, authenticated: bool) -> None:
        self.reset_at = reset_at
        self.authenticated = authenticated
        kind = "error.rate_limited_until" if reset_at else "error.rate_limited"
        anonymous = "" if authenticated else "_anonymous"
        if reset_at:
            super().__init__(kind + anonymous, time=reset_at.strftime("%H:%M UTC"))
        else:
            super().__init__(kind + anonymous)


class SummarizerError(PrdigestError):
    """The model could not produce a valid card or answer.

    Its message is for the logs: surfaces never show it, they say in their own words that the
    model is not answering (a reply's `model_failed`, a digest's note, the CLI's one line).
    """


class StoreError(ToldError):
    """Redis could not be reached or answered with an error."""


class PublishError(ToldError):
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


class ModeRefused(ModelRejected):
    """The endpoint does not take this way of asking for structured output (`mode`): a server
    that rejects `response_format` or `tools`. Not a failure of the card: the writer asks again
    in a weaker mode (cards/writer.py)."""

    def __init__(self, mode: OutputMode, status: int, code: str | None, message: str) -> None:
        super().__init__(status, code, message)
        self.mode = mode


class ContextTooLong(ModelRejected):
    """The prompt did not fit the model's context window. `window` and `prompt_tokens` are the
    server's figures when its message gives them (None when it does not)."""

    def __init__(
        self, status: int, code: str | None, message: str, *, window: int | None, prompt_tokens: int | None
    ) -> None:
        super().__init__(status, code, message)
        self.window = window
        self.prompt_tokens = prompt_tokens


class ModelBadOutput(SummarizerError):
    """The model answered, but not with what was asked (invalid JSON, a schema mismatch, nothing)."""


class ModelTruncated(SummarizerError):
    """The model's answer was cut at its length limit before it was complete."""


class ModelFiltered(SummarizerError):
    """The model or its provider declined to answer (a content filter, a refusal)."""


class BudgetSpent(SummarizerError):
    """The day's token budget is reached: the request was not sent (spending/budgets.py). A
    caller that says why there is no answer says the budget is spent, not that the model failed."""


# -- Vendor failures, with what callers branch on kept as values (mapped in one helper per vendor:
# sources/github_errors.py, slack/web.py, store/backends/redis_store.py).


class SourceUnreachable(SourceError):
    """No HTTP answer from GitHub: connection, TLS or timeout. `kind` names the failure (ConnectTimeout)."""

    def __init__(self, what: str, url: str, kind: str) -> None:
        super().__init__("error.github_unreachable", what=what, url=url, error=kind)
        self.kind = kind


class SourceNotAPI(SourceError):
    """GITHUB_API_URL answered, but not as GitHub's API does: a web page (an Enterprise server's
    host without /api/v3, github.com itself). `suggested` is the API URL an Enterprise server
    would have on that host."""

    def __init__(self, suggested: str) -> None:
        super().__init__("error.github_not_api", suggested=suggested)
        self.suggested = suggested

    @classmethod
    def at(cls, api_url: str) -> SourceNotAPI:
        """For GITHUB_API_URL `api_url`: suggesting api.github.com for github.com, else the
        Enterprise server's API on that host (https://HOST/api/v3)."""
        parts = urlsplit(api_url)
        host = parts.hostname or "HOST"
        if host in ("github.com", "www.github.com", "api.github.com"):
            return cls("https://api.github.com")
        netloc = host if parts.port is None else f"{host}:{parts.port}"
        return cls(f"{parts.scheme or 'https'}://{netloc}/api/v3")


class SourceRefused(SourceError):
    """GitHub answered with an HTTP error other than not-found or a spent rate limit (401, 403, 5xx…).
    `by_app`: the request carried a GitHub App installation's token, not GITHUB_TOKEN."""

    # 401: a bad or expired token; 403 without a rate-limit message: the token lacks a
    # permission, or SSO has not authorised it for the organisation.
    TOKEN_REFUSED = (401, 403)

    def __init__(self, what: str, status: int, *, by_app: bool = False) -> None:
        kind = "error.github_status"
        if status in self.TOKEN_REFUSED:
            kind = "error.github_app_refused" if by_app else "error.github_refused"
        super().__init__(kind, what=what, status=status)
        self.what = what
        self.status = status


class AppNotInstalled(NotFound):
    """The GitHub App is not installed on the repository, and no GITHUB_TOKEN reads it instead."""

    def __init__(self, repo: str) -> None:
        super().__init__("error.github_app_not_installed", repo=repo)
        self.repo = repo


class AppRefused(SourceError):
    """GitHub refused the GitHub App's own token (the JWT it signs with its key). `reason`: `key`
    (the signature is not the App's key), `clock` (expired or issued in the future by GitHub's
    clock), `app` (GitHub knows no App with this id)."""

    def __init__(self, reason: str, app_id: int) -> None:
        super().__init__(f"error.github_app_{reason}", app=app_id)
        self.reason = reason


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
            super().__init__("error.slack_unreachable", error=kind or "unknown")
        elif needed:
            super().__init__("error.slack_needs_scope", error=code, needed=needed)
        else:
            super().__init__("error.slack_answered", error=code)


class ChannelBusy(StoreError):
    """Another request is changing the channel and did not finish in time: ask again."""


class Stopped(Exception):
    """The run was stopped (Ctrl-C in a terminal): raised where a model call or a GitHub request
    would start, and by one cut short, so that nothing starts after the stop.

    Not a PrdigestError: nothing failed, so nothing may turn it into a fallback card or an error
    line. A digest says how far it got: `done` of `total` cards were made (and stored).
    """

    def __init__(self, done: int | None = None, total: int | None = None) -> None:
        self.done = done
        self.total = total
        super().__init__("stopped" if total is None else f"stopped: {done} of {total} cards done")
