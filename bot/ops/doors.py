"""How a feature's door (its `__init__`) exports its calls: each imported when first asked for.

A door names what others may use of its feature in an `if TYPE_CHECKING:` block, which is what
mypy reads; at run time `exported` reads that block and imports a name's module only when
someone asks for the name. A surface that needs one call of a feature then loads that call's
modules, not the whole feature: the command line starts as fast as it did before the doors.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path


def exported(package: str, path: str) -> Callable[[str], object]:
    """The module `__getattr__` of the door `package` (whose source is at `path`)."""
    where = _names(Path(path))
    door = sys.modules[package]

    def __getattr__(name: str) -> object:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(door, name, value)  # asked for once: later lookups find it without this function
        return value

    return __getattr__


def _names(path: Path) -> dict[str, str]:
    """Each name the `if TYPE_CHECKING:` block of the module at `path` imports, and from where."""
    where: dict[str, str] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for item in node.body:
                if isinstance(item, ast.ImportFrom) and item.module:
                    where.update((alias.asname or alias.name, item.module) for alias in item.names)
    return where
