"""The plain-text tables the benchmark, the soak and the scripts print: readable in a terminal
and pasted as they are into docs/."""

from __future__ import annotations

from collections.abc import Iterable, Sequence


def table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """Every column padded to its widest cell, ` | ` between columns, a `-+-` rule under the headers."""
    cells = [list(headers), *(list(row) for row in rows)]
    widths = [max(len(line[column]) for line in cells) for column in range(len(headers))]
    lines = [" | ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)) for line in cells]
    lines.insert(1, "-+-".join("-" * width for width in widths))
    return "\n".join(lines)
