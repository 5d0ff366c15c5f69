"""Cutting: a headline with its unsupported claims taken out, and the words that only carried them.

Owns how a claim, its lead-in words and the clause or aside it carried are cut and the rest tidied.
Must not decide which claims to cut (faithfulness.py) nor how claims are read (claims.py). Pure,
and linear in the text for each claim (it cuts a clipped headline, but the model wrote it).
"""

from __future__ import annotations

import re
import string
from collections.abc import Sequence

from bot.core.checks.claims import WORD_CHARS, Claim, extract_claims
from bot.core.strings.patterns import lazy

# A headline's main clause left with fewer words than this after a cut said only the figure ("saves").
MIN_CLAUSE_WORDS = 2
# A later clause or an aside left with this many words or fewer, and no claim, was there to carry
# its figure ("…, 1.9x faster" → "faster", "(7.1 ms less per step)" → "less per step").
MAX_ADDON_WORDS = 3

# A claim is cut within the same word boundaries it was read with.
_W = WORD_CHARS
# Clause breaks of a headline, kept so the survivors can be joined as they were written. Never
# tried inside a run of spaces, only where it begins: from each place inside it, the rest of the
# run was scanned.
_CLAUSE_BREAK = lazy(r"(?:(?<!\s)|(?!\s))(\s*+[,;]\s++|\s*+[，；、]\s*+|\s++[—–-]\s++|\s*+:\s++)")
_WORDS = lazy(r"[^\W\u3400-\u4dbf\u4e00-\u9fff]+")
# Chinese writes no spaces: two Han characters count as about one word.
_HAN = lazy(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_PARENTHETICAL = lazy(r"\(([^()]*)\)")
# Words that only lead up to a figure: once the figure is cut they would dangle ("faster by").
_LEAD_WORDS = r"(?:up to|by|of|to|from|at|about|around|approximately|roughly|nearly|almost|over|under)\s+|[~≈]\s*"
# What a cut leaves: empty brackets, spaces before a closing mark or after an opening one. Each
# pattern starts only where its run of spaces does.
_EMPTY_BRACKETS = lazy(r"\(\s*+\)|\[\s*+\]")
_SPACE_BEFORE_CLOSER = lazy(r"(?<!\s)\s++(?=[,.;:!?)\]])")
_SPACE_AFTER_OPENER = lazy(r"(?<=[(\[])\s++")
_LEADING_HYPHENS = lazy(r"(?:-\s+)+")
# Chinese puts no space between words: a cut between two Han characters leaves none.
_SPACE_BETWEEN_HAN = lazy(r"(?<=[\u3400-\u4dbf\u4e00-\u9fff])[ \t]++(?=[\u3400-\u4dbf\u4e00-\u9fff])")
# Where a claim was cut, while the words around it are tidied.
_CUT = "\ue000"
# A preposition whose object was cut, left before the end, punctuation or another preposition:
# "cuts TTFT on H200 by 30%" → "cuts TTFT by 30%".
_PREPOSITIONS = r"on|in|with|for|by|of|to|from|at|via|using|than|per|and|or"
_PREPOSITION_WORDS = frozenset(_PREPOSITIONS.split("|"))
# What may follow a cut for the prepositions before it to dangle (the end of the clause aside).
_DANGLES_BEFORE = lazy(rf"\s*+(?:[,.;:)\]]|(?:{_PREPOSITIONS})(?![{_W}]))", re.IGNORECASE)
_ASCII_LETTERS = frozenset(string.ascii_letters)
_ASCII_WORD = frozenset(string.ascii_letters + string.digits + "_")


def without_claims(text: str, claims: Sequence[Claim]) -> str:
    """`text` with the claims cut out, with their lead-in words ("by 7.3x") and the clauses they carried.

    The first clause keeps its wording once the figure is gone ("Decode is 7.3x faster" → "Decode
    is faster") unless it is left a stub ("saves"). A short later clause or aside that holds no
    other claim was there to add the figure ("…, saves 16 GiB", "…, 1.9x faster"): it goes whole
    rather than leave "…, faster" behind.
    """
    if not claims:
        return text
    parts = _CLAUSE_BREAK.split(_PARENTHETICAL.sub(lambda match: _cut_aside(match, claims), text))
    clauses, breaks = parts[::2], parts[1::2]
    kept: list[str] = []
    for index, clause in enumerate(clauses):
        cut, cuts = _cut_claims(clause, claims)
        if cuts and (_is_stub(cut) if index == 0 else _is_addon(cut)):
            continue
        if kept and cut:
            kept.append(breaks[index - 1])
        if cut:
            kept.append(cut)
    return _tidy("".join(kept))


def _word_count(text: str) -> int:
    return len(_WORDS.findall(text)) + (len(_HAN.findall(text)) + 1) // 2


def _is_stub(text: str) -> bool:
    return _word_count(text) < MIN_CLAUSE_WORDS


def _is_addon(text: str) -> bool:
    return _word_count(text) <= MAX_ADDON_WORDS and not extract_claims(text)


def _cut_aside(match: re.Match[str], claims: Sequence[Claim]) -> str:
    inner, cuts = _cut_claims(match[1], claims)
    return " " if cuts and _is_addon(inner) else f"({inner})"


def _cut_claims(clause: str, claims: Sequence[Claim]) -> tuple[str, int]:
    """The clause without the claims, and how many cuts were made."""
    clause = clause.replace(_CUT, "")
    cuts = 0
    for claim in claims:
        if claim.cut:
            # A count loses its number and keeps its noun: "Removes 3 kernel launches" → "Removes kernel launches".
            rest = re.escape(claim.text[len(claim.cut) :])
            pattern = rf"(?:(?<![{_W}])(?:{_LEAD_WORDS}))?(?<![{_W}.]){re.escape(claim.cut)}(?={rest})\s*"
        else:
            pattern = (
                rf"(?:(?<![{_W}])(?:{_LEAD_WORDS}))?(?<![{_W}.]){re.escape(claim.text)}(?![{_W}])(?:\s+of(?![{_W}]))?"
            )
        clause, count = re.subn(pattern, f" {_CUT} ", clause, flags=re.IGNORECASE)
        cuts += count
    if cuts:
        clause = _without_dangling(clause)
    return _tidy(clause.replace(_CUT, " ")), cuts


def _without_dangling(clause: str) -> str:
    """The clause without the prepositions left dangling before a cut, however many in a row.

    Each cut looks back once over the words before it: removing one preposition per pass until
    none was left took one pass over the clause per preposition in a row.
    """
    pieces = clause.split(_CUT)
    for index in range(len(pieces) - 1):
        after = pieces[index + 1]
        at_end = index + 2 == len(pieces) and not after.strip()
        if at_end or _DANGLES_BEFORE.match(after):
            pieces[index] = _without_trailing_prepositions(pieces[index])
    return _CUT.join(pieces)


def _without_trailing_prepositions(text: str) -> str:
    """`text` without the prepositions (and the spaces after them) it ends with: "TTFT on in " → "TTFT "."""
    end = len(text)
    while True:
        stop = end
        while stop and text[stop - 1].isspace():
            stop -= 1
        begin = stop
        while begin and text[begin - 1] in _ASCII_LETTERS:
            begin -= 1
        if text[begin:stop].lower() not in _PREPOSITION_WORDS or (begin and text[begin - 1] in _ASCII_WORD):
            return text[:end]
        end = begin


def _tidy(text: str) -> str:
    text = _EMPTY_BRACKETS.sub(" ", text)
    text = _SPACE_BEFORE_CLOSER.sub("", text)
    text = _SPACE_AFTER_OPENER.sub("", text)
    text = _SPACE_BETWEEN_HAN.sub("", " ".join(text.split())).strip(" ,;:—–，；、")
    # A hyphen left alone at either end; "--flag" keeps its dashes. (The end is read backwards:
    # a pattern anchored at `$` is tried from every place before it.)
    start = leading.end() if (leading := _LEADING_HYPHENS.match(text)) else 0
    end = len(text)
    while end - 2 >= start and text[end - 2 : end] == " -":
        end -= 2
    return text[start:end]
