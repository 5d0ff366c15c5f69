"""What a terminal is told while it waits for the model, and once when the model failed.

A model that needs a minute a card, or never answers, left `prdigest card` silent for minutes,
and a silent terminal looks hung. After NOTICE_AFTER_SECONDS without output one line says what
is awaited and for how long at most. Only on a terminal: a pipe or a log gets the result and
the errors, not chatter. When the model failed, one line says so for the whole command (not one
per PR: a digest of 61 PRs with the model down printed 61).
"""

from __future__ import annotations

import sys
import threading
import time
from types import TracebackType
from typing import Self

from bot.models import Language
from bot.ops.redact import url_host
from bot.settings import DEFAULT_OPENAI_URL, Settings
from bot.words import text

NOTICE_AFTER_SECONDS = 5.0
# The notice overwrites a progress bar line ("\r[###…] 3/61 cards") whole before its newline.
LINE_WIDTH = 50


def model_host(settings: Settings) -> str:
    """Where the model is, as a person may see it: host and port, no credentials."""
    return url_host(settings.openai_base_url or DEFAULT_OPENAI_URL)


def _seconds(value: float) -> str:
    return f"{value:g}"


class Waiting:
    """`with Waiting(message):` — `message` on stderr once, if nothing was shown for a while.

    `output()` says something was shown (a card finished): the silence starts again.
    """

    def __init__(self, message: str, *, enabled: bool = True) -> None:
        self._message = message
        self._enabled = enabled and sys.stderr.isatty()
        self._last = time.monotonic()
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def for_model(cls, settings: Settings, language: Language, *, enabled: bool, per_card: bool = False) -> Waiting:
        """The notice for a model call; `per_card`: the limit holds for each card of several."""
        seconds = _seconds(settings.defaults.model_timeout)
        key = "cli.waiting_each" if per_card else "cli.waiting"
        return cls(text(language, key, host=model_host(settings), seconds=seconds), enabled=enabled)

    def output(self) -> None:
        with self._lock:
            self._last = time.monotonic()

    def __enter__(self) -> Self:
        if self._enabled:
            self._thread = threading.Thread(target=self._watch, name="waiting", daemon=True)
            self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._done.set()
        if self._thread is not None:
            self._thread.join()

    def _watch(self) -> None:
        while True:
            with self._lock:
                wait = self._last + NOTICE_AFTER_SECONDS - time.monotonic()
            if wait <= 0:
                break
            if self._done.wait(wait):
                return
        if self._done.is_set():
            return
        line = f"prdigest: {self._message}"
        sys.stderr.write(f"\r{line.ljust(LINE_WIDTH)}\n")
        sys.stderr.flush()


def model_failed_line(settings: Settings, failed: int, total: int, language: Language = "en") -> str:
    """The one line a terminal gets when cards had to come from metadata."""
    host = model_host(settings)
    if total == 1:
        return f"prdigest: {text(language, 'cli.model_failed_one', host=host)}"
    return f"prdigest: {text(language, 'cli.model_failed', host=host, failed=failed, total=total)}"
