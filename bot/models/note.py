"""What a person must be told, as data: a `Note` (a catalogue key and its values) and the
`Language` it is worded in. Holds no sentence of ours; bot/words words notes, surfaces say them.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Literal

Language = Literal["en", "zh-CN"]


@dataclass(frozen=True)
class Note:
    """Something a person must be told, as data: `kind` is the key of its sentence in every
    language's catalogue (bot/words), `values` fill that sentence's placeholders.

    Services and errors make notes; surfaces word them in the reader's language. A value is a
    number, an identifier or quoted input (never a sentence of ours), or notes worded in turn.
    """

    kind: str
    values: Mapping[str, str | int | Note | tuple[Note, ...]] = field(default_factory=dict)

    def strings(self) -> Iterator[str]:
        """Every text value, nested notes' too: what the note would name (a repository, a channel)."""
        for value in self.values.values():
            if isinstance(value, str):
                yield value
            elif isinstance(value, Note):
                yield from value.strings()
            elif isinstance(value, tuple):
                for note in value:
                    yield from note.strings()
