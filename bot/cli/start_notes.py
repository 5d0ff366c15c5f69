"""The lines a command says on stderr about its setup (the config file it read, where its cache is
kept): said the first time on this machine and again whenever what they say changes; every time
with --verbose, and by `serve` and `worker`, whose logs are read long after they start.

What was said is kept as one fingerprint a line in a marker file beside the cache file, private as
the cache is (store/backends/private_file.py). Without a cache file (PRDIGEST_CACHE=off, --no-cache) there
is no marker and the lines are said; a marker that cannot be made, read or written changes nothing
but that. Lines about a problem (the cache falling back to memory) do not come here: they are said.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from pathlib import Path

from bot.errors import ConfigError
from bot.store.backends.private_file import FILE_MODE, make_private

MARKER_NAME = "said"
# Lines remembered: a few per setting (config file, cache) over the settings a machine has seen.
MAX_REMEMBERED = 64
# Enough of a sha256 to tell the lines of one machine apart.
FINGERPRINT_CHARS = 16


class StartNotes:
    """Where the setup lines go: `marker` (None: no memory, every line said) and `always` (--verbose)."""

    def __init__(self, marker: Path | None, *, always: bool, own_directory: bool = True) -> None:
        self._marker = marker
        self._always = always
        self._own_directory = own_directory

    @classmethod
    def beside(cls, cache: Path | None, *, always: bool, own_directory: bool = True) -> StartNotes:
        """The notes of a process whose cache file is `cache` (the marker sits in its directory)."""
        return cls(
            cache.parent / MARKER_NAME if cache is not None else None, always=always, own_directory=own_directory
        )

    def say(self, line: str) -> None:
        """`line` on stderr after "prdigest: ", unless this machine was told it already."""
        if not self._always and self._marker is not None and not self._first_time(line):
            return
        print(f"prdigest: {line}", file=sys.stderr)

    def _first_time(self, line: str) -> bool:
        """Whether `line` is new to the marker (and now remembered); True when the marker fails."""
        marker = self._marker
        assert marker is not None
        mark = hashlib.sha256(line.encode()).hexdigest()[:FINGERPRINT_CHARS]
        try:
            make_private(marker, own_directory=self._own_directory)
            said = marker.read_text(encoding="ascii").split()
            if mark in said:
                return False
            kept = [*said, mark][-MAX_REMEMBERED:]
            _write(marker, "\n".join(kept) + "\n")
        except (OSError, UnicodeDecodeError, ConfigError):
            return True
        return True


def _write(marker: Path, content: str) -> None:
    """Replace the marker whole (a reader never sees half of it), private from its first byte."""
    temporary = marker.with_name(f".{marker.name}.{os.getpid()}")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    try:
        with os.fdopen(descriptor, "w", encoding="ascii") as out:
            out.write(content)
        os.chmod(temporary, FILE_MODE)  # os.open's mode goes through the umask
        os.replace(temporary, marker)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()
