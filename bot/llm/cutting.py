"""Cutting: a headline with its unsupported claims taken out, and the words that only carried them.

Owns how a claim, its lead-in words and the clause or aside it carried are cut and the rest tidied.
Must not decide which claims to cut (faithfulness.py) nor how claims are read (claims.py). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.llm.claims import WORD_CHARS, Claim, extract_claims

# A headline's main clause left with fewer words than this after a cut said only the figure ("saves").
MIN_CLAUSE_WORDS = 2
# A later clause or an aside left with this many words or fewer, and no claim, was there to carry
# its figure ("…, 1.9x faster" → "faster", "(7.1 ms less per step)" → "less per step").
MAX_ADDON_WORDS = 3

# A claim is cut within the same word boundaries it was read with.
_W = WORD_CHARS
# Clause breaks of a headline, kept so the survivors can be joined as they were written.
_CLAUSE_BREAK = re.compile(r"(\s*[,;]\s+|\s*[，；、]\s*|\s+[—–-]\s+|\s*:\s+)")
_WORDS = re.compile(r"\w+")
_PARENTHETICAL = re.compile(r"\(([^()]*)\)")
# Words that only lead up to a figure: once the figure is cut they would dangle ("faster by").
_LEAD_WORDS = r"(?:up to|by|of|to|from|at|about|around|approximately|roughly|nearly|almost|over|under)\s+|[~≈]\s*"
# Where a claim was cut, while the words around it are tidied.
_CUT = "\ue000"
# A preposition whose object was cut, left before the end, punctuation or another preposition:
# "cuts TTFT on H200 by 30%" → "cuts TTFT by 30%".
_PREPOSITIONS = r"on|in|with|for|by|of|to|from|at|via|using|than|per|and|or"
_DANGLING = re.compile(
    rf"(?<![{_W}])(?:{_PREPOSITIONS})\s*{_CUT}(?=\s*(?:$|[,.;:)\]]|(?:{_PREPOSITIONS})(?![{_W}])))",
    re.IGNORECASE,
)


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


def _is_stub(text: str) -> bool:
    return len(_WORDS.findall(text)) < MIN_CLAUSE_WORDS


def _is_addon(text: str) -> bool:
    return len(_WORDS.findall(text)) <= MAX_ADDON_WORDS and not extract_claims(text)


def _cut_aside(match: re.Match[str], claims: Sequence[Claim]) -> str:
    inner, cuts = _cut_claims(match[1], claims)
    return " " if cuts and _is_addon(inner) else f"({inner})"


def _cut_claims(clause: str, claims: Sequence[Claim]) -> tuple[str, int]:
    """The clause without the claims, and how many cuts were made."""
    clause = clause.replace(_CUT, "")
    cuts = 0
    for claim in claims:
        pattern = rf"(?:(?<![{_W}])(?:{_LEAD_WORDS}))?(?<![{_W}.]){re.escape(claim.text)}(?![{_W}])(?:\s+of(?![{_W}]))?"
        clause, count = re.subn(pattern, f" {_CUT} ", clause, flags=re.IGNORECASE)
        cuts += count
    while cuts:
        clause, count = _DANGLING.subn(_CUT, clause)
        if not count:
            break
    return _tidy(clause.replace(_CUT, " ")), cuts


def _tidy(text: str) -> str:
    text = re.sub(r"\(\s*\)|\[\s*\]", " ", text)
    text = re.sub(r"\s+([,.;:!?)\]])", r"\1", text)
    text = re.sub(r"([(\[])\s+", r"\1", text)
    text = " ".join(text.split()).strip(" ,;:—–，；、")
    # A hyphen left alone at either end; "--flag" keeps its dashes.
    return re.sub(r"^(?:-\s+)+|(?:\s+-)+$", "", text)
