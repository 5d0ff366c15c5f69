"""Fewer malloc arenas for the long-running processes (`serve`, `worker`).

glibc gives each thread that allocates while another holds an arena a new arena, up to 8 per
core. serve runs Bolt's listeners and a pool of 32 answer threads: each question's transient
work (a PR's context, the claims its answer is checked against: ~5,000 small objects) lands in
whichever arena its thread holds, and every arena keeps its high-water mark. The benchmark's
1,000 questions grew RSS by 6 MB with glibc's default and 1.7 MB with two arenas, for the same
Python objects alive (tracemalloc: no growth of live objects after warm-up).

A MALLOC_ARENA_MAX set by whoever starts the process wins; elsewhere than glibc this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import os

log = logging.getLogger(__name__)

ARENAS = 2
_M_ARENA_MAX = -8  # mallopt's parameter number (glibc malloc.h)


def limit_arenas(count: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas at `count` for this process. True when the cap was set."""
    if os.environ.get("MALLOC_ARENA_MAX"):
        return False  # the operator's own setting, read by glibc at start
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        libc = ctypes.CDLL(name)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False  # not glibc (musl, macOS): no arenas to cap
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    done = bool(mallopt(_M_ARENA_MAX, count) == 1)
    log.debug("malloc arenas capped at %d: %s", count, done)
    return done
