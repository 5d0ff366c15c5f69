"""bot/ops/allocator.py: serve and worker cap glibc's malloc arenas, unless told otherwise."""

from __future__ import annotations

import ctypes
import ctypes.util
import platform

import pytest

from bot.ops import allocator


def test_an_operators_setting_is_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert allocator.limit_arenas() is False


def test_no_c_library_is_no_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    assert allocator.limit_arenas() is False


def test_a_c_library_without_mallopt_is_no_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)

    class NoMallopt:
        def __init__(self, name: str) -> None:
            pass

    monkeypatch.setattr(ctypes, "CDLL", NoMallopt)
    assert allocator.limit_arenas() is False


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")
def test_glibc_takes_the_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MALLOC_ARENA_MAX", raising=False)
    assert allocator.limit_arenas() is True
