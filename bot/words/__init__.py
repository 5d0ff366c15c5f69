"""Every sentence prdigest shows, looked up by key in the reader's language (pure).

One catalogue per language (en.py, zh_cn.py), with the same keys and the same placeholders
(tests/unit/test_catalogue.py holds them to it). Services and errors hand over a Note (a key
and its values); surfaces word it here, in the language of the channel, the person or the
terminal. Model prompts are not here: they instruct the model (core/prompting/prompts.py), nobody reads them.
"""

from __future__ import annotations

from collections.abc import Mapping

from bot.models import Language, Note
from bot.words import en, zh_cn

CATALOGUES: Mapping[Language, Mapping[str, str]] = {"en": en.WORDS, "zh-CN": zh_cn.WORDS}
# A language's sentences for a count of 1, where it says one thing otherwise than several (en.ONE).
SINGULARS: Mapping[Language, Mapping[str, tuple[str, str]]] = {"en": en.ONE, "zh-CN": {}}


def text(language: Language, key: str, /, **values: str | int | Note | tuple[Note, ...]) -> str:
    """The sentence `key` in `language`, its placeholders filled; notes among the values are
    worded in the same language, several of them joined by the language's list separator. Where
    the language says a count of 1 otherwise, and the count is 1, that sentence instead."""
    template = CATALOGUES[language][key]
    singular = SINGULARS[language].get(key)
    if singular is not None and str(values.get(singular[0])) == "1":
        template = singular[1]
    return template.format(**{name: _shown(language, value) for name, value in values.items()})


def said(language: Language, note: Note) -> str:
    """A note as a sentence in `language`."""
    return text(language, note.kind, **note.values)


def _shown(language: Language, value: str | int | Note | tuple[Note, ...]) -> str | int:
    if isinstance(value, Note):
        return said(language, value)
    if isinstance(value, tuple):
        return CATALOGUES[language]["list.sep"].join(said(language, note) for note in value)
    return value  # a number stays a number, so a template may format it ({n:,})
