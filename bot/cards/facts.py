"""What GitHub's data states of a PR, as a card in the reader's language says it: facts of the PR
that the faithfulness check (core/checks/faithfulness.py SourceText.of) grounds a card's claims in."""

from __future__ import annotations

from bot.models import Language
from bot.words import text


def file_facts(files_total: int, language: Language) -> tuple[str, ...]:
    """What GitHub's file list states of a PR, as a card in `language` says it ("24 files", "24 个文件"),
    for SourceText.of: a count of the PR's files is a fact of the PR whichever language states it."""
    return (text(language, "fact.files", n=files_total),) if files_total else ()
