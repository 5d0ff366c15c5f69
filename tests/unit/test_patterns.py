"""Patterns compiled at their first use answer as the compiled ones do."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import bot
from bot.core.strings.patterns import _Lazy, lazy

BOT = Path(bot.__file__).parent


def test_a_lazy_pattern_matches_subs_and_splits_as_the_compiled_one() -> None:
    source = r"\b(\w+)\s+\1\b"
    compiled, deferred = re.compile(source, re.IGNORECASE), lazy(source, re.IGNORECASE)
    text = "The the cat sat sat down"
    assert deferred.sub(r"\1", text) == compiled.sub(r"\1", text)
    assert [m.span() for m in deferred.finditer(text)] == [m.span() for m in compiled.finditer(text)]
    assert deferred.split(text) == compiled.split(text)
    assert deferred.search("no repeats here") is None


def test_a_lazy_pattern_is_compiled_only_when_used() -> None:
    broken = lazy(r"(unclosed")  # an invalid pattern: its error waits for its first use
    assert broken.pattern == "(unclosed"
    try:
        broken.search("x")
    except re.error:
        pass
    else:
        raise AssertionError("the invalid pattern compiled")


def _patterns_in(value: object, depth: int = 0) -> list[re.Pattern[str]]:
    if isinstance(value, _Lazy):
        return [value]  # type: ignore[list-item]
    if depth < 3 and isinstance(value, tuple | list | frozenset | set):
        return [found for item in value for found in _patterns_in(item, depth + 1)]
    if depth < 3 and isinstance(value, dict):
        return [found for item in (*value.keys(), *value.values()) for found in _patterns_in(item, depth + 1)]
    return []


def test_every_pattern_of_bot_compiles() -> None:
    # Compiled at their first use, a typo in a rarely used pattern would otherwise wait for it.
    found: list[re.Pattern[str]] = []
    for path in sorted(BOT.rglob("*.py")):
        name = ".".join(path.relative_to(BOT.parent).with_suffix("").parts).removesuffix(".__init__")
        module = importlib.import_module(name)
        for value in vars(module).values():
            found.extend(_patterns_in(value))
            if isinstance(value, type) and value.__module__ == name:
                for attribute in vars(value).values():
                    found.extend(_patterns_in(attribute))
    assert len(found) > 200
    for pattern in found:
        pattern.search("")  # compiles it
