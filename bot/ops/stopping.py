"""What SIGINT (Ctrl-C) and SIGTERM do to a command. Signals are the surfaces' alone: services are
handed a stop as a value (Process.stop, a threading.Event) and never import signal.

- serve and worker drain on the first signal: the jobs in hand are finished or left to another
  process, so a digest is still posted exactly once. Once draining, a SIGINT exits at once.
- a terminal command (digest, card, ask, release) stops on the first: `TerminalStop`. A second SIGINT
  exits at once.

Main thread only: tests run servers in threads, and signals belong to the main thread.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import NoReturn, Self

log = logging.getLogger(__name__)

# A terminal command ends this long after the stop at the latest, whatever it is waiting for.
STOP_GRACE_SECONDS = 1.0
# How long a stopped command waits for its threads to end: a card the stop cut lets go of its
# lease as it ends (milliseconds), so that a run started at once does not wait for that lease.
SETTLE_SECONDS = 0.5
# What a shell reports for a command ended by a signal: 128 + its number (130 for Ctrl-C).
SIGNALLED = 128
# The line a stopped command is told to say, overwriting a progress bar on a terminal.
LINE_WIDTH = 50


def end_now(code: int) -> NoReturn:
    """End the process with `code`, its output flushed, without the interpreter's teardown.

    For a process whose work is over: its clients closed, its cards stored. The teardown frees
    every module and object one by one and runs nothing a finished command needs; it was 35 to
    50 ms of the 300 a warm digest of a past day takes, and 0.7 to 1.5 s for a stopped one on a
    busy machine.
    """
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a reader gone, a stream closed: nothing to save
            stream.flush()
    os._exit(code)


def leave(code: int) -> NoReturn:
    """Exit with `code`: at once (end_now) when nothing of the process still runs but this thread,
    else as Python does, waiting for the threads it waits for at exit (a pool's worker, a post in
    progress; daemon threads are never waited for)."""
    current = threading.current_thread()
    if not any(thread is not current and not thread.daemon for thread in threading.enumerate()):
        end_now(code)
    sys.exit(code)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def stop_on_signals(stop: Callable[[], None]) -> None:
    """SIGTERM or SIGINT calls `stop` (serve, worker: they drain); once stopping, a SIGINT exits
    at once, leaving what is in hand to another process as SIGKILL would."""
    if not _main_thread():
        return  # tests run servers in threads; signals belong to the main thread
    stopping = threading.Event()

    def handler(signum: int, frame: FrameType | None) -> None:
        if stopping.is_set() and signum == signal.SIGINT:
            os._exit(SIGNALLED + signal.SIGINT)
        stopping.set()
        log.warning("stopping on signal %s", signum)
        stop()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


# Not a signal number: what tells the watcher its command is over.
_QUIT = 0


def _noted(signum: int, frame: FrameType | None) -> None:
    """The Python-level handler of a TerminalStop: nothing, as the wakeup fd carries the news."""


def _take(signum: signal.Signals) -> object:
    """Note `signum` on the wakeup fd from now on, unless it is ignored; what handled it before."""
    before = signal.getsignal(signum)
    if before != signal.SIG_IGN:
        signal.signal(signum, _noted)
    return before


class TerminalStop:
    """Ctrl-C (or SIGTERM) in a terminal command: the first stops the run at once, a second SIGINT
    ends the process at once.

    The first calls `stop` (Process.stop: no model call or GitHub request starts after it, those
    in flight are cut), from a thread of its own that the signal wakes (signal.set_wakeup_fd): a
    Python signal handler runs on the main thread between two bytecodes, and must not wait for a
    lock that thread may hold. The command then ends itself, saying its line (`say`). If it has
    not ended STOP_GRACE_SECONDS later (a GitHub request no stop can cut, a rate-limit pause), its
    `line` is said and the process ends here, as it does at once on a second SIGINT. Every card
    made by then was stored as it was made.

    `with TerminalStop(stop):` takes SIGINT and SIGTERM over while inside (main thread only) and
    gives them back after, so a command run in-process (the tests) leaves its caller's handlers.
    A signal ignored when the command started stays ignored, as Python itself leaves SIGINT: a
    script's background job (`prdigest digest … &`) is not for the terminal's Ctrl-C.
    """

    def __init__(self, stop: Callable[[], None], grace: float = STOP_GRACE_SECONDS) -> None:
        self._stop = stop
        self._grace = grace
        # What to say if the process must be ended before the command says its own line.
        self.line = ""
        self.signal: int | None = None
        self._said = threading.Lock()
        self._read = self._write = -1
        self._before: tuple[int, object, object] | None = None
        self._watcher: threading.Thread | None = None
        self._ending: threading.Timer | None = None

    @property
    def exit_code(self) -> int:
        """130 after SIGINT, 143 after SIGTERM: what a shell reports for either."""
        return SIGNALLED + (self.signal or signal.SIGINT)

    def __enter__(self) -> Self:
        """Take SIGINT and SIGTERM over; nothing off the main thread."""
        if not _main_thread():
            return self
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)  # set_wakeup_fd's rule: a full pipe must not block
        wakeup = signal.set_wakeup_fd(self._write, warn_on_full_buffer=False)
        self._before = (wakeup, _take(signal.SIGINT), _take(signal.SIGTERM))
        self._watcher = threading.Thread(target=self._watch, name="stop", daemon=True)
        self._watcher.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._before is None or self._watcher is None:
            return
        wakeup, on_int, on_term = self._before
        signal.signal(signal.SIGINT, on_int)  # type: ignore[arg-type]  # as signal.signal gave them
        signal.signal(signal.SIGTERM, on_term)  # type: ignore[arg-type]
        signal.set_wakeup_fd(wakeup)
        os.write(self._write, bytes([_QUIT]))
        self._watcher.join()
        if self._ending is not None:  # the command ended on its own (done as the signal came)
            self._ending.cancel()
        os.close(self._write)
        os.close(self._read)
        self._before = None

    def settle(self, seconds: float = SETTLE_SECONDS) -> None:
        """Wait up to `seconds` for the command's other threads to end (those the stop cut end in
        milliseconds, letting go of their leases; a GitHub request in flight is not waited for)."""
        deadline = time.monotonic() + seconds
        for thread in threading.enumerate():
            left = deadline - time.monotonic()
            if left <= 0:
                return
            if thread is not threading.current_thread() and not thread.daemon:
                thread.join(left)

    def end(self) -> NoReturn:
        """End the stopped process now, its line said and its clients closed by the caller.

        The interpreter's own teardown (every module and object freed) took 0.7 to 1.5 s on a
        busy two-core machine, more than a stop may take; nothing it does is needed: every card
        was stored as it was made."""
        end_now(self.exit_code)

    def say(self, line: str) -> None:
        """`line` on stderr, once: whichever of the command and the grace's end comes first."""
        if not line or not self._said.acquire(blocking=False):
            return
        # Never from a signal handler (the watcher's thread, the grace's, the command's own), so a
        # plain write: on a terminal over the progress bar's line.
        sys.stderr.write(f"\r{line.ljust(LINE_WIDTH)}\n" if sys.stderr.isatty() else f"{line}\n")
        sys.stderr.flush()

    def _watch(self) -> None:
        while True:
            for signum in os.read(self._read, 64):
                if signum == _QUIT:
                    return
                if signum not in (signal.SIGINT, signal.SIGTERM):
                    continue
                if self.signal is None:
                    self.signal = signum
                    self._ending = threading.Timer(self._grace, self._end)
                    self._ending.daemon = True
                    self._ending.start()
                    self._stop()
                elif signum == signal.SIGINT:
                    self._end()

    def _end(self) -> None:
        self.say(self.line)
        os._exit(self.exit_code)
