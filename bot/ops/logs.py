"""Log lines: the request id each one carries, and the two formats (`--log-format plain|json`).

The request id says which unit of work a line belongs to: a Slack delivery (http/server.py), a
card job (queue/broker.py), a scheduled digest (digests/posting.py). It lives in a contextvar, so
work handed to a thread pool carries it only when submitted with `carried` (or a context copy:
slack/executor.py). Every line, in either format, goes through redact.scrub: no token reaches a log.
Vendor-free: the services may call `carried` and `request_id`. Libraries' loggers are ours too
(`adopt`): their lines reach our one handler, once, at the level the command chose.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import ParamSpec, TypeVar

from bot.ops.redact import scrub

P = ParamSpec("P")
T = TypeVar("T")

_REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("prdigest_request_id", default=None)
PLAIN_FORMAT = "prdigest: %(message)s"
# Libraries whose own lines (retries, pools, backoffs) are for --debug only: each says what it
# does on every request, and our own one-line notes say what it means for the run.
QUIET_LIBRARIES = ("github", "urllib3", "requests", "openai", "httpx2", "httpcore2")
# The level chosen for them; NOTSET until a command chooses, so the root's level decides.
_LIBRARY_LEVEL = {"level": logging.NOTSET}


def quiet_libraries(debug: bool) -> None:
    """Library chatter at ERROR and up, unless --debug (then everything, through our handler)."""
    _LIBRARY_LEVEL["level"] = logging.DEBUG if debug else logging.ERROR
    for name in QUIET_LIBRARIES:
        adopt(name)


def adopt(name: str) -> None:
    """The library logger `name` as the command set it: no handler of its own, at our level.

    For a library that configures logging when imported, called right after its import:
    PyGithub's import sets its logger to INFO and gives it a stderr handler of its own, so every
    line it logged was printed twice (bare, then through ours), and INFO got through."""
    logger = logging.getLogger(name)
    for handler in list(logger.handlers):
        if not isinstance(handler, logging.NullHandler):
            logger.removeHandler(handler)
    logger.setLevel(_LIBRARY_LEVEL["level"])


def current_request_id() -> str | None:
    return _REQUEST_ID.get()


@contextlib.contextmanager
def request_id(value: str) -> Iterator[None]:
    """Lines logged inside (and in work handed on with the context) carry `value`."""
    token = _REQUEST_ID.set(value)
    try:
        yield
    finally:
        _REQUEST_ID.reset(token)


def carried(fn: Callable[P, T]) -> Callable[P, T]:
    """`fn` to run in another thread with the caller's context (request id included).

    Called in the submitting thread: the context is copied here, once per call of `carried`,
    since one Context cannot be entered by two threads at once.
    """
    context = contextvars.copy_context()

    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return context.run(fn, *args, **kwargs)

    return run


class PlainFormatter(logging.Formatter):
    """`prdigest: message`, as always, with secrets masked."""

    def __init__(self) -> None:
        super().__init__(PLAIN_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        return scrub(super().format(record))


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (ISO, UTC), level, logger, message, request_id, exc_info."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": scrub(record.getMessage()),
            # Handlers run in the thread that logs, so the contextvar is the line's own.
            "request_id": current_request_id(),
        }
        if record.exc_info:
            entry["exc_info"] = scrub(self.formatException(record.exc_info))
        elif record.exc_text:
            entry["exc_info"] = scrub(record.exc_text)
        # ensure_ascii keeps every line one line whatever the message holds (U+2028 included).
        return json.dumps(entry)
