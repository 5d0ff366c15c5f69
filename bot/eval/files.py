"""The labelled files of `prdigest eval`, read as JSON Lines: a regular file only, line by line,
split on "\\n" alone, each line at most MAX_LINE_BYTES of strict UTF-8. What cannot be read so is
one UsageError naming the file (and the line); what a line says is eval/labels.py's.

A FIFO, a device (/dev/zero) or a directory is refused before a byte is read: the file is opened
without blocking (a FIFO with no writer would hold `open` forever) and its kind read from the
opened descriptor, so nothing can swap the path between the check and the read.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator

from bot.errors import UsageError, one_line, quoted

# The longest line of the labelled sets shipped in eval/ is under 300 bytes; a line of 64 KiB is
# two hundred times that, and reading one costs no more memory than that.
MAX_LINE_BYTES = 64 * 1024


def jsonl_lines(path: str) -> Iterator[str]:
    """Each line of the file at `path` (without its "\\n"), read as it is asked for."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (OSError, ValueError):  # ValueError: a NUL in the path
        raise UsageError("error.eval_unreadable", file=quoted(path)) from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise UsageError("error.eval_not_a_file", file=quoted(path))
    os.set_blocking(descriptor, True)
    with os.fdopen(descriptor, "rb") as file:
        name = one_line(path)
        number = 0
        while True:
            number += 1
            try:
                raw = file.readline(MAX_LINE_BYTES + 1)
            except OSError:
                raise UsageError("error.eval_unreadable", file=quoted(path)) from None
            if not raw:
                return
            line = raw.removesuffix(b"\n")
            if len(line) > MAX_LINE_BYTES:
                raise UsageError("error.eval_line_too_long", file=name, line=number, limit=f"{MAX_LINE_BYTES:,}")
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                raise UsageError("error.eval_not_utf8", file=name, line=number) from None
            yield text
