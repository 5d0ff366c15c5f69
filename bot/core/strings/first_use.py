"""Objects made at their first use, with a stand-in until then (pure).

A stand-in answers every attribute of the object it stands for: the first lookup makes the
object, and each attribute found is kept on the stand-in, so a later lookup costs what it would
on the object itself. Two threads that use one first at once may both make it; either serves.
core/strings/patterns.py uses it for regular expressions, store/codec.py for pydantic's adapters.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class OnFirstUse:
    def __init__(self, make: Callable[[], object]) -> None:
        # Names the objects stood for do not use, so none of theirs is hidden.
        self.__make = make
        self.__made: object | None = None

    def __getattr__(self, name: str) -> Any:
        made = self.__made
        if made is None:
            made = self.__made = self.__make()
        found = getattr(made, name)
        self.__dict__[name] = found
        return found
